"""file_properties (title, author, dates, page count, language without an LLM) and detect_language."""

from __future__ import annotations

import io
import logging
import zipfile
from pathlib import Path

import pytest

from ragwire.metadata.language import detect_language
from ragwire.metadata.properties import file_properties

PROPERTY_KEYS = {"title", "author", "created", "modified", "year", "page_count", "language"}

ENGLISH = (
    "The committee met on Tuesday to review the budget for the coming year. Most of the members"
    " agreed that the costs of the new building were too high, but they could not find a cheaper"
    " site that was close to the station."
)
GERMAN = (
    "Der Ausschuss hat sich am Dienstag getroffen, um den Haushalt für das kommende Jahr zu prüfen."
    " Die meisten Mitglieder waren der Meinung, dass die Kosten für das neue Gebäude zu hoch sind,"
    " aber sie konnten keinen günstigeren Standort in der Nähe des Bahnhofs finden."
)
FRENCH = (
    "Le comité s'est réuni mardi pour examiner le budget de l'année prochaine. La plupart des membres"
    " ont estimé que le coût du nouveau bâtiment était trop élevé, mais ils n'ont pas trouvé de site"
    " moins cher qui soit proche de la gare et des écoles."
)
SPANISH = (
    "El comité se reunió el martes para revisar el presupuesto del próximo año. La mayoría de los"
    " miembros pensaba que el coste del nuevo edificio era demasiado alto, pero no encontraron un"
    " sitio más barato que estuviera cerca de la estación y de las escuelas."
)
CODE = '''def load(path):
    with open(path) as fh:
        data = json.load(fh)
    result = {}
    for key, value in data.items():
        if value is None:
            continue
        result[key] = value
    return result
'''

CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    "</Types>"
)
ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"'
    ' Target="word/document.xml"/>'
    "</Relationships>"
)


def _core_xml(title: str = "", creator: str = "", created: str = "", modified: str = "") -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties"'
        ' xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"'
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        f"<dc:title>{title}</dc:title><dc:creator>{creator}</dc:creator>"
        f'<dcterms:created xsi:type="dcterms:W3CDTF">{created}</dcterms:created>'
        f'<dcterms:modified xsi:type="dcterms:W3CDTF">{modified}</dcterms:modified>'
        "</cp:coreProperties>"
    )


def _app_xml(pages: int) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">'
        f"<Application>Microsoft Office Word</Application><Pages>{pages}</Pages></Properties>"
    )


def _zip(path: Path, parts: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in parts.items():
            archive.writestr(name, content)
    return path


def _docx(path: Path, **parts: str) -> Path:
    return _zip(
        path,
        {
            "[Content_Types].xml": CONTENT_TYPES,
            "_rels/.rels": ROOT_RELS,
            "word/document.xml": '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>',
            **parts,
        },
    )


def _pdf(path: Path, metadata: dict[str, str], pages: int = 1) -> Path:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=612, height=792)
    if metadata:
        writer.add_metadata(metadata)
    buffer = io.BytesIO()
    writer.write(buffer)
    path.write_bytes(buffer.getvalue())
    return path


# --- PDF ---------------------------------------------------------------------------------


def test_pdf_info_gives_title_author_utc_created_year_and_page_count(tmp_path: Path) -> None:
    pdf = _pdf(
        tmp_path / "paper.pdf",
        {
            "/Title": "  Soil   Carbon\nin Alpine Meadows ",
            "/Author": " Ana Ruiz ",
            "/CreationDate": "D:20230415120000+02'00'",
        },
        pages=3,
    )
    props = file_properties(pdf, "", "pdf")
    assert props == {
        "title": "Soil Carbon in Alpine Meadows",
        "author": "Ana Ruiz",
        "created": "2023-04-15T10:00:00Z",  # 12:00 at +02:00 is 10:00 UTC
        "year": 2023,
        "page_count": 3,
    }


def test_pdf_mod_date_with_negative_offset_and_year_falls_back_to_modified(tmp_path: Path) -> None:
    pdf = _pdf(tmp_path / "a.pdf", {"/ModDate": "D:20211231203000-05'30'"})
    props = file_properties(pdf, "", "pdf")
    # 20:30 at -05:30 is 02:00 UTC the next day, in the next year.
    assert props["modified"] == "2022-01-01T02:00:00Z"
    assert props["year"] == 2022
    assert "created" not in props


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("D:2024", "2024-01-01T00:00:00Z"),
        ("D:202409", "2024-09-01T00:00:00Z"),
        ("D:20240912103000Z", "2024-09-12T10:30:00Z"),
        ("D:20240912103000Z00'00'", "2024-09-12T10:30:00Z"),
        ("D:20240912103000", "2024-09-12T10:30:00Z"),  # no offset: taken as UTC
        ("20240912103000+01'00", "2024-09-12T09:30:00Z"),  # no "D:" prefix, no closing quote
    ],
)
def test_pdf_dates_partial_and_offset_forms_parse(tmp_path: Path, raw: str, expected: str) -> None:
    props = file_properties(_pdf(tmp_path / "d.pdf", {"/CreationDate": raw}), "", "pdf")
    assert props["created"] == expected


@pytest.mark.parametrize("raw", ["D:20241345", "yesterday", "D:0000", ""])
def test_pdf_unparseable_dates_are_omitted(tmp_path: Path, raw: str) -> None:
    props = file_properties(_pdf(tmp_path / "d.pdf", {"/CreationDate": raw}), "", "pdf")
    assert "created" not in props
    assert "year" not in props


def test_microsoft_word_title_prefix_is_stripped(tmp_path: Path) -> None:
    pdf = _pdf(tmp_path / "r.pdf", {"/Title": "Microsoft Word - report.docx"})
    assert file_properties(pdf, "", "pdf")["title"] == "report"


@pytest.mark.parametrize("junk", ["untitled", "Untitled-1", "Document1", "   ", "---"])
def test_pdf_placeholder_titles_are_ignored(tmp_path: Path, junk: str) -> None:
    pdf = _pdf(tmp_path / "j.pdf", {"/Title": junk})
    assert "title" not in file_properties(pdf, "", "pdf")


def test_pdf_without_title_falls_back_to_the_first_markdown_heading(tmp_path: Path) -> None:
    pdf = _pdf(tmp_path / "n.pdf", {})
    assert file_properties(pdf, "# Annual Report\n\nText.", "pdf")["title"] == "Annual Report"


# --- Office ------------------------------------------------------------------------------


def test_docx_core_and_app_properties_are_read(tmp_path: Path) -> None:
    docx = _docx(
        tmp_path / "memo.docx",
        **{
            "docProps/core.xml": _core_xml(
                title="Quarterly Memo",
                creator="Jo Park",
                created="2022-11-03T08:15:00Z",
                modified="2023-01-10T16:00:00+01:00",
            ),
            "docProps/app.xml": _app_xml(7),
        },
    )
    props = file_properties(docx, "# Something else\n\nBody.", "docx")
    assert props == {
        "title": "Quarterly Memo",  # the document's own title wins over the first heading
        "author": "Jo Park",
        "created": "2022-11-03T08:15:00Z",
        "modified": "2023-01-10T15:00:00Z",
        "year": 2022,
        "page_count": 7,
    }


def test_docx_date_only_created_is_midnight_utc(tmp_path: Path) -> None:
    docx = _docx(tmp_path / "d.docx", **{"docProps/core.xml": _core_xml(created="2020-02-29")})
    props = file_properties(docx, "", "docx")
    assert props == {"created": "2020-02-29T00:00:00Z", "year": 2020}


def test_docx_missing_core_xml_yields_text_keys_only(tmp_path: Path) -> None:
    docx = _docx(tmp_path / "bare.docx")
    assert file_properties(docx, "# Heading Title\n\nBody.", "docx") == {"title": "Heading Title"}


def test_docx_malformed_core_xml_is_ignored_without_error(tmp_path: Path) -> None:
    docx = _docx(tmp_path / "bad.docx", **{"docProps/core.xml": "<cp:coreProperties><dc:title>Broken"})
    assert file_properties(docx, "", "docx") == {}


def test_docx_core_xml_with_doctype_is_not_parsed(tmp_path: Path) -> None:
    # Guards against entity-expansion tricks in an attacker-supplied docProps part.
    doctype = '<!DOCTYPE x [<!ENTITY a "aaaa">]>'
    core = _core_xml(title="Sneaky").replace("<cp:coreProperties", doctype + "<cp:coreProperties", 1)
    docx = _docx(tmp_path / "dt.docx", **{"docProps/core.xml": core})
    assert file_properties(docx, "", "docx") == {}


def test_pptx_page_count_is_the_number_of_slide_parts(tmp_path: Path) -> None:
    pptx = _zip(
        tmp_path / "deck.pptx",
        {
            "[Content_Types].xml": CONTENT_TYPES,
            "ppt/presentation.xml": "<p/>",
            "ppt/slides/slide1.xml": "<s/>",
            "ppt/slides/slide2.xml": "<s/>",
            "ppt/slides/slide3.xml": "<s/>",
            "ppt/slides/_rels/slide1.xml.rels": "<r/>",
            "ppt/slideLayouts/slideLayout1.xml": "<l/>",
        },
    )
    props = file_properties(pptx, "<!-- Slide number: 1 -->\n# Roadmap 2025\n\nGoals.", "pptx")
    assert props == {"page_count": 3, "title": "Roadmap 2025"}


def test_xlsx_sheet_heading_is_not_taken_as_title(tmp_path: Path) -> None:
    xlsx = _zip(tmp_path / "t.xlsx", {"[Content_Types].xml": CONTENT_TYPES, "xl/workbook.xml": "<w/>"})
    assert file_properties(xlsx, "## Sheet1\n| a | b |\n|---|---|\n| 1 | 2 |", "xlsx") == {}


# --- Text-derived ------------------------------------------------------------------------


def test_markdown_title_is_the_first_heading_of_any_level(tmp_path: Path) -> None:
    text = "Intro line without a heading.\n\n## Install  Guide ##\n\n# Later Heading\n"
    assert file_properties(tmp_path / "x.md", text, "md") == {"title": "Install Guide"}


def test_markdown_heading_inside_a_code_fence_is_skipped(tmp_path: Path) -> None:
    text = "```bash\n# not a title\nls\n```\n\n# Real Title\n"
    assert file_properties(tmp_path / "x.md", text, "md")["title"] == "Real Title"


def test_markdown_hash_without_space_is_not_a_heading(tmp_path: Path) -> None:
    assert "title" not in file_properties(tmp_path / "x.md", "#hashtag\n\nbody", "md")


def test_plain_text_short_first_line_before_a_blank_line_is_the_title(tmp_path: Path) -> None:
    text = "Shipping   Policy\n\nOrders ship within two days."
    assert file_properties(tmp_path / "p.txt", text, "txt") == {"title": "Shipping Policy"}


def test_plain_text_long_first_line_is_not_a_title(tmp_path: Path) -> None:
    text = "x" * 121 + "\n\nSecond paragraph."
    assert "title" not in file_properties(tmp_path / "p.txt", text, "txt")


def test_plain_text_first_line_without_a_blank_line_after_is_not_a_title(tmp_path: Path) -> None:
    text = "Orders ship within two days.\nReturns are accepted for 30 days.\n"
    assert "title" not in file_properties(tmp_path / "p.txt", text, "txt")


def test_language_is_added_from_the_text(tmp_path: Path) -> None:
    assert file_properties(tmp_path / "g.txt", GERMAN, "txt") == {"language": "de"}


def test_title_is_capped_at_300_characters(tmp_path: Path) -> None:
    props = file_properties(tmp_path / "l.md", "# " + "word " * 100, "md")
    assert len(props["title"]) == 300
    assert props["title"].endswith("…")


# --- Damaged files -----------------------------------------------------------------------


@pytest.mark.parametrize("file_type", ["pdf", "docx", "pptx", "xlsx"])
def test_corrupt_file_yields_no_file_keys_and_no_exception(
    tmp_path: Path, file_type: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / f"broken.{file_type}"
    path.write_bytes(b"\x00\x01garbage%PDF-not really\xff" * 50)
    with caplog.at_level(logging.DEBUG, logger="ragwire.metadata.properties"):
        props = file_properties(path, "", file_type)
    assert props == {}
    assert any("properties" in record.getMessage() for record in caplog.records)


def test_corrupt_file_still_gets_text_derived_keys(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\n garbage")
    assert file_properties(path, "# From Text\n\n" + ENGLISH, "pdf") == {"title": "From Text", "language": "en"}


def test_missing_file_yields_only_text_keys(tmp_path: Path) -> None:
    assert file_properties(tmp_path / "gone.docx", "# T\n", "docx") == {"title": "T"}


def test_truncated_pdf_never_raises(tmp_path: Path) -> None:
    good = _pdf(tmp_path / "g.pdf", {"/Title": "Full"}, pages=2).read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(good[: len(good) // 2])
    assert set(file_properties(cut, "", "pdf")) <= PROPERTY_KEYS


# --- detect_language ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"), [(ENGLISH, "en"), (GERMAN, "de"), (FRENCH, "fr"), (SPANISH, "es")]
)
def test_detect_language_recognises_short_paragraphs(text: str, expected: str) -> None:
    assert detect_language(text) == expected


def test_detect_language_three_words_is_none() -> None:
    assert detect_language("the quick fox") is None


def test_detect_language_code_snippet_is_none() -> None:
    assert detect_language(CODE) is None


def test_detect_language_empty_and_numbers_are_none() -> None:
    assert detect_language("") is None
    assert detect_language("12 34 56 78 90 " * 50) is None


def test_detect_language_even_mix_is_none() -> None:
    assert detect_language(ENGLISH + " " + GERMAN) is None


def test_detect_language_reads_only_the_start() -> None:
    assert detect_language(GERMAN + " " + "x" * 6000 + " " + ENGLISH * 20) == "de"


def test_pdf_encrypted_with_a_real_password_yields_no_file_keys(tmp_path: Path) -> None:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    writer.add_metadata({"/Title": "Secret Plan"})
    writer.encrypt(user_password="hunter2", owner_password="owner", algorithm="RC4-128")
    path = tmp_path / "locked.pdf"
    with path.open("wb") as fh:
        writer.write(fh)
    assert file_properties(path, "", "pdf") == {}


def test_pdf_encrypted_with_the_empty_password_is_read(tmp_path: Path) -> None:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    writer.add_metadata({"/Title": "Open Plan"})
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    path = tmp_path / "open.pdf"
    with path.open("wb") as fh:
        writer.write(fh)
    assert file_properties(path, "", "pdf") == {"title": "Open Plan", "page_count": 1}
