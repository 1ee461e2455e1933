"""SHA-256 helpers: file identity for dedup, text identity for chunks."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_BLOCK = 1 << 20


def sha256_text(text: str) -> str:
    """SHA-256 hex digest of a UTF-8 string."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_file_from_path(path: str | Path) -> str:
    """SHA-256 hex digest of a file's bytes, streamed in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


# A file's version as the filesystem tells it: any write changes the ctime (which no
# tool can set back), a replace changes the inode.
FileVersion = tuple[int, int, int, int, int]


def file_version(path: str | Path) -> FileVersion:
    """What changes whenever ``path``'s content may have changed (device, inode, size, mtime, ctime)."""
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def sha256_file_at_rest(path: str | Path, attempts: int = 3) -> tuple[str, FileVersion] | None:
    """The file's SHA-256 and the version it was taken of, or None while it keeps changing.

    A hash taken while a writer rewrites the file describes no version of it; the
    version before and after the read must agree.

    Raises:
        OSError: the file cannot be read.
    """
    for _ in range(attempts):
        before = file_version(path)
        digest = sha256_file_from_path(path)
        if file_version(path) == before:
            return digest, before
    return None


def sha256_chunk(chunk_id: str, content: str) -> str:
    """SHA-256 of a chunk: its id and its text, so equal text in two places differs."""
    return sha256_text(f"{chunk_id}\x00{content}")
