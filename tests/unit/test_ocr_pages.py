"""Which documents OCR shapes, what OCR'd chunks say, and Tesseract's TSV read into lines (pure logic)."""

from __future__ import annotations

from ragwire.loaders.ocr import OcrSettings, language_package, parse_tsv
from ragwire.loaders.scan import needs_ocr, ocr_chunk_fields, ocr_shaped

TEXT = {"page_number": 1, "page_label": None, "text": "A page with a real text layer of many words."}
SCANNED = {"page_number": 2, "page_label": None, "text": "walrus budget 4711 appendix for the board",
           "ocr": True, "ocr_engine": "tesseract", "ocr_confidence": 0.9}
EMPTY = {"page_number": 2, "page_label": None, "text": ""}


def test_a_stamp_or_page_number_is_a_negligible_text_layer_but_a_sentence_is_not() -> None:
    assert needs_ocr("") and needs_ocr("Scanned with CamScanner") and needs_ocr("Page 2 of 3")
    assert not needs_ocr("The quarterly report covers revenue and staffing.")


def test_only_pdfs_with_a_page_lacking_text_and_images_are_shaped_by_ocr_settings() -> None:
    assert ocr_shaped([TEXT, SCANNED], "pdf") and ocr_shaped([TEXT, EMPTY], "pdf")
    assert not ocr_shaped([TEXT], "pdf")
    assert ocr_shaped(None, "png")
    assert not ocr_shaped([TEXT, EMPTY], "pptx")  # a short title slide is not a scan
    assert not ocr_shaped(None, "docx")


def test_only_chunks_on_ocrd_pages_carry_the_ocr_fields() -> None:
    pages = [TEXT, SCANNED]
    assert ocr_chunk_fields(pages, {"page_number": 1}) == {}
    assert ocr_chunk_fields(pages, {"page_number": 1, "page_end": 2}) == {
        "ocr": True, "ocr_engine": "tesseract", "ocr_confidence": 0.9}
    assert ocr_chunk_fields(pages, {}) == {}  # no page range, and not every page was OCR'd
    assert ocr_chunk_fields([SCANNED], {})["ocr"] is True


def test_a_chunk_on_a_page_turned_upright_says_by_how_much() -> None:
    turned = {**SCANNED, "page_number": 3, "ocr_rotation": 270}
    assert ocr_chunk_fields([TEXT, SCANNED, turned], {"page_number": 3})["ocr_rotation"] == 270
    assert "ocr_rotation" not in ocr_chunk_fields([TEXT, SCANNED, turned], {"page_number": 2})


def test_tesseract_tsv_becomes_lines_and_paragraphs_with_mean_confidence() -> None:
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [
        "5\t1\t1\t1\t1\t1\t10\t10\t50\t20\t90\tInvoice",
        "5\t1\t1\t1\t1\t2\t70\t10\t40\t20\t80\t4711",
        "4\t1\t1\t1\t2\t0\t10\t40\t100\t20\t-1\t",
        "5\t1\t1\t1\t2\t1\t10\t40\t60\t20\t70\tZephyr",
        "5\t1\t2\t1\t1\t1\t10\t90\t60\t20\t60\tPaid",
    ]
    read = parse_tsv("\n".join([header, *rows]))

    assert read.text == "Invoice 4711\nZephyr\n\nPaid"
    assert round(read.confidence or 0, 3) == 0.75
    assert read.words[0].box == (10, 10, 50, 20)


def test_the_fingerprint_of_ocr_settings_ignores_languages_rapidocr_does_not_read() -> None:
    assert OcrSettings("rapidocr", ("eng",)).identity() == OcrSettings("rapidocr", ("deu",)).identity()
    assert OcrSettings("tesseract", ("eng",)).identity() != OcrSettings("tesseract", ("deu",)).identity()
    assert OcrSettings(None, wanted="off").identity() == OcrSettings(None, wanted="auto").identity()
    assert language_package("chi_sim") == "tesseract-ocr-chi-sim"


class _UnsureEngine:
    """An engine that reads every image as the same few words, at 40 % confidence."""

    name = "unsure"

    def __init__(self) -> None:
        self.runs = 0

    def recognize(self, image):
        from ragwire.loaders.ocr import OcrText, OcrWord

        self.runs += 1
        words = tuple(OcrWord(w, 0.4, (0, 0, 10, 10)) for w in ("blurred", "invoice", "words"))
        return OcrText("blurred invoice words", 0.4, words)


def test_a_page_read_with_low_confidence_after_every_retry_is_kept_and_warned_about(caplog) -> None:
    from PIL import Image, ImageDraw

    from ragwire.loaders import scan

    image = Image.new("L", (400, 200), 255)
    ImageDraw.Draw(image).rectangle((40, 80, 360, 110), fill=0)
    engine = _UnsureEngine()

    page = scan._read_page(engine, image, "smudged.png", {"page_number": 3, "page_label": None, "text": ""}, layer="")

    assert page["text"] == "blurred invoice words" and page["ocr_confidence"] == 0.4
    assert engine.runs == 5  # the read, three quarter turns (no orientation detection), the photo cleanup
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == ["smudged.png: page 3 was read with low OCR confidence (0.40) — check its text, or rescan it"]
