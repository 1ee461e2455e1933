"""PageLoader: like MarkItDownLoader, but keeps page boundaries (PDF pages, PPTX slides).

markitdown returns one flat string, so the "page" splitter strategy reads PDFs
with pypdf and slide decks with python-pptx here instead (one parse per file, in
the same time-limited child process as MarkItDownLoader's conversions).
"""

from __future__ import annotations

import io
import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ragwire.errors import LoaderError
from ragwire.loaders import base, guard, scan
from ragwire.loaders.base import Page, PageLoadResult
from ragwire.loaders.formats import IMAGE_EXTENSIONS
from ragwire.loaders.markitdown_loader import MarkItDownLoader, has_text
from ragwire.loaders.result import Loaded, LoadFailed, LoadOutcome

if TYPE_CHECKING:
    from pptx.shapes.base import BaseShape
    from pptx.slide import Slide
    from pypdf import PdfReader

T = TypeVar("T")

logger = logging.getLogger(__name__)

# A title placeholder can hold a whole paragraph; labels are metadata, so keep them short.
_MAX_LABEL = 120


class PageLoader(MarkItDownLoader):
    """Load documents with their pages.

    ``load()`` returns the same dict as :meth:`MarkItDownLoader.load` plus ``pages``:
    one ``{"page_number", "page_label", "text"}`` per PDF page (pypdf; the label is the
    printed page label when the PDF defines its own) or per PPTX slide (python-pptx;
    the label is the slide title).  Every other format has ``pages: None`` — for
    .txt and .md the text is raw, and PageSplitter finds markers or headings.

    Takes the same arguments as :class:`MarkItDownLoader` (size, ZIP and time limits).
    """

    def load(self, file_path: str | os.PathLike[str]) -> PageLoadResult:
        """Load one document with its pages.

        Returns:
            :meth:`MarkItDownLoader.load`'s dict plus ``pages``; a file that cannot be read
            gives ``success: False``, a one-line ``error`` and ``pages: None``.

        Raises:
            FileNotFoundError: nothing exists at ``file_path``.
        """
        return self._as_dict(self.load_outcome(file_path))

    def load_outcome(self, file_path: str | os.PathLike[str]) -> LoadOutcome:
        """Load one document with its pages into a typed result.

        Raises:
            FileNotFoundError: nothing exists at ``file_path``.
        """
        path = base.as_path(file_path)
        if not os.path.lexists(path):
            raise FileNotFoundError(f"{path}: file not found — check the path")
        try:
            text, pages = self.convert_pages(path)
        except LoaderError as exc:
            logger.debug("could not load %s: %s", path, exc)
            return LoadFailed(path, exc)
        return Loaded(path, text, pages)

    def convert_pages(self, file_path: str | os.PathLike[str]) -> tuple[str, list[Page] | None]:
        """The document's text and its pages (``None`` for formats without pages).

        Raises:
            LoaderError: one line naming the file, what is wrong and the fix.
        """
        path = base.as_path(file_path)
        ext = path.suffix.lower()
        if ext in IMAGE_EXTENSIONS:
            pages = self.image_pages(base.read_file(path, self.max_file_bytes), path.name)
        elif ext in (".pdf", ".pptx"):
            pages = self._in_child(self._pages, path, ext)
        else:
            return self.convert(path), None
        text = "\n\n".join(page["text"] for page in pages if page["text"].strip())
        if not text:
            raise scan.no_text(path.name, ext, self.ocr)
        return text, pages

    def _in_child(self, convert: Callable[[bytes, str, str], T], path: Path, ext: str) -> T:
        """``convert(data, name, ext)`` on a checked PDF or PPTX, in a time-limited child process."""
        data = base.read_file(path, self.max_file_bytes)
        self._check_office(data, path.name, ext)
        # Imported here, once, so that every conversion child inherits them.
        if ext == ".pdf":
            import pypdf  # noqa: F401

            if self.ocr.engine is not None:
                self._import_ocr()
        else:
            import pptx  # noqa: F401
        return guard.run_converter(convert, data, path.name, ext, name=path.name, timeout_s=self.timeout_s)

    def _as_dict(self, outcome: LoadOutcome) -> PageLoadResult:
        return outcome.to_dict(with_pages=True)  # type: ignore[return-value]

    def _pages(self, data: bytes, name: str, ext: str) -> list[Page]:
        """The pages of a PDF or the slides of a PPTX; runs in the conversion child process."""
        if ext != ".pdf":
            return _pptx_pages(data, name)
        return scan.ocr_pdf_pages(data, name, _pdf_pages(data, name), self.ocr)


def _pdf_pages(data: bytes, name: str) -> list[Page]:
    reader = base.open_pdf(data, name)
    labels = _custom_page_labels(reader, name)
    return [
        {
            "page_number": number,
            "page_label": labels[number - 1] if labels else None,
            "text": base.pdf_page_text(page, name, number),
        }
        for number, page in enumerate(reader.pages, 1)
    ]


def _custom_page_labels(reader: PdfReader, name: str) -> list[str] | None:
    """The printed page labels ("iv", "A-1") when the PDF defines its own; else ``None``."""
    from pypdf.generic import DictionaryObject

    try:
        root = reader.trailer["/Root"]
        if not isinstance(root, DictionaryObject) or "/PageLabels" not in root:
            return None
        labels = [str(label) for label in reader.page_labels]
    except Exception as exc:  # noqa: BLE001 — a broken label tree must not lose the text
        logger.warning("%s: unreadable page labels (%s); using page numbers", name, base.reason(exc))
        return None
    if len(labels) != len(reader.pages) or labels == [str(n) for n in range(1, len(labels) + 1)]:
        return None
    return labels


def _pptx_pages(data: bytes, name: str) -> list[Page]:
    from pptx import Presentation

    try:
        presentation = Presentation(io.BytesIO(data))
        return [_slide_page(number, slide) for number, slide in enumerate(presentation.slides, 1)]
    except Exception as exc:  # noqa: BLE001 — python-pptx raises KeyError, ValueError, lxml errors…
        if not guard.raised_outside_ragwire(exc):
            raise  # a bug in _slide_page, not a bad file
        raise LoaderError(
            f"{name}: not a readable PowerPoint file ({base.reason(exc)}) — re-save it in PowerPoint or LibreOffice"
        ) from exc


def _slide_page(number: int, slide: Slide) -> Page:
    title_shape = slide.shapes.title
    title = " ".join(title_shape.text_frame.text.split()) if title_shape is not None else ""
    title_id = title_shape.shape_id if title_shape is not None else None
    lines = [f"# {title}"] if title else []
    for shape in _reading_order(slide.shapes):
        if shape.shape_id != title_id:
            lines.extend(_shape_lines(shape))
    if slide.has_notes_slide:
        notes = slide.notes_slide.notes_text_frame
        if notes is not None and notes.text.strip():
            lines.append("Notes: " + " ".join(notes.text.split()))
    label = title if len(title) <= _MAX_LABEL else title[: _MAX_LABEL - 1] + "…"
    return {"page_number": number, "page_label": label or None, "text": "\n".join(lines).strip()}


def _reading_order(shapes: Iterable[BaseShape]) -> list[BaseShape]:
    return sorted(shapes, key=lambda shape: (shape.top or 0, shape.left or 0))


def _shape_lines(shape: BaseShape) -> list[str]:
    from pptx.shapes.autoshape import Shape
    from pptx.shapes.graphfrm import GraphicFrame
    from pptx.shapes.group import GroupShape

    # Only a graphic frame holds a table and only an autoshape (placeholders included) a text frame.
    if isinstance(shape, GroupShape):
        return [line for child in _reading_order(shape.shapes) for line in _shape_lines(child)]
    if isinstance(shape, GraphicFrame) and shape.has_table:
        rows = [[" ".join(cell.text.split()).replace("|", "\\|") for cell in row.cells] for row in shape.table.rows]
        return [base.table_row(row) for row in rows]
    if isinstance(shape, Shape) and shape.has_text_frame:
        return [" ".join(p.text.split()) for p in shape.text_frame.paragraphs if p.text.strip()]
    return []


class PageMapLoader(PageLoader):
    """MarkItDown's text, plus the PDF pages or PPTX slides it came from.

    Used by the markdown, recursive and code strategies: chunks are cut from MarkItDown's
    markdown as always, and ``pages`` (pypdf page texts, python-pptx slide texts) only
    locates each chunk's first and last page (see :mod:`ragwire.splitting.page_ranges`).
    Reading the pages is best effort: when it fails the file still loads, with
    ``pages: None``.  Both parses run in one time-limited child process.
    """

    def load(self, file_path: str | os.PathLike[str]) -> PageLoadResult:
        """Load one document; never raises for a bad file (a missing one included)."""
        return self._as_dict(self.load_outcome(file_path))

    def load_outcome(self, file_path: str | os.PathLike[str]) -> LoadOutcome:
        """Load one document into a typed result; never raises for a bad file (a missing one included)."""
        path = base.as_path(file_path)
        try:
            text, pages = self._convert_with_pages(path)
        except LoaderError as exc:
            logger.debug("could not load %s: %s", path, exc)
            return LoadFailed(path, exc)
        return Loaded(path, text, pages)

    def _convert_with_pages(self, path: Path) -> tuple[str, list[Page] | None]:
        ext = path.suffix.lower()
        if ext in IMAGE_EXTENSIONS:
            return self.convert_pages(path)
        if ext not in (".pdf", ".pptx"):
            return self.convert(path), None
        text, pages = self._in_child(self._text_and_pages, path, ext)
        if not has_text(text, ext):
            raise scan.no_text(path.name, ext, self.ocr)
        return text, pages

    def _text_and_pages(self, data: bytes, name: str, ext: str) -> tuple[str, list[Page] | None]:
        """Runs in the conversion child process.

        When a page was OCR'd, the text is the pages' (markitdown's text lacks the scanned ones):
        each page is OCR'd once, here, never also by the text pass.
        """
        failure: LoaderError | None = None
        try:
            text = self._convert_pdf(data, name, ocr=False) if ext == ".pdf" else self._convert_binary(data, name, ext)
        except LoaderError as exc:  # a scan markitdown cannot read may still be OCR'd
            failure, text = exc, ""
        try:
            pages: list[Page] | None = _pdf_pages(data, name) if ext == ".pdf" else _pptx_pages(data, name)
        except Exception as exc:  # noqa: BLE001 — the text loaded; only the page numbers are lost
            if failure is not None:
                raise failure from None
            logger.warning("%s: pages unreadable (%s); chunks get no page numbers", name, base.reason(exc))
            pages = None
        if pages is not None and ext == ".pdf":
            pages = scan.ocr_pdf_pages(data, name, pages, self.ocr)
        paged = "\n\n".join(page["text"] for page in pages or [] if page["text"].strip())
        if pages and any(page.get("ocr") for page in pages):
            text = paged
        elif ext == ".pdf" and paged and not base.has_table(text):
            # markitdown found no table (one it finds, pdfplumber writes out row by row), so its text is pdfminer's,
            # which reads a page block by block: a price list's descriptions, then its amounts.  pypdf's follows the
            # lines, keeping a row together.
            text = paged
        elif failure is not None:
            raise failure
        return text, pages
