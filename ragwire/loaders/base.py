"""Shared pieces of the loaders: the result shapes, safe reading, and PDF/Office sanity checks.

Every failure becomes a :class:`~ragwire.errors.LoaderError` whose message is one
line: the file name, what is wrong, and what to do about it.
"""

from __future__ import annotations

import io
import logging
import os
import re
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from ragwire.errors import LoaderError
from ragwire.loaders.formats import SUPPORTED_EXTENSIONS

if TYPE_CHECKING:
    from pypdf import PdfReader

logger = logging.getLogger(__name__)

_TRAILING_SPACE = re.compile(r"[ \t]+$", re.MULTILINE)
_BLANK_RUNS = re.compile(r"\n{3,}")
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_FORMATS = (".docx", ".pptx", ".xlsx", ".xlsm")
_MAX_REASON = 160

NO_TEXT_PDF = "no text could be extracted (empty, or a scanned PDF without a text layer — OCR it first)"
NO_TEXT = "no text could be extracted (the document is empty or holds only whitespace)"


class Page(TypedDict):
    """One page (PDF) or slide (PPTX) of a document."""

    page_number: int
    page_label: str | None
    text: str


class LoadResult(TypedDict):
    """What a loader returns for one file; ``error`` is one line when ``success`` is false."""

    success: bool
    text_content: str | None
    file_name: str
    file_type: str
    error: str | None


class PageLoadResult(LoadResult):
    """A :class:`LoadResult` plus ``pages`` (``None`` when the format has no pages)."""

    pages: list[Page] | None


def file_type(path: Path) -> str:
    """The extension without its dot, lowercase: ``"pdf"``."""
    return path.suffix.lower().lstrip(".")


def success(path: Path, text: str) -> LoadResult:
    """The result dict of a file that loaded."""
    return _result(path, text, None)


def failure(path: Path, error: str) -> LoadResult:
    """The result dict of a file that did not load; ``error`` is one line."""
    return _result(path, None, error)


def _result(path: Path, text: str | None, error: str | None) -> LoadResult:
    return {
        "success": error is None,
        "text_content": text,
        "file_name": path.name,
        "file_type": file_type(path),
        "error": error,
    }


def read_file(path: Path, max_bytes: int) -> bytes:
    """Read a supported file whole, after checking it exists, is a file and is not too large.

    Raises:
        LoaderError: one line naming the file, the problem and the fix.
    """
    name = path.name or str(path)
    ext = path.suffix.lower()
    if ext not in SUPPORTED_EXTENSIONS:
        shown = f"'{ext}'" if ext else "(no extension)"
        raise LoaderError(f"{name}: unsupported file type {shown} — supported: {', '.join(SUPPORTED_EXTENSIONS)}")
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise LoaderError(f"{path}: file not found — check the path") from None
    except OSError as exc:
        raise LoaderError(f"{name}: cannot be read ({exc.strerror or exc})") from exc
    if path.is_dir():
        raise LoaderError(f"{name}: is a folder, not a file — load it with load_directory()")
    if stat.st_size > max_bytes:
        raise LoaderError(
            f"{name}: {stat.st_size / 2**20:.1f} MB is over the {max_bytes / 2**20:.1f} MB limit"
            " — raise max_file_size_mb or split the file"
        )
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except PermissionError:
        raise LoaderError(f"{name}: permission denied — check the file's permissions") from None
    except OSError as exc:
        raise LoaderError(f"{name}: cannot be read ({exc.strerror or exc})") from exc
    if not data:
        raise LoaderError(f"{name}: empty file (0 bytes) — nothing to load")
    return data


def reason(exc: BaseException) -> str:
    """A short, single-line description of an exception for an error message."""
    text = " ".join(str(exc).split())
    if not text:
        return type(exc).__name__
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 1] + "…"


def check_office(data: bytes, name: str, ext: str) -> None:
    """Reject files that cannot be a DOCX/PPTX/XLSX before a converter trips over them.

    Raises:
        LoaderError: the file is password-protected, an old binary Office file, or not a ZIP.
    """
    if ext not in _ZIP_FORMATS:
        return
    if data.startswith(_OLE_MAGIC):
        raise LoaderError(
            f"{name}: password-protected or old binary Office file — remove the password or re-save it as {ext}"
        )
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise LoaderError(f"{name}: not a valid {ext} file (not a ZIP archive) — re-save it from its application")


def open_pdf(data: bytes, name: str) -> PdfReader:
    """Open a PDF with pypdf, decrypting it with the empty password when it has one.

    Raises:
        LoaderError: the PDF is damaged, or encrypted with a real password.
    """
    from pypdf import PasswordType, PdfReader
    from pypdf.errors import DependencyError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                decrypted = reader.decrypt("")
            except DependencyError as exc:
                raise LoaderError(
                    f"{name}: encrypted PDF needs the 'cryptography' package to open — pip install cryptography"
                ) from exc
            if decrypted == PasswordType.NOT_DECRYPTED:
                raise LoaderError(f"{name}: encrypted PDF — decrypt it first (a password is required to read it)")
        page_count = len(reader.pages)
    except LoaderError:
        raise
    except Exception as exc:  # noqa: BLE001 — pypdf signals damage with many exception types
        raise LoaderError(f"{name}: not a readable PDF ({reason(exc)}) — re-export or repair the file") from exc
    if page_count == 0:
        raise LoaderError(f"{name}: the PDF has no pages — re-export the file")
    return reader


def pdf_page_text(page: Any, name: str, number: int) -> str:
    """The text of one pypdf page, tidied; an unreadable page yields ``""`` so the others survive."""
    try:
        text = page.extract_text() or ""
    except Exception as exc:  # noqa: BLE001 — pypdf raises many types on damaged content streams
        logger.warning("%s: page %d: text extraction failed (%s); page left empty", name, number, reason(exc))
        return ""
    return tidy_text(text)


def tidy_text(text: str) -> str:
    """Unify newlines, strip trailing spaces and collapse three or more newlines into two."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _BLANK_RUNS.sub("\n\n", _TRAILING_SPACE.sub("", text)).strip()


def as_path(path: str | os.PathLike[str]) -> Path:
    """A :class:`Path` for a user-given path, with ``~`` expanded."""
    return Path(path).expanduser()
