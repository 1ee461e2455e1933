"""The Qdrant collection: one interface (:class:`Collection`), an embedded and a server engine behind it."""

from __future__ import annotations

import atexit
import threading
from pathlib import Path

from ..config.store import VectorstoreConfig
from ..errors import StoreError
from ..logs import get_logger
from .collection import OWNER_FIELDS, Collection, CollectionMeta, SourceState, chunk_point_id
from .edge import EdgeEngine
from .engine import DenseParams, Engine, Fusion, Point
from .filters import Filter, build_filter
from .options import StoreOptions
from .server import ServerEngine

log = get_logger(__name__)


def _secret(value: object) -> str | None:
    if value is None:
        return None
    return value.get_secret_value() if hasattr(value, "get_secret_value") else str(value)


def make_engine(vectorstore: VectorstoreConfig, options: StoreOptions | None = None) -> Engine:
    """Pick the engine a ``vectorstore`` config section asks for (timings: ``options``, else the section's)."""
    options = options or StoreOptions.of(vectorstore)
    name = vectorstore.collection_name
    if vectorstore.resolved_engine == "qdrant":
        return ServerEngine(
            name,
            url=vectorstore.url,
            path=Path(vectorstore.path) / name if vectorstore.path and not vectorstore.url else None,
            api_key=_secret(vectorstore.api_key),
            timeout=vectorstore.timeout,
        )
    # Validation gives a section without a server url a folder (.ragwire_data by default).
    assert vectorstore.path is not None
    return EdgeEngine(Path(vectorstore.path), name, lock_wait_s=options.lock_wait_s)


# One Collection per collection in this process: an embedded store (or
# qdrant-client's local folder) can be opened by one client at a time, so two
# pipelines on the same folder must share it rather than wait for each other.
# The key names the collection too: one server URL holds many collections.
_SHARED: dict[tuple[str, str, str], Collection] = {}
_SHARED_LOCK = threading.Lock()


def close_all() -> None:
    """Close every store this process holds open (each releases its folder lock).

    Call it before moving or deleting a store folder from the same process;
    it also runs at interpreter exit.

    Raises:
        StoreError: the first store that failed to close (the others are closed anyway).
    """
    with _SHARED_LOCK:
        collections = list(_SHARED.values())
    failed: StoreError | None = None
    for collection in collections:
        try:
            collection.close()
        except StoreError as exc:
            failed = failed or exc
    if failed is not None:
        raise failed


def _close_all_at_exit() -> None:
    # Nobody is left to catch an error at exit; a traceback would only hide the message.
    try:
        close_all()
    except StoreError as exc:
        log.error("%s", exc)


atexit.register(_close_all_at_exit)


def open_collection(vectorstore: VectorstoreConfig) -> Collection:
    """The collection a ``vectorstore`` config section names, shared within the process.

    Its timings are the section's (:class:`StoreOptions`); the first opening in the process sets them.
    """
    options = StoreOptions.of(vectorstore)
    engine = make_engine(vectorstore, options)
    if engine.location == ":memory:":
        return Collection(engine, vectorstore.collection_name, options)
    key = (engine.name, engine.location, vectorstore.collection_name)
    with _SHARED_LOCK:
        shared = _SHARED.get(key)
        if shared is None:
            shared = _SHARED[key] = Collection(engine, vectorstore.collection_name, options)
        elif shared.options != options:
            _retime(shared, options)
        return shared


def _retime(collection: Collection, options: StoreOptions) -> None:
    """The latest pipeline to open a shared collection sets its timings (``sync --wait``, say)."""
    collection.options = options
    collection.session.hold_open_s = options.hold_open_s
    collection.writer.wait_s = options.write_wait_s
    collection.writer.lease.ttl_s = options.lease_ttl_s
    collection._engine.lock_wait_s = options.lock_wait_s


__all__ = [
    "OWNER_FIELDS",
    "Collection",
    "CollectionMeta",
    "EdgeEngine",
    "DenseParams",
    "Engine",
    "Fusion",
    "Filter",
    "Point",
    "ServerEngine",
    "StoreOptions",
    "SourceState",
    "build_filter",
    "chunk_point_id",
    "close_all",
    "make_engine",
    "open_collection",
]
