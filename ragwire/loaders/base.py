"""Shared pieces of the loaders: the result dict shapes, safe reading of regular files, PDF opening.

Every failure becomes a :class:`~ragwire.errors.LoaderError` whose message is one
line: the file name, what is wrong, and what to do about it.
"""

from __future__ import annotations

import errno
import io
import logging
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from ragwire.errors import LoaderError
from ragwire.loaders.formats import SUPPORTED_EXTENSIONS

if TYPE_CHECKING:
    from pypdf import PageObject, PdfReader

logger = logging.getLogger(__name__)

_TRAILING_SPACE = re.compile(r"[ \t]+$", re.MULTILINE)
_BLANK_RUNS = re.compile(r"\n{3,}")
_OBJECT_REPR = re.compile(r"\s*<[\w.]+ object at 0x[0-9a-fA-F]+>")
_SPECIAL_KINDS = (
    (stat.S_ISDIR, "folder"),
    (stat.S_ISFIFO, "named pipe (FIFO)"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
)
_MAX_REASON = 160

NO_TEXT_PDF = "no extractable text (empty, or a scanned PDF without a text layer)"
NO_TEXT = "no text could be extracted (the document is empty or holds only whitespace)"


class _PageText(TypedDict):
    page_number: int
    page_label: str | None
    text: str


class Page(_PageText, total=False):
    """One page (PDF, image) or slide (PPTX) of a document; OCR'd pages say so, with the engine's confidence."""

    ocr: bool
    ocr_engine: str
    ocr_confidence: float
    ocr_rotation: int


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


def read_file(path: Path, max_bytes: int) -> bytes:
    """Read a supported file whole, after checking it exists, is a regular file and is not too large.

    FIFOs, sockets and devices are refused before anything opens them: opening a FIFO
    blocks until a writer appears, and a device may never end.

    Raises:
        LoaderError: one line naming the file, the problem and the fix.
    """
    name = path.name or str(path)
    ext = path.suffix.lower()
    if ext not in SUPPORTED_EXTENSIONS:
        shown = f"'{ext}'" if ext else "(no extension)"
        raise LoaderError(f"{name}: unsupported file type {shown} — supported: {', '.join(SUPPORTED_EXTENSIONS)}")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise LoaderError(f"{path}: file not found — check the path") from None
    except OSError as exc:
        raise LoaderError(f"{name}: {os_problem(exc)}") from exc
    if stat.S_ISDIR(info.st_mode):
        raise LoaderError(f"{name}: is a folder, not a file — load it with load_directory()")
    kind = special_file_kind(info.st_mode)
    if kind is not None:
        raise LoaderError(f"{name}: is a {kind}, not a regular file — only regular files can be loaded")
    if info.st_size > max_bytes:
        raise _too_large(name, info.st_size, max_bytes)
    try:
        data = read_regular(path, max_bytes + 1)
    except OSError as exc:
        raise LoaderError(f"{name}: {os_problem(exc)}") from exc
    if data is None:
        raise LoaderError(
            f"{name}: was replaced by something other than a regular file while being read — try again",
            retryable=True,
        )
    if len(data) > max_bytes:  # it grew between stat() and read()
        raise _too_large(name, len(data), max_bytes)
    if not data:
        raise LoaderError(f"{name}: empty file (0 bytes) — nothing to load")
    return data


def _too_large(name: str, size: int, max_bytes: int) -> LoaderError:
    return LoaderError(
        f"{name}: {size / 2**20:.1f} MB is over the {max_bytes / 2**20:.1f} MB limit"
        " — raise max_file_size_mb or split the file"
    )


def special_file_kind(mode: int) -> str | None:
    """``None`` for a regular file, else what it is: ``"named pipe (FIFO)"``, ``"socket"``, ``"folder"``…"""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _SPECIAL_KINDS if test(mode)), "special file")


def read_regular(path: Path, limit: int) -> bytes | None:
    """Up to ``limit`` bytes of ``path``; ``None`` when what got opened is not a regular file.

    Callers check with stat() first; opening non-blocking and checking again with
    fstat() covers a FIFO swapped in between, which would otherwise block the read forever.

    Raises:
        OSError: the file cannot be opened or read.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with open(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        # read(n) allocates n bytes up front: size the read by the file, not by the limit.
        data = handle.read(min(limit, info.st_size + 1))
        if info.st_size < len(data) < limit:  # it grew since fstat()
            data += handle.read(limit - len(data))
        return data


def os_problem(exc: OSError) -> str:
    """What an OSError means for a file the user gave, with the fix."""
    if exc.errno == errno.ELOOP:
        return "symlink loop — fix or remove the link"
    if isinstance(exc, PermissionError):
        return "permission denied — check the file's permissions"
    return f"cannot be read ({exc.strerror or exc})"


def reason(exc: BaseException) -> str:
    """A short, single-line description of an exception for an error message."""
    # Pillow names the stream it could not read ("cannot identify image file <_io.BytesIO object
    # at 0x7f…>"): an address means nothing to the user.
    text = " ".join(_OBJECT_REPR.sub("", str(exc)).split())
    if not text:
        return type(exc).__name__
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 1] + "…"


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


def pdf_page_text(page: PageObject, name: str, number: int) -> str:
    """The text of one pypdf page, tidied; an unreadable page yields ``""`` so the others survive."""
    try:
        text = page.extract_text() or ""
    except Exception as exc:  # noqa: BLE001 — pypdf raises many types on damaged content streams
        logger.warning("%s: page %d: text extraction failed (%s); page left empty", name, number, reason(exc))
        return ""
    return tidy_text(text)


def table_row(cells: Iterable[str]) -> str:
    """One row of a markdown table: ``| a | b |``."""
    return "| " + " | ".join(cells) + " |"


# The rule under a markdown table's header row, as a line of text: "| --- | :---: |".
TABLE_RULE = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")


def has_table(markdown: str) -> bool:
    """Whether ``markdown`` holds a markdown table (a header rule on a line of its own)."""
    return any(TABLE_RULE.match(line.strip()) for line in markdown.splitlines())


def table_rule(width: int) -> str:
    """The rule under a markdown table's header row, ``width`` columns wide: ``| --- | --- |``."""
    return table_row(["---"] * width)


def names_columns(cells: Iterable[str]) -> bool:
    """Whether a table row fills two cells or more: a header names its columns, a title row fills one cell."""
    return sum(1 for cell in cells if cell.strip()) >= 2


def title_lines(titles: Iterable[str]) -> list[str]:
    """The title rows lifted from above a table's header: the first heads the table (a line of its own would
    read as a sentence of it), the notes under it stay lines."""
    return [f"### {title}\n" if n == 0 else f"{title}\n" for n, title in enumerate(titles)]


def tidy_text(text: str) -> str:
    """Unify newlines, strip trailing spaces and collapse three or more newlines into two."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _BLANK_RUNS.sub("\n\n", _TRAILING_SPACE.sub("", text)).strip()


def as_path(path: str | os.PathLike[str]) -> Path:
    """A :class:`Path` for a user-given path, with ``~`` expanded."""
    return Path(path).expanduser()
