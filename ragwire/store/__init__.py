"""The Qdrant collection: one interface (:class:`Collection`), an embedded and a server engine behind it."""

from __future__ import annotations

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


def open_collection(vectorstore: Any) -> Collection:
    return Collection(make_engine(vectorstore), vectorstore.collection_name)


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
    "make_engine",
    "open_collection",
]
