"""PageLoader on PDFs and decks the tests build: page numbers, printed labels, slide titles,
speaker notes, dropped empty pages with numbering kept, and hard PDFs failing in one line."""

from __future__ import annotations

import pytest

from ragwire.loaders.page_loader import PageLoader, PageMapLoader
from ragwire.splitting import PageSplitter
from tests.pdfs import table_pdf_bytes, write_pdf


@pytest.fixture()
def loader() -> PageLoader:
    return PageLoader()


def _deck(path, slides):
    """slides: (title or None, body or None, notes or None); all None gives an empty slide."""
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    for title, body, notes in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[5 if title else 6])  # title only / blank
        if title:
            slide.shapes.title.text = title
        if body:
            box = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(2))
            box.text_frame.text = body
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    deck.save(path)
    return path


def test_pdf_pages_carry_numbers_and_printed_labels(loader, tmp_path):
    path = write_pdf(
        tmp_path / "report.pdf",
        ["Preface text.", "Contents list.", "Chapter one body.", "Appendix table."],
        labels=[(0, 1, "/r", None), (2, 2, "/D", None), (3, 3, "/D", "A-")],
    )

    result = loader.load(path)

    assert result["success"] is True
    assert [(p["page_number"], p["page_label"]) for p in result["pages"]] == [(1, "i"), (2, "ii"), (3, "1"), (4, "A-1")]
    assert "Chapter one body." in result["pages"][2]["text"]
    assert "Preface text." in result["text_content"] and "Appendix table." in result["text_content"]


def test_pdf_without_its_own_labels_has_none(loader, tmp_path):
    pages = loader.load(write_pdf(tmp_path / "plain.pdf", ["one", "two"]))["pages"]

    assert [(p["page_number"], p["page_label"]) for p in pages] == [(1, None), (2, None)]


def test_blank_pdf_pages_are_dropped_with_numbering_kept(loader, tmp_path):
    result = loader.load(write_pdf(tmp_path / "gaps.pdf", ["first", "", "third", ""], labels=[(0, 3, "/r", None)]))

    chunks = PageSplitter().split(result["text_content"], file_type="pdf", pages=result["pages"])

    assert [(c["text"], c["page_number"], c["page_label"], c["page_total"]) for c in chunks] == [
        ("first", 1, "i", 4),
        ("third", 3, "iii", 4),
    ]


def test_pptx_slides_have_titles_as_labels_and_notes_included(loader, tmp_path):
    path = _deck(
        tmp_path / "deck.pptx",
        [
            ("Quarterly results", "Revenue grew 12 percent.", "Mention the currency effect."),
            (None, None, None),  # an empty slide
            ("Next steps", "Hire two engineers.", None),
        ],
    )

    result = loader.load(path)
    pages = result["pages"]

    assert [(p["page_number"], p["page_label"]) for p in pages] == [(1, "Quarterly results"), (2, None), (3, "Next steps")]
    assert "Revenue grew 12 percent." in pages[0]["text"]
    assert "Mention the currency effect." in pages[0]["text"]
    assert pages[1]["text"] == ""
    chunks = PageSplitter().split(result["text_content"], file_type="pptx", pages=pages)
    assert [(c["page_number"], c["page_label"], c["page_total"]) for c in chunks] == [
        (1, "Quarterly results", 3),
        (3, "Next steps", 3),
    ]


@pytest.mark.parametrize(("name", "content"), [("notes.txt", "a<!-- pagebreak -->b"), ("guide.md", "# A\na\n# B\nb")])
def test_text_and_markdown_have_no_pages_and_keep_their_raw_text(loader, tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")

    result = loader.load(path)

    assert result["pages"] is None
    assert result["text_content"] == content


def test_a_missing_file_raises_file_not_found(loader, tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.pdf: file not found"):
        loader.load(tmp_path / "nowhere.pdf")


@pytest.mark.parametrize("cls", [PageLoader, PageMapLoader])
def test_hard_pdfs_fail_with_one_line_reasons(cls, tmp_path):
    encrypted = write_pdf(tmp_path / "locked.pdf", ["secret text"], password="s3cret")
    scanned = write_pdf(tmp_path / "scan.pdf", ["", ""])
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 9 0 R >> garbage\n%%EOF")

    errors = {path.name: cls().load(path) for path in (encrypted, scanned, broken)}

    for result in errors.values():
        assert result["success"] is False and result["pages"] is None
        assert "\n" not in result["error"]
    assert "encrypted PDF" in errors["locked.pdf"]["error"]
    assert "no extractable text" in errors["scan.pdf"]["error"]
    assert "broken.pdf:" in errors["broken.pdf"]["error"]


def test_page_map_loader_keeps_markitdown_text_and_adds_pages(tmp_path):
    path = write_pdf(tmp_path / "two.pdf", ["Alpha page words here.", "Beta page words here."], labels=[(0, 1, "/R", None)])

    result = PageMapLoader().load(path)

    assert result["success"] is True
    assert [(p["page_number"], p["page_label"]) for p in result["pages"]] == [(1, "I"), (2, "II")]
    assert "Alpha page" in result["text_content"]


def test_page_map_loader_has_no_pages_for_other_formats(tmp_path):
    path = tmp_path / "a.md"
    path.write_text("# Title\ntext", encoding="utf-8")

    assert PageMapLoader().load(path)["pages"] is None


def test_a_pdf_price_list_keeps_each_description_beside_its_amount(tmp_path):
    # markitdown found no table in it, so its text is pdfminer's: every description first, then every amount.
    path = tmp_path / "fees.pdf"
    path.write_bytes(table_pdf_bytes([("Service", "Price"), ("Nail trim", "ZAR 90.00"), ("Full groom", "ZAR 450.00")]))
    text = PageMapLoader().load(path)["text_content"]
    assert "Nail trim ZAR 90.00" in text and "Full groom ZAR 450.00" in text, text
