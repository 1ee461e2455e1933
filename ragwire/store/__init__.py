"""The Qdrant collection: one interface (:class:`Collection`), an embedded and a server engine behind it."""

from __future__ import annotations

import atexit
import threading
from pathlib import Path
from typing import Any

from .collection import ChunkRecord, Collection, CollectionMeta, SourceState, chunk_point_id
from .edge import EdgeEngine
from .engine import Engine, PointData, Record
from .filters import Filter, build_filter
from .server import ServerEngine


def _secret(value: Any) -> str | None:
    if value is None:
        return None
    return value.get_secret_value() if hasattr(value, "get_secret_value") else str(value)


def make_engine(vectorstore: Any) -> Engine:
    """Pick the engine a ``vectorstore`` config section asks for."""
    name = vectorstore.collection_name
    if vectorstore.resolved_engine == "qdrant":
        return ServerEngine(
            name,
            url=vectorstore.url,
            path=Path(vectorstore.path) / name if vectorstore.path and not vectorstore.url else None,
            api_key=_secret(vectorstore.api_key),
            timeout=vectorstore.timeout,
        )
    return EdgeEngine(Path(vectorstore.path), name)


# One Collection per store location in this process: an embedded store (or
# qdrant-client's local folder) can be opened by one client at a time, so two
# pipelines on the same folder must share it rather than wait for each other.
_SHARED: dict[tuple[str, str], Collection] = {}
_SHARED_LOCK = threading.Lock()


def close_all() -> None:
    """Close every store this process holds open (each releases its folder lock).

    Call it before moving or deleting a store folder from the same process;
    it also runs at interpreter exit.
    """
    with _SHARED_LOCK:
        collections = list(_SHARED.values())
    for collection in collections:
        collection.close()


atexit.register(close_all)


def open_collection(vectorstore: Any) -> Collection:
    """The collection a ``vectorstore`` config section names, shared within the process."""
    engine = make_engine(vectorstore)
    hold = getattr(vectorstore, "hold_open_s", 0.0)
    if engine.location == ":memory:":
        return Collection(engine, vectorstore.collection_name, hold_open_s=hold)
    key = (engine.name, engine.location)
    with _SHARED_LOCK:
        shared = _SHARED.get(key)
        if shared is None:
            shared = _SHARED[key] = Collection(engine, vectorstore.collection_name, hold_open_s=hold)
        return shared


__all__ = [
    "ChunkRecord",
    "Collection",
    "CollectionMeta",
    "EdgeEngine",
    "Engine",
    "Filter",
    "PointData",
    "Record",
    "ServerEngine",
    "SourceState",
    "build_filter",
    "chunk_point_id",
    "close_all",
    "make_engine",
    "open_collection",
]
