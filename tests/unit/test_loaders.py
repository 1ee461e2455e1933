"""Loaders: every example format, encodings, bad files, safe directory walking, lazy imports."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragwire.errors import LoaderError
from ragwire.loaders import (
    SUPPORTED_EXTENSIONS,
    MarkItDownLoader,
    PageLoader,
    decode_bytes,
    looks_binary,
    walk_directory,
)

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "docs"
CORPUS = REPO / "tests" / "data" / "corpus"

RESULT_KEYS = {"success", "text_content", "file_name", "file_type", "error"}


@pytest.fixture(scope="module")
def loader() -> MarkItDownLoader:
    return MarkItDownLoader()


@pytest.fixture(scope="module")
def page_loader() -> PageLoader:
    return PageLoader()


def _assert_one_line_failure(result: dict, *fragments: str) -> None:
    assert set(result) >= RESULT_KEYS
    assert result["success"] is False
    assert result["text_content"] is None
    assert "\n" not in result["error"]
    for fragment in fragments:
        assert fragment in result["error"]


# --------------------------------------------------------------------------- formats


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("user-guide.md", ["# Aurora AR-7 User Guide", "a full charge takes 3 hours"]),
        ("troubleshooting.txt", ["E-4711", "Lidar calibration drift", "E-2093", "Battery cell imbalance"]),
        ("warranty-policy.pdf", ["24 months", "SKU-88213-B", "30 days"]),
        ("release-notes.docx", ["Firmware 3.3.1", "Firmware 3.2.0", "Opportunity charging"]),
        ("onboarding.pptx", ["Meet the Aurora AR-7", "Safety rules on the floor"]),
        ("price-list.xlsx", ["SKU-88213-B", "2950", "Service rates"]),
        ("faq.html", ["How much does a replacement battery cost?", "€2,950", "café"]),
    ],
)
def test_every_example_format_loads_with_its_text(loader, name, expected):
    result = loader.load(EXAMPLES / name)

    assert set(result) == RESULT_KEYS
    assert result["success"] is True, result["error"]
    assert result["error"] is None
    assert result["file_name"] == name
    assert result["file_type"] == name.rsplit(".", 1)[1]
    for fragment in expected:
        assert fragment in result["text_content"]


def test_cp1252_html_is_decoded_not_garbled(loader):
    text = loader.load(EXAMPLES / "faq.html")["text_content"]

    assert "café" in text and "€145" in text and "Zürich" in text
    assert "Ã" not in text and "\ufffd" not in text
    assert "font-family" not in text  # <style> is dropped


def test_example_corpus_is_small_and_faq_is_really_cp1252():
    raw = (EXAMPLES / "faq.html").read_bytes()

    assert b'<meta charset="windows-1252">' in raw
    assert b"caf\xe9" in raw and b"\x802,950" in raw  # cp1252 bytes, not UTF-8
    assert sum(p.stat().st_size for p in EXAMPLES.iterdir()) < 200_000


def test_csv_becomes_a_markdown_table(loader, tmp_path):
    path = tmp_path / "parts.csv"
    path.write_text("sku;name\nSKU-1;wheel | left\nSKU-2\n", encoding="utf-8")

    text = loader.load(path)["text_content"]

    assert text.splitlines() == ["| sku | name |", "| --- | --- |", "| SKU-1 | wheel \\| left |", "| SKU-2 |  |"]


def test_a_csv_exported_with_a_title_row_keeps_its_real_header_and_titles_its_table(loader, tmp_path):
    # A sheet saved as CSV keeps its title row (one cell, commas to the last column) and a note over the header;
    # read as the header, the title left the price column nameless and the real header sat among the data.
    path = tmp_path / "boat-tours.csv"
    path.write_text("Lake boat tours 2026,,,\nChildren under 5 ride free,,,\n,,,\ntour,hours,price,\n"
                    "Sunset,2,LKR 4000,\nDawn,3,LKR 5000,\n", encoding="utf-8")

    text = loader.load(path)["text_content"]

    assert text.splitlines() == ["### Lake boat tours 2026", "", "Children under 5 ride free", "",
                                 "| tour | hours | price |", "| --- | --- | --- |", "| Sunset | 2 | LKR 4000 |",
                                 "| Dawn | 3 | LKR 5000 |"]


def test_text_files_keep_their_raw_markdown(loader):
    text = loader.load(CORPUS / "kiln-handbook.md")["text_content"]

    assert "```bash\n# heat slowly" in text


# --------------------------------------------------------------------------- encodings

SAMPLES = [
    ("Le café coûte 3 € — très «bon».", "utf-8"),
    ("Le café coûte 3 € — très «bon».", "utf-8-sig"),
    ("Größe und Qualität, naïve Glasur.", "utf-16"),
    ("Größe und Qualität, naïve Glasur.", "utf-16-le"),
    ("Größe und Qualität, naïve Glasur.", "utf-16-be"),
    ("Größe und Qualität, naïve Glasur.", "utf-32"),
    ("Der Preis beträgt 5 € pro Stück, “ungefähr”.", "cp1252"),
    ("Grüße aus Köln, schöne Straße. Ça va très bien.", "latin-1"),
    ("können äöüß", "latin-1"),
    ("倉庫ロボットの説明書です。髙橋さんが書きました。", "cp932"),
    ("名前,年齢\n佐藤,30\n", "shift_jis"),
]


@pytest.mark.parametrize(("text", "encoding"), SAMPLES, ids=[f"{e}-{i}" for i, (_, e) in enumerate(SAMPLES)])
def test_decode_bytes_round_trips(text, encoding):
    assert decode_bytes(text.encode(encoding)) == text


@pytest.mark.parametrize(("text", "encoding"), SAMPLES, ids=[f"{e}-{i}" for i, (_, e) in enumerate(SAMPLES)])
def test_text_files_in_any_encoding_load_as_the_same_text(loader, tmp_path, text, encoding):
    path = tmp_path / "note.txt"
    path.write_bytes(text.encode(encoding))

    assert loader.load(path)["text_content"] == text


def test_utf16_file_with_bom_from_the_test_corpus(loader):
    assert "Größe und Qualität" in loader.load(CORPUS / "glasuren-utf16.txt")["text_content"]


def test_crlf_line_endings_become_newlines(loader, tmp_path):
    path = tmp_path / "dos.txt"
    path.write_bytes(b"one\r\ntwo\r\n")

    assert loader.load(path)["text_content"] == "one\ntwo\n"


def test_large_single_line_text_is_not_misread_as_ascii(loader, tmp_path):
    # Regression: markitdown guesses 'ascii' on a big single line and crashes on the first accent.
    path = tmp_path / "one-line.txt"
    path.write_text("plain words " * 20_000 + "café", encoding="utf-8")

    assert loader.load(path)["text_content"].endswith("café")


def test_looks_binary_tells_text_from_data():
    assert looks_binary(bytes(range(256)) * 4)
    assert looks_binary(b"\x00\x01\x02\x03PK\x00\x00" * 50)
    assert not looks_binary("Hello, world.\n".encode("utf-16-le"))
    assert not looks_binary("Café au lait\tnoir\r\n".encode("cp1252"))
    assert not looks_binary(b"")


# --------------------------------------------------------------------------- bad files


def test_corrupt_pdf_fails_with_one_actionable_line(loader):
    result = loader.load(CORPUS / "broken.pdf")

    _assert_one_line_failure(result, "broken.pdf", "not a readable PDF", "re-export or repair the file")
    assert result["file_type"] == "pdf"


def test_encrypted_pdf_asks_to_decrypt_it(loader, tmp_path):
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.append(PdfReader(CORPUS / "tiny.pdf"))
    writer.encrypt("secret", algorithm="RC4-128")
    path = tmp_path / "secret.pdf"
    writer.write(path)

    _assert_one_line_failure(loader.load(path), "secret.pdf: encrypted PDF — decrypt it first")


def test_pdf_without_text_layer_names_how_to_install_an_ocr_engine_when_ocr_is_off(tmp_path):
    from pypdf import PdfWriter

    from ragwire.loaders.ocr import OcrSettings

    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    path = tmp_path / "scan.pdf"
    writer.write(path)

    result = MarkItDownLoader(ocr=OcrSettings.choose("off")).load(path)
    _assert_one_line_failure(result, "scan.pdf: no extractable text", "apt-get install tesseract-ocr", "ragwire[ocr]")


@pytest.mark.parametrize(("content", "fragment"), [(b"", "empty file"), (b" \n\t \r\n ", "no text could be extracted")])
def test_empty_or_whitespace_files_fail(loader, tmp_path, content, fragment):
    path = tmp_path / "blank.md"
    path.write_bytes(content)

    _assert_one_line_failure(loader.load(path), "blank.md", fragment)


def test_missing_file_fails_with_file_not_found(loader, tmp_path):
    _assert_one_line_failure(loader.load(tmp_path / "nowhere.pdf"), "file not found")


def test_unsupported_extension_lists_the_supported_ones(loader, tmp_path):
    path = tmp_path / "movie.gif"
    path.write_bytes(b"GIF89a")

    result = loader.load(path)

    _assert_one_line_failure(result, "movie.gif", "unsupported file type '.gif'", ".pdf", ".docx", ".md", ".png")
    assert result["file_type"] == "gif"


def test_office_file_that_is_not_a_zip_fails(loader, tmp_path):
    path = tmp_path / "notes.docx"
    path.write_text("just text, renamed", encoding="utf-8")

    _assert_one_line_failure(loader.load(path), "notes.docx: not a valid .docx file")


def test_file_over_the_size_limit_fails(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("x" * 5000, encoding="utf-8")

    _assert_one_line_failure(MarkItDownLoader(max_file_size_mb=0.001).load(path), "over the", "max_file_size_mb")


def test_max_file_size_must_be_positive():
    with pytest.raises(ValueError, match="max_file_size_mb must be positive"):
        MarkItDownLoader(max_file_size_mb=0)


def test_convert_raises_loader_error_instead_of_returning_a_dict(loader):
    with pytest.raises(LoaderError, match=r"broken\.pdf"):
        loader.convert(CORPUS / "broken.pdf")


def test_load_batch_keeps_input_order_including_failures(loader):
    paths = [CORPUS / "tiny.pdf", CORPUS / "broken.pdf", EXAMPLES / "troubleshooting.txt", CORPUS / "field-notes.txt"]

    results = loader.load_batch([str(p) for p in paths])

    assert [r["file_name"] for r in results] == [p.name for p in paths]
    assert [r["success"] for r in results] == [True, False, True, True]


def test_load_directory_returns_sorted_results_with_failures(loader):
    results = loader.load_directory(CORPUS)

    assert [r["file_name"] for r in results] == sorted(p.name for p in CORPUS.iterdir())
    assert {r["file_name"] for r in results if not r["success"]} == {"broken.pdf"}
    assert "ZX-9981-Q" in next(r for r in results if r["file_name"] == "field-notes.txt")["text_content"]


def test_load_directory_filters_by_extension(loader):
    results = loader.load_directory(EXAMPLES, extensions=["pdf", ".DOCX"])

    assert [r["file_name"] for r in results] == ["release-notes.docx", "warranty-policy.pdf"]


# --------------------------------------------------------------------------- PageLoader


def test_page_loader_gives_one_entry_per_pdf_page(page_loader):
    result = page_loader.load(EXAMPLES / "warranty-policy.pdf")

    assert result["success"] is True
    assert [p["page_number"] for p in result["pages"]] == [1, 2]
    assert [p["page_label"] for p in result["pages"]] == [None, None]
    assert "24 months" in result["pages"][0]["text"]
    assert "30 days" in result["pages"][1]["text"]


def test_page_loader_uses_printed_page_labels_when_the_pdf_defines_them(page_loader, tmp_path):
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.append(PdfReader(CORPUS / "tiny.pdf"))
    writer.set_page_label(0, 1, style="/r")
    path = tmp_path / "labelled.pdf"
    writer.write(path)

    assert [p["page_label"] for p in page_loader.load(path)["pages"]] == ["i", "ii"]


def test_page_loader_labels_slides_with_their_titles(page_loader):
    pages = page_loader.load(EXAMPLES / "onboarding.pptx")["pages"]

    assert len(pages) == 5
    assert pages[1] == {
        "page_number": 2,
        "page_label": "Meet the Aurora AR-7",
        "text": pages[1]["text"],
    }
    assert "Runs a 10-hour shift on one charge" in pages[1]["text"]


@pytest.mark.parametrize("name", ["user-guide.md", "troubleshooting.txt", "faq.html", "release-notes.docx"])
def test_page_loader_has_no_pages_for_formats_without_them(page_loader, name):
    result = page_loader.load(EXAMPLES / name)

    assert result["success"] is True
    assert result["pages"] is None


def test_page_loader_failure_has_pages_none(page_loader):
    result = page_loader.load(CORPUS / "broken.pdf")

    _assert_one_line_failure(result, "not a readable PDF")
    assert result["pages"] is None


def test_page_loader_keeps_raw_text_for_markdown(page_loader, loader):
    path = CORPUS / "kiln-handbook.md"
    assert page_loader.load(path)["text_content"] == loader.load(path)["text_content"]


# --------------------------------------------------------------------------- walking


def _touch(path: Path, content: bytes = b"some text\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


@pytest.fixture()
def tree(tmp_path):
    root = tmp_path / "root"
    _touch(root / "b.md")
    _touch(root / "a.txt")
    _touch(root / "image.png", b"\x89PNG\x00\x00")
    _touch(root / "sub" / "c.pdf", b"%PDF-1.4")
    _touch(root / "sub" / "deeper" / "d.docx", b"PK")
    _touch(root / ".hidden.md")
    _touch(root / ".git" / "config.txt")
    _touch(tmp_path / "outside" / "secret.txt", b"do not index")
    return root


def _relative(paths, root):
    return [p.relative_to(root).as_posix() for p in paths]


def test_walk_lists_supported_files_sorted_and_skips_hidden(tree):
    result = walk_directory(tree, recursive=True)

    assert _relative(result.files, tree) == ["a.txt", "b.md", "sub/c.pdf", "sub/deeper/d.docx"]
    assert [(p.name, why) for p, why in result.skipped] == [(".git", "hidden"), (".hidden.md", "hidden")]


def test_walk_without_recursion_stays_at_the_top(tree):
    assert _relative(walk_directory(tree).files, tree) == ["a.txt", "b.md"]


def test_walk_includes_hidden_entries_when_asked(tree):
    files = _relative(walk_directory(tree, recursive=True, include_hidden=True).files, tree)

    assert ".hidden.md" in files and ".git/config.txt" in files


def test_walk_filters_extensions(tree):
    assert _relative(walk_directory(tree, recursive=True, extensions=["pdf"]).files, tree) == ["sub/c.pdf"]


def test_walk_rejects_unknown_extensions(tree):
    with pytest.raises(ValueError, match=r"'\.exe' is not supported"):
        walk_directory(tree, extensions=[".exe"])


@pytest.mark.parametrize("follow", [False, True])
def test_walk_never_follows_a_symlink_out_of_the_root(tree, follow):
    (tree / "leak.txt").symlink_to(tree.parent / "outside" / "secret.txt")
    (tree / "leakdir").symlink_to(tree.parent / "outside", target_is_directory=True)

    result = walk_directory(tree, recursive=True, follow_symlinks=follow)

    reasons = {p.name: why for p, why in result.skipped}
    expected = "symlink points outside the root" if follow else "symlink not followed"
    assert reasons["leak.txt"] == expected
    assert reasons["leakdir"] == expected
    assert all("outside" not in str(p.resolve()) for p in result.files)


def test_walk_follows_symlinks_inside_the_root_and_survives_cycles(tree):
    (tree / "sub" / "loop").symlink_to(tree, target_is_directory=True)
    (tree / "alias.md").symlink_to(tree / "b.md")

    result = walk_directory(tree, recursive=True, follow_symlinks=True)

    assert _relative(result.files, tree) == ["a.txt", "b.md", "sub/c.pdf", "sub/deeper/d.docx"]
    reasons = {p.name: why for p, why in result.skipped}
    assert reasons["alias.md"] == f"same file as {tree / 'b.md'}"
    assert reasons["loop"].startswith("folder already visited")


def test_walk_skips_files_over_the_size_limit(tree):
    _touch(tree / "huge.md", b"x" * 3 * 2**20)

    result = walk_directory(tree, max_file_bytes=2 * 2**20)

    assert ("huge.md", "larger than 2.0 MB limit") in [(p.name, why) for p, why in result.skipped]


def test_walk_skips_binary_data_in_text_files_only(tree):
    _touch(tree / "dump.txt", os.urandom(2048) + b"\x00" * 64)
    _touch(tree / "scan.pdf", os.urandom(2048) + b"\x00" * 64)

    result = walk_directory(tree)

    assert ("dump.txt", "binary content in a text file") in [(p.name, why) for p, why in result.skipped]
    assert "scan.pdf" in [p.name for p in result.files]


def test_walk_keeps_utf16_text_files(tree):
    _touch(tree / "wide.txt", "wide text".encode("utf-16-le"))

    assert "wide.txt" in [p.name for p in walk_directory(tree).files]


def test_walk_stops_at_max_files(tree):
    result = walk_directory(tree, recursive=True, max_files=2)

    assert _relative(result.files, tree) == ["a.txt", "b.md"]
    assert any("max_files limit of 2" in why for _, why in result.skipped)


def test_walk_of_a_file_returns_that_file(tree):
    assert walk_directory(tree / "image.png").files == [tree / "image.png"]


def test_walk_of_a_missing_root_raises(tmp_path):
    with pytest.raises(LoaderError, match="no such file or folder"):
        walk_directory(tmp_path / "missing")


def test_supported_extensions_cover_the_documented_formats():
    assert {".pdf", ".docx", ".pptx", ".xlsx", ".txt", ".md", ".csv", ".html", ".htm"} <= set(SUPPORTED_EXTENSIONS)


# --------------------------------------------------------------------------- import cost


def test_importing_loaders_does_not_import_heavy_converters():
    code = (
        "import sys, ragwire.loaders\n"
        "heavy = [m for m in ('markitdown', 'pypdf', 'pptx', 'docx', 'magika') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_load_directory_reports_refused_files_but_not_hidden_ones(tmp_path):
    _touch(tmp_path / "good.md", b"# Fine\n\ntext\n")
    _touch(tmp_path / "dump.txt", os.urandom(1024) + b"\x00" * 64)
    _touch(tmp_path / ".draft.md", b"hidden draft\n")

    results = MarkItDownLoader().load_directory(tmp_path)

    assert [(r["file_name"], r["success"]) for r in results] == [("dump.txt", False), ("good.md", True)]
    assert results[0]["error"] == (
        "dump.txt: skipped, binary content in a text file — the file is not text; check what it really is"
    )
