"""Scanned pages → text: which PDF pages need OCR, rendering them, image files as sources, the chunk fields.

Runs in the conversion child (see :mod:`ragwire.loaders.guard`), which the parent gives
``loader.ocr_page_timeout_s`` more per page to OCR, so a 300-page scan is neither
killed by a limit meant for one page nor able to hang a run.  Image sizes are read
from the file header and refused over :data:`MAX_PIXELS` before anything is decoded.
"""

from __future__ import annotations

import io
import logging
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ragwire.errors import LoaderError
from ragwire.loaders import base, formats, guard, legible, ocr, pageimage
from ragwire.loaders.base import Page
from ragwire.loaders.formats import IMAGE_EXTENSIONS

if TYPE_CHECKING:
    from PIL.Image import Image
    from pypdfium2 import PdfDocument

    from ragwire.loaders.ocr import OcrEngine, OcrSettings

logger = logging.getLogger(__name__)

# A page image larger than this is refused (an image file) or rendered at a lower dpi (a PDF
# page): an A4 page at 600 dpi is 35 Mpx; a few-KB decompression bomb claims billions.
MAX_PIXELS = 100_000_000
# A text layer with fewer words than this is negligible ("Scanned with CamScanner", a page
# number): the page is OCR'd, and the OCR text kept when it is longer.
MIN_LAYER_WORDS = 5
# Log OCR progress every this many pages of a long scan.
_PROGRESS_EVERY = 10
_WORD = re.compile(r"\w{2,}")


def no_text(name: str, ext: str, settings: OcrSettings) -> LoaderError:
    """The one-line failure of a file in which nothing, OCR included, found text."""
    if ext != ".pdf" and ext not in IMAGE_EXTENSIONS:
        return LoaderError(f"{name}: {base.NO_TEXT}")
    if settings.engine is None:
        return LoaderError(f"{name}: {base.NO_TEXT_PDF} — {settings.missing_hint()}")
    return LoaderError(
        f"{name}: no extractable text, and OCR ({settings.engine}) found none — the pages look blank;"
        " if they are not, scan them at a higher resolution"
    )


def needs_ocr(text: str) -> bool:
    """Whether a page's text layer is empty or negligible."""
    return len(_WORD.findall(text)) < MIN_LAYER_WORDS


def ocr_shaped(pages: Sequence[Mapping[str, Any]] | None, file_type: str) -> bool:
    """Whether OCR settings shape this document: a PDF page was OCR'd or needed it, or it is an image.

    A slide deck's short title slide is not a scan: only PDFs and images count.
    """
    if f".{file_type}" in IMAGE_EXTENSIONS:
        return True
    if file_type != "pdf" or not pages:
        return False
    return any(page.get("ocr") or needs_ocr(str(page.get("text") or "")) for page in pages)


def ocr_pdf_pages(data: bytes, name: str, pages: list[Page], settings: OcrSettings) -> list[Page]:
    """``pages`` with every page whose text layer is negligible replaced by its OCR'd text.

    Raises:
        LoaderError: pages need OCR and none is available, or the PDF cannot be rendered.
    """
    wanted = [i for i, page in enumerate(pages) if needs_ocr(page["text"])]
    if not wanted or settings.engine is None:
        return pages
    _check_budget(name, len(wanted), settings)
    engine = ocr.get_engine(settings)
    document = _open_pdfium(data, name)
    try:
        out = list(pages)
        for done, image in _announce(name, len(wanted), settings, (_render(document, i, settings.dpi) for i in wanted)):
            index = wanted[done]
            out[index] = _read_page(engine, image, name, pages[index], layer=pages[index]["text"])
        return out
    finally:
        document.close()


def image_pages(data: bytes, name: str, settings: OcrSettings) -> list[Page]:
    """The OCR'd pages of an image file (a multi-page TIFF gives one page per frame).

    Raises:
        LoaderError: no engine, an image over the pixel limit, or an unreadable image.
    """
    if settings.engine is None:
        raise LoaderError(f"{name}: an image needs OCR to be searched — {settings.missing_hint()}")
    image = open_image(data, name)
    frames = getattr(image, "n_frames", 1)
    _check_budget(name, frames, settings)
    engine = ocr.get_engine(settings)
    blank: Page = {"page_number": 0, "page_label": None, "text": ""}
    out = []
    for done, frame in _announce(name, frames, settings, _frames(image, name)):
        out.append(_read_page(engine, frame, name, {**blank, "page_number": done + 1}, layer=""))
    return out


def open_image(data: bytes, name: str) -> Image:
    """Open an image lazily, refusing one over :data:`MAX_PIXELS` (any frame) before it is decoded.

    Raises:
        LoaderError: not a readable image, or too many pixels.
    """
    from PIL import Image as PILImage

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PILImage.DecompressionBombWarning)  # our limit decides
            image = PILImage.open(io.BytesIO(data))  # reads the header only
        for _ in _each_frame(image):
            _check_pixels(image.size[0] * image.size[1], name)
        image.seek(0)
    except LoaderError:
        raise
    except PILImage.DecompressionBombError as exc:  # Pillow's own limit, met in the header
        claimed = re.search(r"\((\d+) pixels\)", str(exc))
        _check_pixels(int(claimed.group(1)) if claimed else MAX_PIXELS + 1, name)
        raise
    except Exception as exc:  # noqa: BLE001 — Pillow signals a bad image with many types
        kind = formats.sniff(data)
        if kind is not None and kind not in formats.IMAGE_KINDS:
            ext = name.rpartition(".")[2].lower()
            raise LoaderError(
                f"{name}: this .{ext} is {kind}, not an image — rename it to {formats.fitting_extension(kind)}"
            ) from exc
        what = f"a damaged {kind.removeprefix('a ')}" if kind else "not a readable image"
        raise LoaderError(f"{name}: {what} ({base.reason(exc)}) — re-save it as PNG or JPEG") from exc
    return image


def _check_budget(name: str, pages: int, settings: OcrSettings) -> None:
    """Refuse, before any page is read, a file with more pages to OCR than one file may have."""
    if pages > settings.max_pages:
        raise LoaderError(
            f"{name}: {pages} pages need OCR, over the budget of {settings.max_pages} (loader.ocr_max_pages)"
            " — raise loader.ocr_max_pages or split the file"
        )


def _each_frame(image: Image) -> Iterator[int]:
    for index in range(getattr(image, "n_frames", 1)):
        if index:
            image.seek(index)  # reads that frame's header, not its pixels
        yield index


def _check_pixels(pixels: int, name: str) -> None:
    if pixels > MAX_PIXELS:
        raise LoaderError(
            f"{name}: image of {pixels / 1e6:,.0f} Mpx is over the {MAX_PIXELS // 1_000_000} Mpx limit"
            " (a decompression bomb, or a scan at a needlessly high resolution) — downscale it first"
        )


def _frames(image: Image, name: str) -> Iterator[Image]:
    for index in _each_frame(image):
        try:
            frame = image.convert("RGB") if image.mode not in ("1", "L", "RGB") else image.copy()
        except Exception as exc:  # noqa: BLE001 — a truncated or corrupt image body
            raise LoaderError(
                f"{name}: page {index + 1} of the image cannot be decoded ({base.reason(exc)}) — re-save it"
            ) from exc
        yield frame


def _open_pdfium(data: bytes, name: str) -> PdfDocument:
    try:
        import pypdfium2
    except ImportError as exc:
        raise LoaderError(f"{name}: rendering scanned pages needs pypdfium2 — {ocr.RAPIDOCR_PIP}") from exc
    try:
        return pypdfium2.PdfDocument(data)
    except Exception as exc:  # noqa: BLE001 — pdfium reports damage as PdfiumError
        raise LoaderError(f"{name}: scanned pages cannot be rendered ({base.reason(exc)}) — re-export the PDF") from exc


def _render(document: PdfDocument, index: int, dpi: int) -> Image:
    page = document[index]
    try:
        width, height = page.get_size()  # in points (1/72 inch)
        scale = dpi / 72
        pixels = width * height * scale * scale
        if pixels > MAX_PIXELS:  # a poster-sized page: render it at the dpi that fits
            scale *= (MAX_PIXELS / pixels) ** 0.5
        return page.render(scale=scale, grayscale=True).to_pil()
    finally:
        page.close()


def _announce(name: str, total: int, settings: OcrSettings, images: Iterator[Image]) -> Iterator[tuple[int, Image]]:
    """Give the conversion ``total`` more page allowances, then yield the images, logging progress."""
    # Each page gets its allowance, but the file no more than its OCR budget: a 200-page blank
    # scan must not hold a worker for 200 page allowances.
    guard.extend_deadline(min(total * settings.page_timeout_s, settings.file_timeout_s))
    logger.info("%s: OCR of %d page%s with %s", name, total, "" if total == 1 else "s", settings.engine)
    for done, image in enumerate(images):
        if done and done % _PROGRESS_EVERY == 0:
            guard.report_progress(f"{name}: OCR page {done + 1} of {total}")
        yield done, image


def _read_page(engine: OcrEngine, image: Image, name: str, page: Page, *, layer: str) -> Page:
    if pageimage.is_blank(image):
        return page  # no ink: no engine run
    try:
        reading = legible.read_page(engine, image)
    except LoaderError as exc:
        raise LoaderError(f"{name}: page {page['page_number']}: {exc}") from exc
    found = reading.found
    text = base.tidy_text(found.text)
    if len(_WORD.findall(text)) <= len(_WORD.findall(layer)):
        return page  # the text layer says as much: keep it
    read: Page = {**page, "text": text, "ocr": True, "ocr_engine": engine.name}
    if reading.rotation:
        read["ocr_rotation"] = reading.rotation
    if found.confidence is not None:
        read["ocr_confidence"] = round(found.confidence, 3)
        if found.confidence < legible.LOW_CONFIDENCE:
            logger.warning("%s: page %d was read with low OCR confidence (%.2f) — check its text, or rescan it",
                           name, page["page_number"], found.confidence)
    return read


def doubtful_pages(pages: Sequence[Mapping[str, Any]] | None) -> list[tuple[int, float]]:
    """The OCR'd pages read under :data:`~ragwire.loaders.legible.LOW_CONFIDENCE`: ``(page number, confidence)``."""
    return [(int(page["page_number"]), float(page["ocr_confidence"])) for page in pages or ()
            if page.get("ocr") and page.get("ocr_confidence") is not None
            and page["ocr_confidence"] < legible.LOW_CONFIDENCE]


def ocr_chunk_fields(pages: Sequence[Mapping[str, Any]] | None, chunk: Mapping[str, Any]) -> dict[str, Any]:
    """``ocr``, ``ocr_engine`` and ``ocr_confidence`` for a chunk lying on OCR'd pages, else ``{}``.

    A chunk without page numbers (a single-page image) is OCR'd when every page was.
    """
    read = [page for page in pages or () if page.get("ocr")]
    if not read:
        return {}
    first = chunk.get("page_number")
    if first is None:
        if len(read) != len(pages or ()):
            return {}
        on = read
    else:
        last = chunk.get("page_end") or first
        on = [page for page in read if first <= int(page["page_number"]) <= last]
    if not on:
        return {}
    fields: dict[str, Any] = {"ocr": True, "ocr_engine": on[0]["ocr_engine"]}
    turned = [page["ocr_rotation"] for page in on if page.get("ocr_rotation")]
    if turned:
        fields["ocr_rotation"] = turned[0]
    scores = [page["ocr_confidence"] for page in on if page.get("ocr_confidence") is not None]
    if scores:
        fields["ocr_confidence"] = round(sum(scores) / len(scores), 3)
    return fields
