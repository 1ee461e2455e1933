"""What ``RAGWire.get_stats`` reports about a collection: size, model, engine and location."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Callable

from .collection import Collection
from .migrate import unfinished_migration


def collection_summary(collection: Collection, opened: Callable[[], AbstractContextManager[Collection]],
                       name: str) -> dict[str, Any]:
    """The stats of ``collection`` (read through ``opened()``, the checked reader) named ``name``."""
    if not collection.exists():
        return {
            "collection_name": name, "total_documents": 0, "vector_size": None, "indexed": 0,
            "engine": collection.engine_name, "location": collection.location,
            "embedding_model": None, "sources": 0, "unfinished_migration": None,
        }
    with opened() as coll:
        meta = coll.meta()
        total = coll.count()
        indexed = coll.indexed_vectors()
        return {
            "collection_name": name,
            "total_documents": total,
            "vector_size": meta.dimension if meta else None,
            # Before the HNSW build, search is exact over every stored vector; after it,
            # Edge counts dense and sparse vectors separately, so cap at the chunk count.
            "indexed": min(indexed, total) if indexed else total,
            "engine": coll.engine_name,
            "location": coll.location,
            "embedding_model": meta.embedding_model if meta else None,
            "sources": coll.source_count(),
            # None, or why the collection is an unfinished migration copy that must not be trusted yet.
            "unfinished_migration": unfinished_migration(coll),
        }
