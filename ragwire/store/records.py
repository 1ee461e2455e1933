"""What a ragwire collection stores: point ids, a chunk's payload (the one mapping of a
:class:`~ragwire.chunk.Chunk` to and from it), the model record, and the filters that
pick a source's chunks.

Every point is a chunk, except one *meta* point (no vectors) that records the
embedding model, its dimension and whether sparse vectors exist, and the commit
notes of :mod:`ragwire.store.commits`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from ..chunk import Chunk
from .engine import Point
from .filters import (
    CI_KEY,
    KIND_KEY,
    META_KEY,
    RUN_KEY,
    STATE_COMPLETE,
    STATE_KEY,
    STATE_PENDING,
    TEXT_KEY,
    Cond,
    Filter,
    lowercase_shadow,
    meta_path,
)

NAMESPACE = uuid.UUID("6f1c3f0e-2b1d-4c55-9a57-5d0b0c1e7a21")
META_POINT_ID = str(uuid.uuid5(NAMESPACE, "ragwire:collection-meta"))
SCHEMA_VERSION = 1

# Payload keys beside the chunk's metadata: the fingerprints of the settings that
# shaped it (see ragwire.ingest.settings).
SETTINGS_KEY = "_settings"
VECTORS_KEY = "_vectors"

# Chunk metadata naming who owns a document: the sync source that wrote it (its key)
# and where that source reads from (a folder, s3://bucket/prefix).  Every write of
# the document keeps them, so a hand ingest or a forced rewrite never orphans it.
OWNER_FIELDS = ("sync_source", "sync_place")
# Chunk metadata listing the labels a reader needs one of (ragwire.access); a list, maybe empty.
ACCESS_FIELD = "access"


def chunk_point_id(source: str, file_hash: str, chunk_index: int, salt: str = "") -> str:
    """Deterministic id.  A forced rewrite passes its run id as ``salt`` so the new
    points never overwrite the visible ones before they are complete."""
    return str(uuid.uuid5(NAMESPACE, f"{source}\x00{file_hash}\x00{chunk_index}\x00{salt}"))


def chunk_payload(chunk: Chunk) -> dict[str, Any]:
    """The payload keys that hold ``chunk``: its text, its flat metadata and the lower-cased copy filters match."""
    metadata = chunk.metadata
    return {TEXT_KEY: chunk.text, META_KEY: metadata, CI_KEY: lowercase_shadow(metadata)}


def chunk_of(payload: dict[str, Any], id: str | None = None) -> Chunk:
    """The chunk a stored payload holds (see :func:`chunk_payload`)."""
    return Chunk.from_metadata(str(payload.get(TEXT_KEY) or ""), payload.get(META_KEY) or {}, id=id)


def payload_metadata(payload: dict[str, Any]) -> dict[str, Any]:
    """A stored chunk's flat metadata (a fresh dict), without building the whole chunk."""
    return dict(payload.get(META_KEY) or {})


def payload_text(payload: dict[str, Any]) -> str:
    return str(payload.get(TEXT_KEY) or "")


@dataclass
class CollectionMeta:
    """The model record kept in the meta point.

    ``instance_id`` is new for every creation (a recreate included), so a process
    can tell that the collection it checked earlier has been replaced since.
    """

    embedding_model: str
    dimension: int
    sparse: str | None
    created_at: float
    instance_id: str

    def to_point(self) -> Point:
        return Point(id=META_POINT_ID, payload={
            KIND_KEY: "meta",
            "embedding_model": self.embedding_model,
            "dimension": self.dimension,
            "sparse": self.sparse,
            "created_at": self.created_at,
            "instance_id": self.instance_id,
            "schema_version": SCHEMA_VERSION,
        })

    @classmethod
    def from_payload(cls, p: dict[str, Any]) -> CollectionMeta:
        created_at = p.get("created_at", 0.0)
        return cls(
            p["embedding_model"], int(p["dimension"]), p.get("sparse"), created_at,
            # Collections from before instance ids: their creation time tells them apart.
            str(p.get("instance_id") or created_at),
        )


def all_chunks() -> Filter:
    """Every chunk, pending or complete; never the meta point or other bookkeeping points."""
    return Filter(must=[Cond(STATE_KEY, any_of=(STATE_PENDING, STATE_COMPLETE))])


def source_filter(source: str) -> Filter:
    return Filter(must=[Cond(meta_path("source"), value=source)])


def stale_filter(source: str, run_id: str, same_hash: str | None = None) -> Filter:
    """The chunks a commit of ``run_id`` replaces: the source's other runs (of ``same_hash`` only, if given)."""
    stale = source_filter(source)
    stale.must_not.append(Cond(RUN_KEY, value=run_id))
    if same_hash is not None:
        stale.must.append(Cond(meta_path("file_hash"), value=same_hash))
    return stale
