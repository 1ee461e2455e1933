"""SHA-256 helpers: file identity for dedup, text identity for chunks."""

from __future__ import annotations

import hashlib
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


def sha256_chunk(chunk_id: str, content: str) -> str:
    """SHA-256 of a chunk: its id and its text, so equal text in two places differs."""
    return sha256_text(f"{chunk_id}\x00{content}")
