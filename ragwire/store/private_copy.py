"""Reading an embedded store that cannot be opened in place, from a private copy.

The engine opens its files for writing even to search them, and an open touches
memory-mapped files whole: a store on a read-only mount, in another user's folder or on
a full disk cannot be opened where it is.  Such a store (up to a size worth copying) is
copied to a private temporary folder and read there; every write is refused with the
reason, and the copy goes when the store is closed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import StoreError, StoreFullError, one_line
from ..logs import get_logger
from .edge_native import edge_module
from .space import MARGIN, occupied_bytes, require_free

if TYPE_CHECKING:
    from qdrant_edge import EdgeShard

log = get_logger(__name__)

# The largest store a process that cannot open it in place copies to read it.
COPY_LIMIT = 2 * 2**30


def is_permission_error(exc: BaseException) -> bool:
    text = str(exc)
    return "Permission denied" in text or "os error 13" in text or "Read-only file system" in text


def open_advice(exc: BaseException) -> str:
    """What to do about a failed open: an intact store refused for permission or space
    must not be moved away and re-ingested."""
    text = str(exc)
    if is_permission_error(exc):
        return ("The engine opens its files for writing even to read them: give this user write access "
                "to the store folder (a read-only copy or mount cannot be opened in place).")
    if "No space left" in text or "os error 28" in text:
        return "Its filesystem is full: free some space there, then retry; the store itself is intact."
    return "If the folder is damaged, move it away and re-ingest."


class PrivateCopy:
    """A store's folder copied to a temporary folder, its shard loaded from there."""

    def __init__(self, origin: Path, folder: Path, shard: EdgeShard, refused: Exception) -> None:
        self.origin = origin
        self.folder = folder
        self.shard = shard
        self.refused = refused

    @classmethod
    def open(cls, path: Path, collection: str, refused: Exception) -> PrivateCopy:
        """Copy the store at ``path`` and load the copy; ``refused`` is why it could not be opened in place.

        Raises:
            StoreError: the store is too large to copy, or the copy could not be made or loaded.
        """
        need = occupied_bytes(path) + MARGIN
        if need > COPY_LIMIT:
            if isinstance(refused, StoreError):
                raise refused
            raise StoreError(f"cannot open the embedded store at {path}: {one_line(refused)}. "
                             f"{open_advice(refused)}") from refused
        folder = Path(tempfile.mkdtemp(prefix=f"ragwire-readonly-{collection}-"))
        try:
            require_free(folder, need, "copy it to read it")
            target = folder / collection
            shutil.copytree(path, target, copy_function=shutil.copyfile)
            for current, _dirs, _files in os.walk(target):
                os.chmod(current, 0o700)
            shard = edge_module().EdgeShard.load(str(target))
        except Exception as exc:
            shutil.rmtree(folder, ignore_errors=True)
            raise StoreError(
                f"cannot open the embedded store at {path}: {one_line(refused)}. {open_advice(refused)} "
                f"(A private copy could not be opened either: {one_line(exc)})"
            ) from exc
        why = "its filesystem is full" if isinstance(refused, StoreFullError) else "this process may only read it"
        log.warning("embedded store at %s: %s, so this process reads a private copy (%.0f MiB in %s); "
                    "writes are refused", path, why, need / 2**20, folder)
        return cls(path, folder, shard, refused)

    def write_refusal(self) -> StoreError:
        """The error every write gets: the reason the store is read from a copy."""
        if isinstance(self.refused, StoreFullError):
            return StoreFullError(str(self.refused).replace("cannot open it", "cannot write to it"))
        return StoreError(f"embedded store at {self.origin}: cannot write to it: this process may only read "
                          "its folder (it is searching a private copy); run the write as a user who may "
                          "write there, or on a writable mount")

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
