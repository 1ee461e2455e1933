"""MarkItDownLoader: documents → markdown text, one result dict per file, never raising for a bad file.

Text formats are decoded by ragwire itself (see :mod:`ragwire.loaders.plain`);
PDF, DOCX, PPTX and XLSX go through markitdown, created on first use.
"""

from __future__ import annotations

import io
import logging
import os
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ragwire.errors import LoaderError
from ragwire.loaders import base
from ragwire.loaders.base import LoadResult
from ragwire.loaders.formats import SUPPORTED_EXTENSIONS, TEXT_EXTENSIONS
from ragwire.loaders.plain import load_plain
from ragwire.loaders.walk import walk_directory

logger = logging.getLogger(__name__)

# markitdown only knows .xlsx; a macro-enabled workbook has the same layout.
_MARKITDOWN_EXTENSION = {".xlsm": ".xlsx"}
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SHEET_SCAFFOLD = re.compile(r"^(#+ .*|\|[\s|:-]*\|)$", re.MULTILINE)
# Deliberate omissions, not problems: a hidden file, or a second path to a file already listed.
_SKIPS_NOT_REPORTED = ("hidden", "same file as")
_SKIP_HINTS = {
    "larger than": " — raise max_file_size_mb or split the file",
    "binary content": " — the file is not text; check what it really is",
    "symlink": " — load the file it points to directly",
}


class MarkItDownLoader:
    """Convert PDF, DOCX, PPTX, XLSX, HTML, CSV, Markdown and text files to markdown text.

    Args:
        max_file_size_mb: Files larger than this are refused (in MiB).

    Raises:
        ValueError: ``max_file_size_mb`` is not positive.
    """

    def __init__(self, max_file_size_mb: float = 100) -> None:
        if isinstance(max_file_size_mb, bool) or not isinstance(max_file_size_mb, (int, float)):
            raise ValueError(f"max_file_size_mb must be a number, got {max_file_size_mb!r}")
        if max_file_size_mb <= 0:
            raise ValueError(f"max_file_size_mb must be positive, got {max_file_size_mb}")
        self.max_file_size_mb = max_file_size_mb
        self._markitdown: Any = None
        self._markitdown_lock = threading.Lock()  # ingest workers share one loader

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
        path = base.as_path(file_path)
        try:
            text = self.convert(path)
        except LoaderError as exc:
            logger.debug("could not load %s: %s", path, exc)
            return self._failure(path, str(exc))
        return base.success(path, text)

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
            extensions: Extensions to include, e.g. ``[".pdf", ".docx"]``; default all supported.
            recursive: Also scan subfolders.

        Raises:
            LoaderError: the folder does not exist.
            ValueError: an extension is not supported.
        """
        root = base.as_path(directory)
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
            self.load(path) if why is None else self._failure(path, f"{path.name}: skipped, {why}{_skip_hint(why)}")
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
            text = load_plain(data, ext, name)
        elif ext == ".pdf":
            text = self._convert_pdf(data, name)
        else:
            base.check_office(data, name, ext)
            text = self._convert_with_markitdown(data, name, ext)
        if not has_text(text, ext):
            raise LoaderError(f"{name}: {base.NO_TEXT_PDF if ext == '.pdf' else base.NO_TEXT}")
        return text

    def _failure(self, path: Path, error: str) -> LoadResult:
        return base.failure(path, error)

    def _convert_pdf(self, data: bytes, name: str) -> str:
        reader = base.open_pdf(data, name)  # precise messages for damaged or encrypted files
        failure: LoaderError | None = None
        try:
            text = self._convert_with_markitdown(data, name, ".pdf")
        except LoaderError as exc:
            failure, text = exc, ""
        if has_text(text, ".pdf"):
            return text
        # pdfminer gives up on some files pypdf can still read; use pypdf's text then.
        pages = (base.pdf_page_text(page, name, number) for number, page in enumerate(reader.pages, 1))
        fallback = "\n\n".join(page for page in pages if page)
        if fallback:
            logger.warning("%s: markitdown found no text (%s); used pypdf's text instead", name, failure or "empty")
            return fallback
        if failure is not None:
            raise failure
        return text

    def _convert_with_markitdown(self, data: bytes, name: str, ext: str) -> str:
        from markitdown import StreamInfo

        converter = self._get_markitdown()
        info = StreamInfo(extension=_MARKITDOWN_EXTENSION.get(ext, ext), filename=name)
        try:
            result = converter.convert_stream(io.BytesIO(data), stream_info=info)
        except Exception as exc:  # noqa: BLE001 — markitdown wraps converter failures of any type
            raise _conversion_error(exc, name, ext) from exc
        return base.tidy_text(result.markdown or "")

    def _get_markitdown(self) -> Any:
        with self._markitdown_lock:
            if self._markitdown is None:
                from markitdown import MarkItDown  # imported on first use: it costs ~1.5 s

                self._markitdown = MarkItDown()
            return self._markitdown


def has_text(text: str, ext: str) -> bool:
    """Whether converted text holds anything to embed (comments and empty-sheet scaffolding don't count)."""
    text = _COMMENT.sub("", text)
    if ext in (".xlsx", ".xlsm"):
        text = _SHEET_SCAFFOLD.sub("", text)
    return bool(text.strip())


def _conversion_error(exc: Exception, name: str, ext: str) -> LoaderError:
    cause = _root_cause(exc)
    kind = type(cause).__name__
    if "Password" in kind or "encrypt" in str(cause).lower():
        return LoaderError(f"{name}: encrypted {ext.lstrip('.').upper()} — decrypt it first")
    if "MissingDependency" in kind:
        return LoaderError(f"{name}: {base.reason(cause)}")
    return LoaderError(
        f"{name}: could not convert {ext} ({kind}: {base.reason(cause)})"
        " — check that it opens in its application and re-save it"
    )


def _root_cause(exc: Exception) -> BaseException:
    """The converter's own exception inside markitdown's FileConversionException."""
    for attempt in getattr(exc, "attempts", None) or []:
        info = getattr(attempt, "exc_info", None)
        if info and info[1] is not None:
            return info[1]
    return exc


def _skip_hint(why: str) -> str:
    return next((hint for start, hint in _SKIP_HINTS.items() if why.startswith(start)), "")


def _relative_parts(path: Path, root: Path) -> tuple[str, ...]:
    try:
        return path.relative_to(root).parts
    except ValueError:
        return path.parts
