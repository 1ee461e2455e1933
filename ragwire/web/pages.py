"""A stored PDF page as a PNG, with the cited passage's text boxes drawn over it.

The passage is located by its text, the cited page first and then the others: the
page number a chunk carries is a hint, not a position (a chunk may straddle pages, a
loader may count differently).  Text is compared with case, whitespace and line-break
hyphens folded away; a sentence is highlighted only where it is found in full, and a
passage with no sentence found is reported as not found rather than boxed somewhere
near.  A scanned page (no text layer) is searched in the words the OCR engine reads
from it and boxed with the engine's word boxes.
"""

from __future__ import annotations

import io
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragwire.answer.citations import without_markers
from ragwire.errors import RagwireError
from ragwire.loaders.scan import needs_ocr

if TYPE_CHECKING:
    from pypdfium2 import PdfPage

    from ragwire.loaders.ocr import OcrEngine, OcrWord

INSTALL_HINT = 'Page images need pypdfium2 and Pillow. Install them with: pip install "ragwire[server]"'
# Sentences shorter than this match too easily somewhere else on a page.
_MIN_SENTENCE = 12
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")


@dataclass
class PageImage:
    """The PNG of one page and what was found on it."""

    png: bytes
    page: int  # 1-based, the page drawn
    pages: int
    found: bool
    boxes: list[tuple[float, float, float, float]] = field(default_factory=list)  # pixels: left, top, right, bottom


def _fold(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased with runs of whitespace as one space and ``-\\n`` joins undone; and for
    each folded character the index of the original character it came from."""
    out: list[str] = []
    where: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "-" and i + 1 < n and text[i + 1] in "\r\n":
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            i = j  # "work-\nmanship" reads "workmanship"
            continue
        if ch.isspace() or ch in "\x02\ufffe":
            if out and out[-1] != " ":
                out.append(" ")
                where.append(i)
            i += 1
            continue
        out.append(ch.lower())
        where.append(i)
        i += 1
    return "".join(out), where


def passage_sentences(passage: str) -> list[str]:
    """The sentences of ``passage`` long enough to locate, citation markers removed."""
    text = without_markers(passage)
    parts = [p.strip() for p in _SENTENCE_END.split(" ".join(text.split()))]
    return [p for p in parts if len(p) >= _MIN_SENTENCE]


def _locate(page_text: str, sentences: list[str]) -> list[tuple[int, int]]:
    """``(first char, char count)`` on the page of each sentence found there in full."""
    folded, where = _fold(page_text)
    spans = []
    for sentence in sentences:
        needle, _ = _fold(sentence)
        needle = needle.strip()
        at = folded.find(needle) if needle else -1
        if at < 0:
            continue
        start, end = where[at], where[at + len(needle) - 1]
        spans.append((start, end - start + 1))
    return spans


Box = tuple[float, float, float, float]  # pixels of the drawn image: left, top, right, bottom


def _text_layer_boxes(pdf_page: PdfPage, sentences: list[str], scale: float) -> list[Box]:
    """Boxes of the sentences found in full in the page's text layer (pdfium's character boxes)."""
    textpage = pdf_page.get_textpage()
    spans = _locate(textpage.get_text_range(0, textpage.count_chars()), sentences)
    height = pdf_page.get_height()
    boxes: list[Box] = []
    for start, count in spans:
        for i in range(textpage.count_rects(start, count)):
            left, bottom, right, top = textpage.get_rect(i)
            boxes.append((left * scale, (height - top) * scale, right * scale, (height - bottom) * scale))
    return boxes


_OCR_CACHE: OrderedDict[tuple, tuple[OcrWord, ...]] = OrderedDict()
_OCR_CACHE_PAGES = 32
_OCR_LOCK = threading.Lock()


def _ocr_words(path: Path, index: int, pdf_page: PdfPage, ocr: OcrEngine, dpi: int) -> tuple[OcrWord, ...]:
    """The engine's words (text and box, in pixels at ``dpi``) of a page without a text layer; cached per file version."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size, index, getattr(ocr, "name", type(ocr).__name__), dpi)
    with _OCR_LOCK:
        if key in _OCR_CACHE:
            _OCR_CACHE.move_to_end(key)
            return _OCR_CACHE[key]
    words = tuple(ocr.recognize(pdf_page.render(scale=dpi / 72, grayscale=True).to_pil()).words)
    with _OCR_LOCK:
        _OCR_CACHE[key] = words
        while len(_OCR_CACHE) > _OCR_CACHE_PAGES:
            _OCR_CACHE.popitem(last=False)
    return words


def _ocr_boxes(words: tuple[OcrWord, ...], sentences: list[str], factor: float) -> list[Box]:
    """Boxes of the words that make up each sentence found in full in the OCR'd text, scaled by ``factor``."""
    starts, parts, at = [], [], 0
    for word in words:
        starts.append(at)
        parts.append(word.text)
        at += len(word.text) + 1
    boxes: list[Box] = []
    for start, count in _locate(" ".join(parts), sentences):
        end = start + count
        for word, first in zip(words, starts, strict=True):
            if first < end and first + len(word.text) > start:
                left, top, width, height = word.box
                boxes.append((left * factor, top * factor, (left + width) * factor, (top + height) * factor))
    return boxes


def render_page(path: str | Path, page: int, passage: str = "", *, scale: float = 1.5, ocr: OcrEngine | None = None,
                ocr_dpi: int = 300) -> PageImage:
    """Render ``page`` (1-based) of the PDF at ``path``, with ``passage`` highlighted if it is found.

    When the passage is not on ``page`` but on another page of the file, that page is
    drawn instead (``PageImage.page`` says which).  A page without a text layer (a scan)
    is searched in what ``ocr`` reads from it, and boxed with the engine's word boxes;
    to keep a request short only the cited page and its neighbours are OCR'd, each once
    per file version.

    Args:
        ocr: An OCR engine (``recognize(image)`` giving words with boxes), for scanned
            pages; None: a scanned page is drawn without a box.
        ocr_dpi: The resolution the engine reads pages at.

    Raises:
        RagwireError: the file is not a readable PDF, or ``page`` is out of range.
        ImportError: pypdfium2 or Pillow is missing (with the install command).
    """
    try:
        import pypdfium2 as pdfium
        from PIL import ImageDraw
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    try:
        pdf = pdfium.PdfDocument(str(path))
    except (pdfium.PdfiumError, OSError) as exc:
        raise RagwireError(f"{Path(path).name}: cannot open the PDF ({exc})") from exc
    try:
        total = len(pdf)
        if not 1 <= page <= total:
            raise RagwireError(f"{Path(path).name} has {total} page(s); page {page} does not exist")
        sentences = passage_sentences(passage)
        drawn, boxes = page, []
        for candidate in [page, *[p for p in range(1, total + 1) if p != page]] if sentences else []:
            pdf_page = pdf[candidate - 1]
            textpage = pdf_page.get_textpage()
            if not needs_ocr(textpage.get_text_range(0, textpage.count_chars())):
                boxes = _text_layer_boxes(pdf_page, sentences, scale)
            elif ocr is not None and abs(candidate - page) <= 1:
                words = _ocr_words(Path(path), candidate - 1, pdf_page, ocr, ocr_dpi)
                boxes = _ocr_boxes(words, sentences, scale / (ocr_dpi / 72))
            if boxes:
                drawn = candidate
                break
        image = pdf[drawn - 1].render(scale=scale).to_pil().convert("RGB")
        if boxes:
            overlay = ImageDraw.Draw(image, "RGBA")
            for left, top, right, bottom in boxes:
                overlay.rectangle((left - 2, top - 2, right + 2, bottom + 2), fill=(255, 214, 0, 90),
                                  outline=(230, 120, 0, 255), width=2)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=False)
        return PageImage(png=buffer.getvalue(), page=drawn, pages=total, found=bool(boxes), boxes=boxes)
    finally:
        pdf.close()
