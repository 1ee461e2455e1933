"""MarkItDownLoader: documents → markdown text, one result dict per file, never raising for a bad file.

Text formats are decoded by ragwire itself (see :mod:`ragwire.loaders.plain`);
PDF, DOCX, PPTX and XLSX go through markitdown's converters, created on first use,
in a child process with a time limit (see :mod:`ragwire.loaders.guard`), after the
ZIP checks of :mod:`ragwire.loaders.office`.
"""

from __future__ import annotations

import functools
import io
import logging
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragwire.errors import LoaderError
from ragwire.loaders import base, guard, scan, sheets
from ragwire.loaders.base import LoadResult
from ragwire.loaders.formats import IMAGE_EXTENSIONS, SUPPORTED_EXTENSIONS, TEXT_EXTENSIONS, fitting_extension, sniff
from ragwire.loaders.ocr import OcrSettings
from ragwire.loaders.office import check_office
from ragwire.loaders.plain import load_plain
from ragwire.loaders.result import Loaded, LoadFailed, LoadOutcome
from ragwire.loaders.walk import walk_directory

if TYPE_CHECKING:
    from pypdf import PdfReader

logger = logging.getLogger(__name__)

# markitdown only knows .xlsx; a macro-enabled workbook has the same layout.
_MARKITDOWN_EXTENSION = {".xlsm": ".xlsx"}
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SHEET_SCAFFOLD = re.compile(r"^(#+ .*|\|[\s|:-]*\|)$", re.MULTILINE)
# Deliberate omissions, not problems: a hidden file, or a second path to a file already listed.
_SKIPS_NOT_REPORTED = ("hidden", "same file as")
# Checked in order: the first prefix of the walk's reason that matches gives the fix.
_SKIP_HINTS = {
    "larger than": " — raise max_file_size_mb or split the file",
    "binary content": " — the file is not text; check what it really is",
    "not a regular file": " — only regular files are loaded",
    "symlink loop": " — fix or remove the link",
    "symlink": " — load the file it points to directly",
    "permission denied": " — check the file's permissions",
}


class MarkItDownLoader:
    """Convert PDF, DOCX, PPTX, XLSX, HTML, CSV, Markdown and text files to markdown text.

    Args:
        max_file_size_mb: Files larger than this are refused (in MiB).
        max_uncompressed_mb: A DOCX/PPTX/XLSX whose parts unpack to more than this in
            total is refused before conversion (in MiB; config ``loader.max_uncompressed_mb``).
        max_compression_ratio: A DOCX/PPTX/XLSX part over 1 MiB unpacked that is more than
            this many times its packed size is refused (config ``loader.max_compression_ratio``).
        timeout_s: Seconds one PDF or Office file's conversion may take; it runs in a child
            process that is killed then, failing only that file (config ``loader.timeout_s``).
        ocr: How scanned pages and images are read (config ``loader.ocr*``); default: the best
            OCR engine installed, at 300 dpi in English.  A PDF is OCR'd only when it has no text
            layer at all (PageLoader OCRs page by page).

    Raises:
        ValueError: a limit is not a number, not positive, or a ratio not above 1.
    """

    def __init__(
        self,
        max_file_size_mb: float = 100,
        *,
        max_uncompressed_mb: float = 512,
        max_compression_ratio: float = 100,
        timeout_s: float = 300,
        ocr: OcrSettings | None = None,
    ) -> None:
        self.max_file_size_mb = _number_above("max_file_size_mb", max_file_size_mb, 0)
        self.max_uncompressed_mb = _number_above("max_uncompressed_mb", max_uncompressed_mb, 0)
        self.max_compression_ratio = _number_above("max_compression_ratio", max_compression_ratio, 1)
        self.timeout_s = _number_above("timeout_s", timeout_s, 0)
        self.ocr = ocr if ocr is not None else OcrSettings.choose()

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_size_mb * 2**20)

    def load(self, file_path: str | os.PathLike[str]) -> LoadResult:
        """Load one document.

        Args:
            file_path: Path to the document.

        Returns:
            ``{"success", "text_content", "file_name", "file_type", "error"}``; on failure
            ``text_content`` is ``None`` and ``error`` is one line saying what to do.
        """
        return self._as_dict(self.load_outcome(file_path))

    def load_outcome(self, file_path: str | os.PathLike[str]) -> LoadOutcome:
        """Load one document into a typed result: :class:`Loaded`, or :class:`LoadFailed` keeping the error."""
        path = base.as_path(file_path)
        try:
            return Loaded(path, self.convert(path))
        except LoaderError as exc:
            logger.debug("could not load %s: %s", path, exc)
            return LoadFailed(path, exc)

    def load_batch(self, file_paths: Iterable[str | os.PathLike[str]]) -> list[LoadResult]:
        """Load several documents; the results are in input order."""
        return [self.load(path) for path in file_paths]

    def load_directory(
        self,
        directory: str | os.PathLike[str],
        extensions: Iterable[str] | None = None,
        recursive: bool = False,
    ) -> list[LoadResult]:
        """Load every supported document in a folder, in path order.

        Hidden files and second paths to the same file are left out silently;
        files the walk refused for another reason (too large, binary data in a
        text file, a symlink) come back as failures saying why.

        Args:
            directory: The folder.
            extensions: Extensions to include, e.g. ``[".pdf", ".docx"]``; default all supported
                (images only when an OCR engine is installed).
            recursive: Also scan subfolders.

        Raises:
            LoaderError: the folder does not exist.
            ValueError: an extension is not supported.
        """
        root = base.as_path(directory)
        if extensions is None and self.ocr.engine is not None:  # images are sources when OCR can read them
            extensions = SUPPORTED_EXTENSIONS
        walked = walk_directory(root, extensions=extensions, recursive=recursive, max_file_bytes=self.max_file_bytes)
        entries: list[tuple[Path, str | None]] = [(path, None) for path in walked.files]
        entries.extend(
            (path, why)
            for path, why in walked.skipped
            if not why.startswith(_SKIPS_NOT_REPORTED)
            and path.suffix.lower() in SUPPORTED_EXTENSIONS
            and not path.is_dir()
        )
        entries.sort(key=lambda entry: _relative_parts(entry[0], root))
        results = [
            self.load(path) if why is None
            else self._as_dict(LoadFailed(path, LoaderError(f"{path.name}: skipped, {why}{_skip_hint(why)}")))
            for path, why in entries
        ]
        loaded = sum(result["success"] for result in results)
        logger.info("loaded %d of %d documents from %s", loaded, len(results), root)
        return results

    def convert(self, file_path: str | os.PathLike[str]) -> str:
        """Convert one document to text, raising instead of returning a failure dict.

        Raises:
            LoaderError: one line naming the file, what is wrong and the fix.
        """
        path = base.as_path(file_path)
        data = base.read_file(path, self.max_file_bytes)
        ext = path.suffix.lower()
        name = path.name
        if ext in TEXT_EXTENSIONS:
            text = load_plain(data, ext, name)  # ragwire's own decoding: stays in this process
        elif ext in IMAGE_EXTENSIONS:
            pages = self.image_pages(data, name)
            text = "\n\n".join(page["text"] for page in pages if page["text"])
        else:
            self._check_office(data, name, ext)
            _markitdown_converter(ext)  # imported here, once, so that every child inherits it
            if ext == ".pdf" and self.ocr.engine is not None:
                self._import_ocr()
            text = guard.run_converter(self._convert_binary, data, name, ext, name=name, timeout_s=self.timeout_s)
        if not has_text(text, ext):
            raise scan.no_text(name, ext, self.ocr)
        return text

    def image_pages(self, data: bytes, name: str) -> list[base.Page]:
        """The OCR'd pages of an image file, in a time-limited child (its size checked first, here).

        Raises:
            LoaderError: no OCR engine, an image over the pixel limit, or an unreadable image.
        """
        if self.ocr.engine is None:
            raise LoaderError(f"{name}: an image needs OCR to be searched — {self.ocr.missing_hint()}")
        scan.open_image(data, name)  # a decompression bomb is refused before a child starts
        self._import_ocr()
        pages: list[base.Page] = guard.run_converter(scan.image_pages, data, name, self.ocr, name=name,
                                                     timeout_s=self.timeout_s)
        return pages

    def _import_ocr(self) -> None:
        """Import the renderer and the engine here, once, so that every conversion child inherits them."""
        import PIL.Image  # noqa: F401

        try:
            import pypdfium2  # noqa: F401
        except ImportError:
            pass  # scan.py says how to install it when a page needs rendering
        if self.ocr.engine == "rapidocr":
            import rapidocr_onnxruntime  # noqa: F401

    def _as_dict(self, outcome: LoadOutcome) -> LoadResult:
        """The spec's result dict of ``load()``."""
        return outcome.to_dict()

    def _check_office(self, data: bytes, name: str, ext: str) -> None:
        kind = sniff(data) if ext == ".pdf" else None
        if kind is not None and kind != "a PDF document":  # named .pdf, but a photo or a scan saved as image
            raise LoaderError(f"{name}: this .pdf is {kind}, not a PDF — rename it to {fitting_extension(kind)}")
        check_office(
            data,
            name,
            ext,
            max_uncompressed_mb=self.max_uncompressed_mb,
            max_compression_ratio=self.max_compression_ratio,
        )

    def _convert_binary(self, data: bytes, name: str, ext: str) -> str:
        """PDF or Office bytes → text; runs in the conversion child process."""
        if ext == ".pdf":
            return self._convert_pdf(data, name)
        return self._convert_with_markitdown(data, name, ext)

    def _convert_pdf(self, data: bytes, name: str, *, ocr: bool = True) -> str:
        """A PDF's text; a scan is OCR'd unless ``ocr`` is false (the caller OCRs its pages itself)."""
        # One parse on the usual path: markitdown's.  pypdf reads the file only when that
        # failed or found no text: it tells a damaged file from an encrypted one precisely,
        # and reads some files pdfminer gives up on.
        failure: LoaderError | None = None
        try:
            text = self._convert_with_markitdown(data, name, ".pdf")
        except LoaderError as exc:
            failure, text = exc, ""
        if has_text(text, ".pdf"):
            return text
        reader = base.open_pdf(data, name)
        pages = (base.pdf_page_text(page, name, number) for number, page in enumerate(reader.pages, 1))
        fallback = "\n\n".join(page for page in pages if page)
        if fallback:
            logger.warning("%s: markitdown found no text (%s); used pypdf's text instead", name, failure or "empty")
            return fallback
        if ocr and self.ocr.engine is not None:  # a scan: OCR every page
            read = scan.ocr_pdf_pages(data, name, _layer_pages(reader, name), self.ocr)
            ocr_text = "\n\n".join(page["text"] for page in read if page["text"])
            if ocr_text:
                return ocr_text
        if failure is not None:
            raise failure
        return text

    def _convert_with_markitdown(self, data: bytes, name: str, ext: str) -> str:
        from markitdown import StreamInfo

        converter = _markitdown_converter(ext)
        info = StreamInfo(extension=_MARKITDOWN_EXTENSION.get(ext, ext), filename=name)
        try:
            result = converter.convert(io.BytesIO(data), info)
        except Exception as exc:  # noqa: BLE001 — converters fail with any type on a bad file
            raise _conversion_error(exc, name, ext) from exc
        text = result.markdown or ""
        if ext in (".xlsx", ".xlsm"):
            text = sheets.tidy_sheet_tables(text)
        return base.tidy_text(text)


def _layer_pages(reader: PdfReader, name: str) -> list[base.Page]:
    return [{"page_number": number, "page_label": None, "text": base.pdf_page_text(page, name, number)}
            for number, page in enumerate(reader.pages, 1)]


@functools.cache
def _markitdown_converter(ext: str) -> Any:
    """markitdown's converter for one format, called directly.

    Not through ``MarkItDown()``: its dispatch runs magika's onnxruntime model on every
    file to guess its type, which the extension already decides here, and an onnxruntime
    session made in the parent is not safe to use or destroy in a forked child (its
    thread pool's threads do not exist there).
    """
    from markitdown import converters  # imported on first use: it costs ~1.5 s

    kinds = {".pdf": converters.PdfConverter, ".docx": converters.DocxConverter, ".pptx": converters.PptxConverter}
    return kinds.get(ext, converters.XlsxConverter)()


def _number_above(field: str, value: object, floor: float) -> float:
    """``value`` when it is a number above ``floor``; else a ValueError naming the field and the rule."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{field} must be a number, got {value!r}")
    if not value > floor:  # also refuses NaN
        rule = "positive" if floor == 0 else f"above {floor:g}"
        raise ValueError(f"{field} must be {rule}, got {value}")
    return value


def has_text(text: str, ext: str) -> bool:
    """Whether converted text holds anything to embed (comments and empty-sheet scaffolding don't count)."""
    text = _COMMENT.sub("", text)
    if ext in (".xlsx", ".xlsm"):
        text = _SHEET_SCAFFOLD.sub("", text)
    return bool(text.strip())


def _conversion_error(exc: Exception, name: str, ext: str) -> LoaderError:
    kind = type(exc).__name__
    if "Password" in kind or "encrypt" in str(exc).lower():
        return LoaderError(f"{name}: encrypted {ext.lstrip('.').upper()} — decrypt it first")
    if "MissingDependency" in kind:
        return LoaderError(f"{name}: {base.reason(exc)}")
    return LoaderError(
        f"{name}: could not convert {ext} ({kind}: {base.reason(exc)})"
        " — check that it opens in its application and re-save it"
    )


def _skip_hint(why: str) -> str:
    return next((hint for start, hint in _SKIP_HINTS.items() if why.startswith(start)), "")


def _relative_parts(path: Path, root: Path) -> tuple[str, ...]:
    try:
        return path.relative_to(root).parts
    except ValueError:
        return path.parts
