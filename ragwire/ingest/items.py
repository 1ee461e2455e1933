"""What an ingest run is given: a file, the identity it is stored under, extra chunk metadata."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def source_id(path: str | Path) -> str:
    """The identity a local file is stored under: its absolute, normalised path."""
    return os.path.normpath(os.path.abspath(os.path.expanduser(str(path))))


@dataclass(frozen=True)
class IngestItem:
    """A file to ingest under an identity chosen by the caller (sync stores files
    under their source's name, not the machine's path), with extra chunk metadata."""

    path: Path
    source: str
    metadata: dict[str, Any] = field(default_factory=dict)


def as_item(entry: str | Path | IngestItem) -> IngestItem:
    if isinstance(entry, IngestItem):
        return entry
    return IngestItem(Path(entry), source_id(entry))
