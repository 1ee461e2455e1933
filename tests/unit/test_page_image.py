"""A stored PDF page drawn with the cited passage boxed: by the text layer, or by the OCR engine's word boxes on a scan."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("PIL")

from ragwire.errors import RagwireError  # noqa: E402
from ragwire.loaders.ocr import OcrText, OcrWord  # noqa: E402
from ragwire.web.pages import passage_sentences, render_page  # noqa: E402
from tests.pdfs import SCAN_DPI, write_pdf, write_scan  # noqa: E402

FIRST = "The pallet scales on dock four are checked every May by the site engineer."
SECOND = "Forklift batteries are swapped at the start of each night shift."


@dataclass
class FakeEngine:
    """Reads every page as the words given, each with its box (pixels at the dpi it is called with)."""

    words: list[tuple[str, tuple[int, int, int, int]]]
    name: str = "fake"
    calls: int = 0

    def recognize(self, image) -> OcrText:
        self.calls += 1
        return OcrText(" ".join(w for w, _ in self.words), 0.9, tuple(OcrWord(w, 0.9, box) for w, box in self.words))


def line(text: str, top: int) -> list[tuple[str, tuple[int, int, int, int]]]:
    """The words of ``text`` side by side on one row at ``top``, 20 px a character."""
    out, left = [], 30
    for word in text.split():
        out.append((word, (left, top, 20 * len(word), 30)))
        left += 20 * (len(word) + 1)
    return out


def test_sentences_lose_their_citation_markers_and_short_fragments_are_dropped():
    assert passage_sentences("The warranty lasts 24 months [1]. Yes. Parts are covered [2, 3]!") == [
        "The warranty lasts 24 months.", "Parts are covered!"]


def test_a_passage_in_the_text_layer_is_boxed_on_the_page_it_is_on(tmp_path):
    pdf = write_pdf(tmp_path / "two.pdf", [FIRST, SECOND])
    image = render_page(pdf, 1, SECOND + " [1]")
    # the cited page is a hint: the sentence is on page 2, so page 2 is drawn with it
    assert image.found and image.page == 2 and image.pages == 2 and image.png.startswith(b"\x89PNG")
    # the text stream starts at x=40, y=800 pt (Helvetica 9 pt) on an A4-high page: near the top left
    left, top, right, bottom = image.boxes[0]
    assert 40 * 1.5 - 2 <= left < 70 and top < 70 and right > left + 100 and bottom - top < 20
    missing = render_page(pdf, 1, "Nothing like this sentence is printed anywhere in the file.")
    assert not missing.found and missing.boxes == [] and missing.page == 1
    with pytest.raises(RagwireError, match="has 2 page"):
        render_page(pdf, 3, FIRST)


def test_a_scanned_page_is_boxed_with_the_ocr_engines_word_boxes_of_the_quoted_sentence_only(tmp_path):
    scan = write_scan(tmp_path / "scan.pdf", ["(a scanned page)"])
    engine = FakeEngine(line(FIRST, 100) + line(SECOND, 200))
    image = render_page(scan, 1, f"{SECOND} [2]", ocr=engine, ocr_dpi=SCAN_DPI)
    assert image.found and image.page == 1
    factor = 1.5 / (SCAN_DPI / 72)  # engine pixels -> drawn pixels
    expected = [(x * factor, y * factor, (x + w) * factor, (y + h) * factor) for _, (x, y, w, h) in line(SECOND, 200)]
    # the second row's words, none of the first row's
    assert [pytest.approx(box) for box in expected] == image.boxes
    render_page(scan, 1, SECOND, ocr=engine, ocr_dpi=SCAN_DPI)
    assert engine.calls == 1  # read once per file version


def test_a_scan_is_never_boxed_without_an_engine_or_where_the_sentence_is_not_read(tmp_path):
    scan = write_scan(tmp_path / "scan.pdf", ["(page 1)", "(page 2)", "(page 3)", "(page 4)"])
    assert not render_page(scan, 1, SECOND).found
    engine = FakeEngine(line("Forklift batteries are swapped at the start of each day.", 100))
    image = render_page(scan, 1, SECOND, ocr=engine, ocr_dpi=SCAN_DPI)
    assert not image.found and image.boxes == []
    # only the cited page and its neighbours are read: OCR of a whole scan would take minutes
    assert engine.calls == 2
