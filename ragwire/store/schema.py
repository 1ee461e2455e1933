"""A collection's schema: the indexes it is created with, the ones its metadata needs,
and the check that a collection holds what the config embeds."""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

from ..errors import StoreError
from ..fields import MATCHED_FIELDS, SCANNED_FIELDS
from ..logs import get_logger
from .filters import RUN_KEY, STATE_KEY, UNINDEXED_KEYS, ci_path, meta_path
from .records import CollectionMeta

if TYPE_CHECKING:
    pass

log = get_logger(__name__)

# Indexes every collection is created with: the keys ingest and sync filter on.
INITIAL_INDEXES = [
    (STATE_KEY, "keyword"),
    (RUN_KEY, "keyword"),
    (meta_path("source"), "keyword"),
    (meta_path("file_hash"), "keyword"),
    (meta_path("access"), "keyword"),  # every read of a restricted principal filters on it (ragwire.access)
    (ci_path("source"), "keyword"),
    (ci_path("file_name"), "keyword"),
    (ci_path("file_type"), "keyword"),
    (meta_path("file_name"), "keyword"),
    (meta_path("chunk_index"), "integer"),
]


def new_meta(embedding_model: str, dimension: int, sparse: bool) -> CollectionMeta:
    return CollectionMeta(embedding_model, dimension, "bm25" if sparse else None, time.time(), uuid.uuid4().hex)


def wanted_indexes(metadata: dict[str, Any] | list[dict[str, Any]], *,
                   every_field: bool = False) -> list[tuple[str, str]]:
    """The payload indexes filterable metadata needs: strings as lower-cased keywords (what
    filters match), ints as integers, floats and booleans as themselves.

    Given the metadata of every chunk of a write, each key any of them has is indexed
    (a field may first appear on a later chunk), typed by its first non-empty value.
    Strings ragwire matches exactly (:data:`~ragwire.fields.MATCHED_FIELDS`) are indexed
    as stored instead; the exact-case index of any other string is made when its values
    are first read (:meth:`Collection.facet`).  :data:`~ragwire.fields.SCANNED_FIELDS`
    get none, unless ``every_field`` (indexes asked for by name).
    """
    merged: dict[str, Any] = {}
    for one in ([metadata] if isinstance(metadata, dict) else metadata):
        for key, value in one.items():
            if merged.get(key) in (None, "", []):
                merged[key] = value
    wanted: list[tuple[str, str]] = []
    for key, value in merged.items():
        if key.startswith("_") or (not every_field and (key in UNINDEXED_KEYS or key in SCANNED_FIELDS)):
            continue
        sample = value[0] if isinstance(value, list) and value else value
        if isinstance(sample, bool):
            wanted.append((meta_path(key), "bool"))
        elif isinstance(sample, int):
            wanted.append((meta_path(key), "integer"))
        elif isinstance(sample, float):
            wanted.append((meta_path(key), "float"))
        elif isinstance(sample, str):
            wanted.append((meta_path(key) if key in MATCHED_FIELDS else ci_path(key), "keyword"))
    return wanted


def check_model(meta: CollectionMeta | None, where: str, embedding_model: str, dimension: int | None,
                sparse: bool) -> None:
    """Raise :class:`StoreError` unless the collection at ``where`` was made for this configuration."""
    if meta is None:
        raise StoreError(
            f"{where} was not created by ragwire (no model record); "
            "use another vectorstore.collection_name or set force_recreate: true"
        )
    if meta.embedding_model != embedding_model or (dimension is not None and meta.dimension != dimension):
        size = f" ({dimension}-d)" if dimension is not None else ""
        raise StoreError(
            f"{where} holds vectors from {meta.embedding_model} ({meta.dimension}-d) but the config "
            f"embeds with {embedding_model}{size}; mixing them would return garbage. "
            "Use another vectorstore.collection_name, or set force_recreate: true and re-ingest."
        )
    if sparse and not meta.sparse:
        raise StoreError(
            f"{where} was created without sparse vectors, but use_sparse is true; hybrid and keyword "
            "search need them. Set force_recreate: true and re-ingest (or set use_sparse: false)."
        )
