"""A vector-index build a serving process owes its embedded store.

The embedded engine builds its HNSW graph in :meth:`~ragwire.store.Collection.optimize`,
and holds the interpreter lock for the whole build: 2.8 s of 5,000 chunks, minutes of
100,000 (docs/vector-store.md).  In a process that answers reads every read would wait
for it, so a serving process's writer leaves the build owed instead, in a marker file
beside the store; the next write run in a process that serves nothing builds it, even
when that run writes nothing itself.  Until then searches are exact over the new chunks:
correct, a few milliseconds slower on a large collection.
"""

from __future__ import annotations

from pathlib import Path

from ..pacing import is_serving
from .collection import Collection


def build(collection: Collection) -> bool:
    """Build the vector index now, or leave it owed in a serving process; True when built now.

    The attempt pays the debt: a store too small to need an index, or too full to build
    one (a warning says so), is not tried again until a run writes enough.
    """
    if is_serving():
        owe(collection)
        return False
    built = collection.optimize()
    paid(collection)
    return built


def _marker(collection: Collection) -> Path | None:
    """The marker's path, for an embedded store (a Qdrant server builds its index itself)."""
    if collection.engine_name != "edge":
        return None
    store = Path(collection.location)
    return store.with_name(f".{store.name}.index-owed")


def owe(collection: Collection) -> None:
    marker = _marker(collection)
    if marker is not None:
        marker.touch()


def owed(collection: Collection) -> bool:
    marker = _marker(collection)
    return marker is not None and marker.exists()


def paid(collection: Collection) -> None:
    marker = _marker(collection)
    if marker is not None:
        marker.unlink(missing_ok=True)
