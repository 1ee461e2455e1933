"""Copying a collection to another engine or place, without the embedding model.

Every point goes across as stored: dense and sparse vectors, payload (the pending /
complete state and run of each chunk included) and the commit notes, so the copy shows
readers exactly what the source shows (:mod:`ragwire.store.commits`), and a write run
on the copy finishes or cleans up what the source left unfinished.  The payload
indexes and the model record go too; the bookkeeping points (model record, writer
lease) are the target's own.

Point ids are stable, so an upsert that is done again changes nothing: a run killed
mid-copy is resumed from the cursor kept in the target's *migration point* (a fixed id,
no vectors, invisible to readers), and at worst one batch is written twice.  A target
that already holds chunks is refused unless they were copied from this same source
collection (its model record's instance id), so two collections are never merged by
accident.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..errors import StoreError
from ..logs import get_logger
from . import index_debt
from .collection import Collection
from .engine import DenseParams, Offset, Point
from .filters import KIND_KEY, meta_path
from .lease import LEASE_POINT_ID
from .records import META_POINT_ID, NAMESPACE, CollectionMeta, all_chunks

if TYPE_CHECKING:
    from tqdm import tqdm

log = get_logger(__name__)

MIGRATION_KIND = "migration"
MIGRATION_POINT_ID = str(uuid.uuid5(NAMESPACE, "ragwire:migration"))
# Points that belong to the collection they are in, never copied.
_OWN_POINTS = frozenset({META_POINT_ID, LEASE_POINT_ID, MIGRATION_POINT_ID})
_INDEX_KINDS = {"keyword", "integer", "float", "bool"}
# From this many points a copy into an empty server collection defers its HNSW build
# (Qdrant indexes segments over ~10k vectors of this size in the background while they load).
DEFER_INDEX_POINTS = 10_000


@dataclass
class MigrateStats:
    """What a migration did and what its check found; ``ok`` is False when the copy differs."""

    source: str
    target: str
    embedding_model: str
    points_copied: int = 0
    chunks: int = 0
    visible_chunks: int = 0
    sources: int = 0
    indexes_created: int = 0
    # Points of an earlier copy the source no longer has (its documents deleted or replaced
    # since): the target was copied anew without them.
    points_removed: int = 0
    resumed: bool = False
    queries_compared: int = 0
    index_built: bool = False
    index_deferred: bool = False
    copy_seconds: float = 0.0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}

    def summary(self) -> str:
        verdict = "verified" if self.ok else f"NOT verified ({len(self.problems)} differences)"
        removed = f", a new copy without the {self.points_removed} points the source lost" if self.points_removed else ""
        return (f"migrate: {self.points_copied} points copied{' (resumed)' if self.resumed else ''}{removed}, "
                f"{self.chunks} chunks of {self.sources} sources, {self.visible_chunks} visible; "
                f"{verdict} by counts and {self.queries_compared} searches, {self.seconds:.1f} s")


@dataclass(frozen=True)
class _Marker:
    from_location: str
    from_instance: str
    cursor: Offset
    copied: int
    done: bool
    # The HNSW ``m`` to restore when the copy deferred the target's index build (None: not deferred).
    deferred_m: int | None = None
    # The copy was checked equal to its source; until then every read of the target warns.
    verified: bool = False

    def to_point(self) -> Point:
        return Point(id=MIGRATION_POINT_ID, payload={
            KIND_KEY: MIGRATION_KIND, "from_location": self.from_location, "from_instance": self.from_instance,
            "cursor": self.cursor, "copied": self.copied, "done": self.done, "deferred_m": self.deferred_m,
            "verified": self.verified, "updated_at": time.time(),
        })

    def moved(self, cursor: Offset, copied: int) -> _Marker:
        return _Marker(self.from_location, self.from_instance, cursor, copied, cursor is None, self.deferred_m)


def _read_marker(target: Collection) -> _Marker | None:
    records = target._engine.retrieve([MIGRATION_POINT_ID])
    if not records or records[0].payload.get(KIND_KEY) != MIGRATION_KIND:
        return None
    p = records[0].payload
    deferred = p.get("deferred_m")
    # A marker written before ``verified`` existed belongs to a copy that finished its check then.
    verified = bool(p.get("verified", p.get("done")))
    return _Marker(str(p.get("from_location", "")), str(p.get("from_instance", "")), p.get("cursor"),
                   int(p.get("copied") or 0), bool(p.get("done")), int(deferred) if deferred is not None else None,
                   verified)


def unfinished_migration(coll: Collection) -> str | None:
    """Why ``coll`` must not be trusted yet: a migration into it that was not finished and
    checked (killed mid-copy, or its check found differences); None for any other collection."""
    marker = _read_marker(coll)
    if marker is None or marker.verified:
        return None
    return (f"{_where(coll)} is an unfinished copy of {marker.from_location} ({marker.copied} points copied, "
            "not verified): searches may miss documents; run ragwire migrate again to finish it")


def _where(coll: Collection) -> str:
    return f"collection '{coll.name}' at {coll._engine.location}"


def _check_target(source_meta: CollectionMeta, target: Collection) -> _Marker | None:
    """Refuse a target made with another model, or holding chunks of another collection."""
    if not target.exists():
        return None
    meta = target.meta()
    chunks = target._engine.count(all_chunks())
    where = _where(target)
    if meta is None:
        if chunks or target._engine.count(None):
            raise StoreError(f"the target {where} was not created by ragwire (no model record); "
                             "migrate into another collection_name")
        return None  # a half-created leftover: ensure() rebuilds it
    if meta.embedding_model != source_meta.embedding_model or meta.dimension != source_meta.dimension:
        raise StoreError(
            f"the target {where} holds vectors from {meta.embedding_model} ({meta.dimension}-d) but the source "
            f"holds vectors from {source_meta.embedding_model} ({source_meta.dimension}-d); mixing them would "
            "return garbage. Migrate into another collection_name, or delete the target collection first."
        )
    if source_meta.sparse and not meta.sparse:
        raise StoreError(f"the target {where} was created without sparse vectors and the source has them; "
                         "migrate into another collection_name")
    marker = _read_marker(target)
    if chunks and (marker is None or marker.from_instance != source_meta.instance_id):
        raise StoreError(
            f"the target {where} already holds {chunks} chunks that were not copied from this source; "
            "migrate into an empty or new collection (another collection_name) so two collections are not merged"
        )
    return marker


def _copy_indexes(source: Collection, target: Collection) -> int:
    existing = target.indexes()
    created = 0
    for key, kind in sorted(source._engine.indexes().items()):
        if key in existing:
            continue
        if kind not in _INDEX_KINDS:
            log.warning("%s: payload index %s of kind %s is not copied (ragwire creates only %s)",
                        _where(target), key, kind, ", ".join(sorted(_INDEX_KINDS)))
            continue
        target._engine.create_index(key, kind)
        existing[key] = kind
        created += 1
    return created


def _copy_points(source: Collection, target: Collection, marker: _Marker, batch_size: int, bar: tqdm) -> int:
    """Copy every point from ``marker.cursor`` on, moving the cursor after each batch; returns points written."""
    offset, copied = marker.cursor, marker.copied
    written = 0
    while True:
        records, offset = source._engine.scroll(None, limit=batch_size, offset=offset, with_vectors=True)
        points = [p for p in records if p.id not in _OWN_POINTS]
        # Both leases stay alive through a long copy: nobody writes either side meanwhile.
        source.heartbeat()
        target.heartbeat()
        if points:
            target._engine.upsert(points)
        copied += len(points)
        written += len(points)
        # Edge hands offsets out as UUID objects; a payload keeps them as text (both engines take that back).
        cursor = str(offset) if isinstance(offset, uuid.UUID) else offset
        marker = marker.moved(cursor, copied)
        # Written after its batch: a run killed in between does the batch again, harmlessly.
        target._engine.upsert([marker.to_point()])
        bar.update(len(records))
        if offset is None:
            return written


def _point_ids(coll: Collection, batch_size: int) -> set[str]:
    ids: set[str] = set()
    offset = None
    while True:
        records, offset = coll._engine.scroll(None, limit=batch_size, offset=offset)
        ids.update(str(r.id) for r in records if r.id not in _OWN_POINTS)
        if offset is None:
            return ids


def _lost_since_last_copy(source: Collection, target: Collection, batch_size: int) -> int:
    """How many points a target copied from this source holds that the source no longer
    has (documents deleted or replaced there since): a copy adds, it never removes."""
    if not target._engine.count(all_chunks()):
        return 0
    return len(_point_ids(target, batch_size) - _point_ids(source, batch_size))


def _per_source(coll: Collection) -> dict[str, int]:
    return {str(v): n for v, n in coll._engine.facet(meta_path("source"), limit=10_000_000, flt=all_chunks())}


def _samples(source: Collection, count: int) -> list[Any]:
    """Up to ``count`` visible chunks spread over the collection, with their vectors."""
    if count <= 0:
        return []
    records, _ = source.scroll(limit=max(count * 20, 100))
    step = max(len(records) // count, 1)
    ids = [r.id for r in records[::step][:count]]
    return source._engine.retrieve(ids, with_vectors=True)


def _verify(source: Collection, target: Collection, queries: int, stats: MigrateStats) -> None:
    """Counts per source, visible counts, commit notes, then the same top 5 for sample searches."""
    theirs, ours = _per_source(source), _per_source(target)
    stats.sources, stats.chunks = len(theirs), sum(theirs.values())
    for src in sorted(set(theirs) | set(ours)):
        if theirs.get(src, 0) != ours.get(src, 0):
            stats.problems.append(f"{src}: {theirs.get(src, 0)} chunks in the source, {ours.get(src, 0)} in the target")
            if len(stats.problems) >= 20:
                break
    stats.visible_chunks = source.count()
    if target.count() != stats.visible_chunks:
        stats.problems.append(f"{stats.visible_chunks} visible chunks in the source, {target.count()} in the target")
    exact = DenseParams(exact=True)  # HNSW graphs of two engines may differ; exact search may not
    for rec in _samples(source, queries):
        for label, query in (("dense", {"dense": rec.dense, "dense_params": exact}), ("sparse", {"sparse": rec.sparse})):
            if next(iter(query.values())) is None:
                continue
            stats.queries_compared += 1
            want = source.search(limit=5, **query)
            if not _same_hits(want, target.search(limit=5, **query)):
                stats.problems.append(f"{label} search near chunk {rec.id}: the top 5 differ")


def _same_hits(want: list[Any], got: list[Any], tolerance: float = 1e-4) -> bool:
    """The same scores in order, and the same points wherever a score is not tied at the cut-off.

    Engines break exact ties (duplicate chunks, equal BM25 scores) in their own order, and
    compute IDF in their own float order; neither is a difference in the data.  (Hybrid
    search is not compared: its rank fusion turns a tie broken differently into another
    score.  It fuses exactly the two searches compared here.)
    """
    if len(want) != len(got):
        return False
    scores = [(w.score or 0.0, g.score or 0.0) for w, g in zip(want, got, strict=True)]
    if any(abs(a - b) > tolerance * max(1.0, abs(a)) for a, b in scores):
        return False
    if not want:
        return True
    cut = want[-1].score or 0.0
    above = {w.id for w in want if (w.score or 0.0) - cut > tolerance * max(1.0, abs(cut))}
    return above <= {g.id for g in got}


def migrate_collection(source: Collection, target: Collection, *, batch_size: int = 256, restart: bool = False,
                       verify_queries: int = 10, progress: bool = False,
                       target_model: str | None = None) -> MigrateStats:
    """Copy ``source`` into ``target`` (created when missing), then check the copy.

    Args:
        target_model: The model the target's config embeds with (its identity); the
            source must hold that model's vectors, or queries on the copy would be refused.
        batch_size: Points per scroll and per upsert.
        restart: Copy everything again instead of resuming an interrupted run.
        verify_queries: Chunks whose vectors are searched in both collections (dense and
            sparse top 5, dense by exact search); the results must be the same.
        progress: Show a progress bar (points) on stderr.

    Returns:
        The stats; ``ok`` is False, with the differences in ``problems``, when the copy differs.

    Raises:
        StoreError: the source does not exist, the target is the source, holds another
            model's vectors or chunks of another collection.
        StoreLockedError: either collection is being written by another run.
    """
    from tqdm import tqdm

    if (source._engine.name, source._engine.location, source.name) == (
            target._engine.name, target._engine.location, target.name):
        raise StoreError(f"the target is the source ({_where(source)}); name another place or collection_name")
    if not source.exists():
        raise StoreError(f"there is no {_where(source)} to migrate; check vectorstore.path / url and collection_name")
    started = time.monotonic()
    with source.writing():
        source_meta = source.meta()
        if source_meta is None:
            raise StoreError(f"{_where(source)} was not created by ragwire (no model record); nothing to migrate")
        if target_model is not None and target_model != source_meta.embedding_model:
            raise StoreError(
                f"the target's config embeds with {target_model} but {_where(source)} holds vectors from "
                f"{source_meta.embedding_model}; searches of the copy would be refused. Give the target's "
                "config the source's embeddings section."
            )
        stats = MigrateStats(_where(source), _where(target), source_meta.embedding_model)
        with target.opened():
            marker = _check_target(source_meta, target)
            lost = _lost_since_last_copy(source, target, batch_size) if marker is not None else 0
            if lost:
                # Deleting them in place would leave the target's search statistics unlike the
                # source's; a new copy is equal by construction.
                log.info("%s holds %d points the source no longer has; copying it anew", _where(target), lost)
                marker = None
            stats.points_removed = lost
            target.ensure(embedding_model=source_meta.embedding_model, dimension=source_meta.dimension,
                          sparse=bool(source_meta.sparse), force_recreate=bool(lost))
            with target.writing():
                stats.indexes_created = _copy_indexes(source, target)
                total = source._engine.count(None)
                if marker is None or restart or marker.done:
                    # A large copy into an empty server collection builds its HNSW graph once, at the end;
                    # a deferral an earlier run did not get to undo is kept, so it is undone this time.
                    deferred = marker.deferred_m if marker is not None else None
                    if deferred is None and total >= DEFER_INDEX_POINTS and not target._engine.count(all_chunks()):
                        deferred = target._engine.defer_index()
                    marker = _Marker(source._engine.location, source_meta.instance_id, None, 0, False, deferred)
                    target._engine.upsert([marker.to_point()])
                else:
                    stats.resumed = True
                    log.info("resuming the migration into %s after %d points", _where(target), marker.copied)
                stats.index_deferred = marker.deferred_m is not None
                copy_started = time.monotonic()
                with tqdm(total=total, initial=min(marker.copied, total), unit="pt", desc="migrate",
                          disable=not progress, leave=False) as bar:
                    stats.points_copied = _copy_points(source, target, marker, batch_size, bar)
                target._engine.flush()
                stats.copy_seconds = round(time.monotonic() - copy_started, 2)
                if marker.deferred_m is not None:
                    target._engine.restore_index(marker.deferred_m)
                    finished = _read_marker(target)
                    if finished is not None:
                        target._engine.upsert([replace(finished, deferred_m=None).to_point()])
                stats.index_built = index_debt.build(target) or stats.index_deferred
                _verify(source, target, verify_queries, stats)
                finished = _read_marker(target)
                if finished is not None and stats.ok:
                    target._engine.upsert([replace(finished, verified=True).to_point()])
    stats.seconds = round(time.monotonic() - started, 2)
    log.info("%s", stats.summary())
    return stats
