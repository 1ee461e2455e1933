"""The upload folder's rules: which names are accepted, a new name instead of an overwrite, never a synced folder.

A name a person gave a file is accepted as it is (``John's notes.md``, ``Q3, final.md``,
``résumé.md`` from a Mac, which arrives decomposed and is stored composed, NFC), unless it
could name another place or hide: a path separator, a control character, a leading dot,
a name Windows reserves.  An upload never replaces a file without being asked: an existing
``report.pdf`` makes the new one ``report (2).pdf``.
"""

from __future__ import annotations

import os
import tempfile
import unicodedata
from pathlib import Path
from typing import Any, Iterable

from ragwire.errors import RagwireError, ServerError

# Device names Windows refuses whatever the extension; a share of the folder would choke on them.
_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                       *(f"lpt{i}" for i in range(1, 10))})
_MAX_NAME_BYTES = 255  # one path component on every common filesystem


class UploadRefused(RagwireError):
    """An upload the limits refuse (size, type, name); nothing of it was written."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def clean_name(name: str) -> str:
    """``name`` NFC-normalised, once it is a plain file name.

    Raises:
        UploadRefused: it is empty, holds a path separator or a control character, starts
            with a dot, ends with a space or dot, is a reserved device name, or is too long.
    """
    text = unicodedata.normalize("NFC", name or "")
    if not text.strip():
        raise UploadRefused("a file has no name: give it one")
    if "/" in text or "\\" in text:
        raise UploadRefused(f"{text!r}: a file name cannot hold a path separator (/ or \\)")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in text):
        raise UploadRefused(f"{text!r}: a file name cannot hold a control character")
    if text.startswith("."):
        raise UploadRefused(f"{text!r}: a file name cannot start with a dot (it would be hidden)")
    if text != text.rstrip(" .") or text != text.lstrip(" "):
        raise UploadRefused(f"{text!r}: a file name cannot start with a space or end with a space or dot")
    if text.split(".")[0].lower() in _RESERVED:
        raise UploadRefused(f"{text!r}: {text.split('.')[0]} is a reserved device name; rename the file")
    if len(text.encode("utf-8")) > _MAX_NAME_BYTES:
        raise UploadRefused(f"{text[:40]!r}…: the name is over {_MAX_NAME_BYTES} bytes; shorten it")
    return text


def free_name(folder: Path, name: str) -> str:
    """``name``, or ``stem (2).ext``, ``stem (3).ext``… : the first that no file in ``folder`` has."""
    if not (folder / name).exists():
        return name
    path = Path(name)
    for n in range(2, 10_000):
        candidate = f"{path.stem} ({n}){path.suffix}"
        if not (folder / candidate).exists():
            return candidate
    raise UploadRefused(f"{name}: the upload folder already holds 10,000 files of this name")


def write_new(folder: Path, name: str, data: bytes) -> Path:
    """Write ``data`` to ``folder/name`` without replacing anything: a temporary file, then a link.

    Raises:
        FileExistsError: a file of that name appeared meanwhile (the caller picks another name).
    """
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".upload-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        # link() fails on an existing name, where rename() would silently replace it.
        os.link(tmp, folder / name)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return folder / name


def write_replacing(folder: Path, name: str, data: bytes) -> tuple[Path, Path | None]:
    """Write ``data`` over ``folder/name``, keeping the old file aside; returns (path, the old file's copy or None)."""
    target = folder / name
    kept: Path | None = None
    if target.exists():
        kept = folder / f".replaced-{os.getpid()}-{name}"
        os.replace(target, kept)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".upload-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        if kept is not None:
            os.replace(kept, target)
        raise
    return target, kept


def check_upload_folder(upload_dir: Path, sources: Iterable[Any], *, allowed: bool = False) -> None:
    """Refuse an upload folder that is, or lies inside or around, a local folder the config syncs.

    An upload there would replace a file the sync treats as the source of truth, and the
    next sync would delete or overwrite what was uploaded.

    Raises:
        ServerError: one line naming both folders, unless ``allowed``.
    """
    if allowed:
        return
    upload = upload_dir.resolve()
    for source in sources:
        if getattr(source, "type", None) != "local" or getattr(source, "path", None) is None:
            continue
        folder = Path(source.path).resolve()
        if upload == folder or folder in upload.parents or upload in folder.parents:
            raise ServerError(
                f"--upload-dir {upload_dir} overlaps the synced source folder {folder}: an upload could replace "
                "a synced file and the next sync would undo it; choose another folder, or pass "
                "--upload-into-sources if that is what you want")
