"""The embedded store's collection folder on disk: what state a creation left it in, durable renames."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import StoreError, one_line

# Edge writes its config file before any data; a folder without it holds nothing.
_CONFIG_FILE = "edge_config.json"
# What an Edge creation killed before writing its config can leave behind.
_EARLY_ENTRIES = {"wal", "segments"}
_ATOMIC_PREFIX = ".atomicwrite"


def folder_state(root: Path, path: Path) -> str:
    """``missing``, ``half`` (an older creation was killed before Edge wrote its config) or
    ``present``, for the collection folder ``path`` under the store folder ``root``.

    Raises:
        StoreError: a file is where a folder should be, or the folder cannot be read.
    """
    if root.exists() and not root.is_dir():
        raise StoreError(
            f"vectorstore.path {root} is a file, not a folder; "
            "point vectorstore.path at a folder (it is created if missing)"
        )
    if path.exists() and not path.is_dir():
        raise StoreError(
            f"{path} is a file where the collection folder should be; "
            "move it away or choose another vectorstore.collection_name"
        )
    try:
        entries = os.listdir(path)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        raise StoreError(f"cannot read the embedded store folder {path}: {one_line(exc)}") from exc
    if not entries:
        return "missing"
    if _CONFIG_FILE not in entries and all(
        e in _EARLY_ENTRIES or e.startswith(_ATOMIC_PREFIX) for e in entries
    ):
        return "half"
    return "present"


def fsync_dir(folder: Path) -> None:
    """Make a rename inside ``folder`` durable (it is only once the folder is synced)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms that cannot open a folder
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)
