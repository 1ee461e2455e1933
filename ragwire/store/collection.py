"""A ragwire collection on top of an engine: schema checks, write states, search, facets.

Every point is a chunk, except one *meta* point (no vectors) that records the
embedding model, its dimension and whether sparse vectors exist.  Chunks are
written ``pending`` and flipped to ``complete`` once a whole file is in, so
readers never see half a document and a crashed run is cleaned up by the next.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..errors import StoreError, StoreLockedError
from ..fields import UNINDEXED_FIELDS
from ..logs import get_logger
from .engine import DenseParams, Engine, Fusion, PointData, Record
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
    ci_path,
    lowercase_shadow,
    meta_path,
    visible,
)
from .lease import DEFAULT_TTL_S, WriterLease

log = get_logger(__name__)

_NAMESPACE = uuid.UUID("6f1c3f0e-2b1d-4c55-9a57-5d0b0c1e7a21")
META_POINT_ID = str(uuid.uuid5(_NAMESPACE, "ragwire:collection-meta"))
SCHEMA_VERSION = 1

# Extra hits fetched so that ties at the cut-off are broken deterministically.
_TIE_MARGIN = 8

# Fields never worth a payload index: unique per chunk or large.
_UNINDEXED = frozenset(UNINDEXED_FIELDS)

# Indexes every collection is created with: the keys ingest and sync filter on.
_INITIAL_INDEXES = [
    (STATE_KEY, "keyword"),
    (RUN_KEY, "keyword"),
    (meta_path("source"), "keyword"),
    (meta_path("file_hash"), "keyword"),
    (ci_path("source"), "keyword"),
    (ci_path("file_name"), "keyword"),
    (ci_path("file_type"), "keyword"),
    (meta_path("file_name"), "keyword"),
    (meta_path("chunk_index"), "integer"),
]

# Payload keys beside the chunk's metadata: the fingerprints of the settings that
# shaped it (see ragwire.ingest.settings), and the commit notes described below.
SETTINGS_KEY = "_settings"
VECTORS_KEY = "_vectors"
COMMIT_KIND = "commit"
COMMIT_SOURCE_KEY = "_commit_source"

# Chunk metadata naming who owns a document: the sync source that wrote it (its key)
# and where that source reads from (a folder, s3://bucket/prefix).  Every write of
# the document keeps them, so a hand ingest or a forced rewrite never orphans it.
OWNER_FIELDS = ("sync_source", "sync_place")
COMMIT_HASH_KEY = "_commit_hash"
# The content the commit makes visible (absent on notes written before version 0.3).
COMMIT_NEW_HASH_KEY = "_commit_new_hash"


def chunk_point_id(source: str, file_hash: str, chunk_index: int, salt: str = "") -> str:
    """Deterministic id.  A forced rewrite passes its run id as ``salt`` so the new
    points never overwrite the visible ones before they are complete."""
    return str(uuid.uuid5(_NAMESPACE, f"{source}\x00{file_hash}\x00{chunk_index}\x00{salt}"))


@dataclass
class ChunkRecord:
    id: str
    text: str
    metadata: dict[str, Any]
    dense: list[float] | None = None
    sparse: tuple[list[int], list[float]] | None = None


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


@dataclass
class SourceState:
    """What the collection holds for one source: complete versions and leftovers."""

    complete: dict[str, int]  # file_hash -> chunk count
    pending: int
    expected: dict[str, int]  # file_hash -> total_chunks recorded on its chunks
    # file_hash -> settings fingerprints seen on its complete chunks ("" for chunks
    # written before fingerprints existed)
    settings: dict[str, set[str]] = field(default_factory=dict)
    # The owner fields (OWNER_FIELDS) its complete chunks carry.
    owner: dict[str, str] = field(default_factory=dict)

    def has_complete(self, file_hash: str) -> bool:
        count = self.complete.get(file_hash, 0)
        return count > 0 and count == self.expected.get(file_hash, count)

    def is_current(self, file_hash: str, fingerprint: str) -> bool:
        """A complete version of this content, shaped by these settings, is stored: nothing to do."""
        return self.has_complete(file_hash) and self.settings_match(file_hash, fingerprint)

    def settings_match(self, file_hash: str, fingerprint: str) -> bool:
        """Whether the stored version was shaped by these settings.

        Chunks from before fingerprints were recorded count as matching: re-processing a
        whole collection on upgrade is what ``ingest --force`` is for, not a surprise.
        """
        seen = self.settings.get(file_hash, set()) - {""}
        return not seen or seen == {fingerprint}

    @property
    def is_clean(self) -> bool:
        return self.pending == 0 and len(self.complete) <= 1


def _all_chunks() -> Filter:
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


@dataclass(frozen=True)
class _Note:
    """A commit note: ``run_id`` makes ``new_hash`` of ``source`` visible, replacing the
    source's other chunks (only those of ``same_hash`` when it is set)."""

    source: str
    run_id: str
    same_hash: str | None
    new_hash: str | None


def _new_version(source: str, run_id: str, file_hash: str | None) -> Filter:
    """The chunks one commit makes visible."""
    flt = Filter(must=[Cond(meta_path("source"), value=source), Cond(RUN_KEY, value=run_id)])
    if file_hash is not None:
        flt.must.append(Cond(meta_path("file_hash"), value=file_hash))
    return flt


def _commit_note_id(source: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"ragwire:commit\x00{source}"))


class Collection:
    """The ragwire view of one Qdrant collection.  Use ``with collection.opened():`` around work."""

    def __init__(self, engine: Engine, name: str, hold_open_s: float = 0.0, *,
                 write_wait_s: float = 10.0, lease_ttl_s: float = DEFAULT_TTL_S) -> None:
        self.engine = engine
        self.name = name
        self.hold_open_s = hold_open_s
        # How long a write run waits for another one (thread, process, machine) to finish.
        self.write_wait_s = write_wait_s
        self.lease = WriterLease(engine, ttl_s=lease_ttl_s)
        # Serialises the writing threads of this process; the lease does the same across processes.
        self._writer = threading.RLock()
        self._writer_thread: int | None = None
        self._writer_depth = 0
        self._ensure_lock = threading.Lock()
        self._lock = threading.RLock()
        self._closer: threading.Timer | None = None
        self._depth = 0
        self._meta: CollectionMeta | None = None
        # The engine generation _meta was read at: a reopen or a drop makes it stale.
        self._meta_generation = -1
        self._indexed: dict[str, str] | None = None

    # -- lifecycle -------------------------------------------------------
    @contextlib.contextmanager
    def opened(self) -> Iterator[Collection]:
        """Hold the engine open for the block; nested blocks share one open.

        After the outermost block the engine stays open for ``hold_open_s`` more
        seconds, so back-to-back calls (a loop of queries) pay for one open, not
        one each; then it closes and releases the embedded store's folder lock.
        Writes are flushed when the block ends, not when the engine closes.
        """
        with self._lock:
            if self._closer is not None:
                self._closer.cancel()
                self._closer = None
            self.engine.open()
            self._depth += 1
        try:
            yield self
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    try:
                        self.engine.flush()
                    finally:
                        # Even after a failed flush the store is closed or scheduled to be,
                        # so its folder lock is never kept by a process that is done with it.
                        if self.hold_open_s > 0:
                            self._closer = threading.Timer(self.hold_open_s, self._close_if_idle)
                            self._closer.daemon = True
                            self._closer.start()
                        else:
                            self._close()

    def _close_if_idle(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._closer = None
                try:
                    self._close()
                except StoreError as exc:
                    # A timer thread has no caller to raise to; the next open reports anew.
                    log.error("%s", exc)

    def _close(self) -> None:
        # Another process may change the collection once we let go of it.
        self._meta = None
        self._indexed = None
        self.engine.close()

    def close(self) -> None:
        """Close the engine now (it must not be in use)."""
        with self._lock:
            if self._closer is not None:
                self._closer.cancel()
                self._closer = None
            if self._depth == 0:
                self._close()

    def exists(self) -> bool:
        return self.engine.exists()

    # -- the writer lease ----------------------------------------------------
    @contextlib.contextmanager
    def writing(self, wait_s: float | None = None) -> Iterator[Collection]:
        """Hold the right to write for the block: one write run at a time per collection.

        Threads of this process queue on a lock; other processes and machines on the
        collection's writer lease (:mod:`ragwire.store.lease`).  An engine that one
        process opens at a time (the embedded one: its folder is locked while open)
        needs no lease point.  Nested blocks in one thread share one hold.

        Raises:
            StoreLockedError: the collection was still being written after ``wait_s``
                seconds (default: ``write_wait_s``).
        """
        wait = self.write_wait_s if wait_s is None else wait_s
        started = time.monotonic()
        if not self._writer.acquire(timeout=wait):
            raise StoreLockedError(
                f"collection '{self.name}' is being written by another thread of this process, "
                f"which did not finish within {wait:.0f} s; wait longer or write from one thread"
            )
        try:
            self._writer_depth += 1
            if self._writer_depth > 1:
                yield self
                return
            with self.opened():
                leased = not self.engine.exclusive and self.engine.exists()
                if leased:
                    left = max(wait - (time.monotonic() - started), 0.0)
                    self.lease.acquire(left, what=f"collection '{self.name}' at {self.engine.location}")
                self._writer_thread = threading.get_ident()
                note = getattr(self.engine, "note_writing", None)
                if note is not None:
                    note(True)
                try:
                    yield self
                finally:
                    self._writer_thread = None
                    if note is not None:
                        note(False)
                    if leased:
                        self.lease.release()
        finally:
            self._writer_depth -= 1
            self._writer.release()

    def heartbeat(self) -> None:
        """Keep this run's writer lease alive; called on every write of the writing thread.

        Raises:
            StoreLockedError: the lease lapsed and another run took it; stop writing.
        """
        if self._writer_thread == threading.get_ident():
            self.lease.renew()

    def ensure(self, *, embedding_model: str, dimension: int | None, sparse: bool, force_recreate: bool = False) -> None:
        """Create the collection, or check that the existing one matches this configuration.

        ``dimension`` may be None when the collection exists: a differing model name is
        reported without loading the model to learn its size.  A collection left
        half-created by an interrupted run (no model record, no points) is rebuilt.

        Raises:
            StoreError: the stored model, dimension or sparse setting differs from the config.
        """
        # Threads sharing this collection check or create it one at a time: a second thread
        # must not take a creation under way for a half-created leftover and drop it.
        with self._ensure_lock:
            if force_recreate and self.engine.exists():
                # Dropping is a write: it waits for any run writing the collection now.
                with self.writing():
                    self._ensure(embedding_model, dimension, sparse, force_recreate)
            else:
                self._ensure(embedding_model, dimension, sparse, force_recreate)

    def _ensure(self, embedding_model: str, dimension: int | None, sparse: bool, force_recreate: bool) -> None:
        where = f"collection '{self.name}' at {self.engine.location}"
        if force_recreate and self.engine.exists():
            chunks = self.engine.count(_all_chunks())
            self.engine.drop()
            self._forget()
            log.warning("force_recreate: deleted %s and its %d chunks; it is created anew", where, chunks)
        elif self.engine.exists() and self.meta() is None and self.engine.count(None) == 0:
            log.warning("%s was left half-created by an interrupted run (no model record, no points); "
                        "rebuilding it", where)
            self.engine.drop()
            self._forget()
        if not self.engine.exists():
            if dimension is None:
                raise ValueError("creating a collection needs the embedding dimension")
            meta = CollectionMeta(embedding_model, dimension, "bm25" if sparse else None, time.time(),
                                  uuid.uuid4().hex)
            created = self.engine.create(dimension, sparse, self._meta_point(meta), list(_INITIAL_INDEXES))
            self._indexed = None
            if created:
                self._meta, self._meta_generation = meta, self.engine.generation
                log.info("created collection '%s' (%s, %d-d, sparse=%s) at %s",
                         self.name, embedding_model, dimension, sparse, self.engine.location)
                return
            # Another process created it while we waited: check theirs like any existing one.
            self._forget()
        meta = self.meta()
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

    def _forget(self) -> None:
        self._meta = None
        self._indexed = None

    @staticmethod
    def _meta_point(meta: CollectionMeta) -> PointData:
        payload = {
            KIND_KEY: "meta",
            "embedding_model": meta.embedding_model,
            "dimension": meta.dimension,
            "sparse": meta.sparse,
            "created_at": meta.created_at,
            "instance_id": meta.instance_id,
            "schema_version": SCHEMA_VERSION,
        }
        return PointData(id=META_POINT_ID, payload=payload)

    def meta(self) -> CollectionMeta | None:
        """The model record, read again after every real (re)open of the engine; None if absent."""
        with self._lock:
            if self._meta is None or self._meta_generation != self.engine.generation:
                self._meta = None
                records = self.engine.retrieve([META_POINT_ID])
                # Read after retrieve(): it may itself have opened the engine.
                generation = self.engine.generation
                if not records:
                    return None
                p = records[0].payload
                created_at = p.get("created_at", 0.0)
                self._meta = CollectionMeta(
                    p["embedding_model"], int(p["dimension"]), p.get("sparse"), created_at,
                    # Collections from before instance ids: their creation time tells them apart.
                    str(p.get("instance_id") or created_at),
                )
                self._meta_generation = generation
            return self._meta

    # -- indexes ---------------------------------------------------------
    def indexes(self) -> dict[str, str]:
        if self._indexed is None:
            self._indexed = dict(self.engine.indexes())
        return self._indexed

    def ensure_indexes(self, metadata: dict[str, Any] | list[dict[str, Any]]) -> None:
        """Index filterable metadata: strings as keywords (original and lower-cased), ints as integers.

        Given the metadata of every chunk of a write, each key any of them has is indexed
        (a ``heading_path`` may first appear on a later chunk), typed by its first non-empty value.
        """
        merged: dict[str, Any] = {}
        for one in ([metadata] if isinstance(metadata, dict) else metadata):
            for key, value in one.items():
                if merged.get(key) in (None, "", []):
                    merged[key] = value
        existing = self.indexes()
        for key, value in merged.items():
            if key in _UNINDEXED or key.startswith("_"):
                continue
            wanted: list[tuple[str, str]] = []
            sample = value[0] if isinstance(value, list) and value else value
            if isinstance(sample, bool):
                wanted.append((meta_path(key), "bool"))
            elif isinstance(sample, int):
                wanted.append((meta_path(key), "integer"))
            elif isinstance(sample, float):
                wanted.append((meta_path(key), "float"))
            elif isinstance(sample, str):
                wanted += [(meta_path(key), "keyword"), (ci_path(key), "keyword")]
            for path, kind in wanted:
                if path not in existing:
                    self.engine.create_index(path, kind)
                    existing[path] = kind

    # -- writes ----------------------------------------------------------
    def write_pending(self, chunks: list[ChunkRecord], run_id: str,
                      fingerprints: dict[str, str] | None = None) -> None:
        """Store chunks invisible to readers; ``fingerprints`` (settings, vectors) go on each."""
        prints = fingerprints or {}
        points = [
            PointData(
                id=c.id,
                dense=c.dense,
                sparse=c.sparse,
                payload={
                    TEXT_KEY: c.text,
                    META_KEY: c.metadata,
                    CI_KEY: lowercase_shadow(c.metadata),
                    STATE_KEY: STATE_PENDING,
                    RUN_KEY: run_id,
                    SETTINGS_KEY: prints.get("settings", ""),
                    VECTORS_KEY: prints.get("vectors", ""),
                },
            )
            for c in chunks
        ]
        self.heartbeat()
        self.engine.upsert(points)

    def commit_source(self, source: str, file_hash: str, run_id: str, keep_other_versions: bool = False) -> int:
        """Make one file's new version visible, then remove what it replaces.

        Steps: a commit note, the flip of the new chunks to ``complete``, the delete of
        what they replace, the removal of the note.  Writing the note is the switch:
        from then on readers see this source only as the new version
        (:meth:`reader_filter`), pending or flipped, so a crash between any two steps
        shows exactly one complete version, and the next write run finishes the
        remaining steps (:meth:`repair_interrupted_commits`).  The note is written only
        once every chunk of the new version is stored.  With ``keep_other_versions``
        only leftovers of this same content are replaced.  Returns the number of chunks removed.
        """
        same_hash = file_hash if keep_other_versions else None
        self.heartbeat()
        self._ensure_commit_index()
        self.engine.upsert([PointData(id=_commit_note_id(source), payload={
            KIND_KEY: COMMIT_KIND, COMMIT_SOURCE_KEY: source, RUN_KEY: run_id, COMMIT_HASH_KEY: same_hash,
            COMMIT_NEW_HASH_KEY: file_hash,
        })])
        return self._finish_commit(source, run_id, same_hash, file_hash)

    def _finish_commit(self, source: str, run_id: str, same_hash: str | None, new_hash: str | None) -> int:
        """The steps after the note; each is idempotent, so a repair may run them again."""
        self.engine.set_payload(_new_version(source, run_id, new_hash), {STATE_KEY: STATE_COMPLETE})
        removed = self._delete_counted(stale_filter(source, run_id, same_hash))
        self.engine.delete(self._note_filter(source))
        return removed

    # -- commit notes -------------------------------------------------------
    def _ensure_commit_index(self) -> None:
        if KIND_KEY not in self.indexes():
            self.engine.create_index(KIND_KEY, "keyword")
            self.indexes()[KIND_KEY] = "keyword"

    @staticmethod
    def _note_filter(source: str | None = None) -> Filter:
        flt = Filter(must=[Cond(KIND_KEY, value=COMMIT_KIND)])
        if source is not None:
            flt.must.append(Cond(COMMIT_SOURCE_KEY, value=source))
        return flt

    def _commit_notes(self) -> list[_Note]:
        """Every commit under way or interrupted by a crash; none without the index."""
        if KIND_KEY not in self.indexes():
            return []  # no commit has ever written a note here
        notes, offset = [], None
        while True:
            records, offset = self.engine.scroll(self._note_filter(), limit=256, offset=offset)
            notes += [_Note(r.payload[COMMIT_SOURCE_KEY], r.payload[RUN_KEY], r.payload.get(COMMIT_HASH_KEY),
                            r.payload.get(COMMIT_NEW_HASH_KEY))
                      for r in records if COMMIT_SOURCE_KEY in r.payload]
            if offset is None:
                return notes

    def repair_interrupted_commits(self) -> int:
        """Finish the commits a crash interrupted (flip, delete, note); returns how many there were."""
        notes = self._commit_notes()
        for note in notes:
            removed = self._finish_commit(note.source, note.run_id, note.same_hash, note.new_hash)
            log.info("%s: finished an interrupted replacement (%d old chunks removed)", note.source, removed)
        return len(notes)

    def reader_filter(self, flt: Filter | None = None) -> Filter:
        """What readers may see; every read path goes through here.

        Complete chunks, except for a source with a commit note: that source shows
        only the version the note names (pending or flipped) and, when the commit
        keeps other contents, those.  So at every step of a commit, and after a
        crash at any of them, each document has exactly one complete version visible.
        """
        notes = self._commit_notes()
        if not notes:
            return visible().and_(flt)
        noted = tuple(sorted({note.source for note in notes}))
        shown = Filter(should=[Filter(must=[Cond(STATE_KEY, value=STATE_COMPLETE)],
                                      must_not=[Cond(meta_path("source"), any_of=noted)])])
        for note in notes:
            shown.should.append(_new_version(note.source, note.run_id, note.new_hash))
            if note.same_hash is not None:
                shown.should.append(Filter(
                    must=[Cond(STATE_KEY, value=STATE_COMPLETE), Cond(meta_path("source"), value=note.source)],
                    must_not=[Cond(meta_path("file_hash"), value=note.same_hash)],
                ))
        return shown.and_(flt)

    def remove_other_versions(self, source: str, keep_hash: str | None) -> int:
        stale = source_filter(source)
        if keep_hash is not None:
            stale.must_not.append(Cond(meta_path("file_hash"), value=keep_hash))
        return self._delete_counted(stale)

    def discard_pending(self, source: str) -> int:
        return self._delete_counted(source_filter(source).and_(Filter(must=[Cond(STATE_KEY, value=STATE_PENDING)])))

    def _delete_counted(self, flt: Filter) -> int:
        """Delete the points matching ``flt``; returns how many there were."""
        count = self.engine.count(flt)
        if count:
            self.heartbeat()
            self.engine.delete(flt)
        return count

    def set_owner(self, source: str, owner: dict[str, str]) -> None:
        """Record ``owner`` (OWNER_FIELDS) on every chunk of ``source``, without rewriting them."""
        unknown = set(owner) - set(OWNER_FIELDS)
        if unknown:
            raise ValueError(f"not owner fields: {sorted(unknown)}")
        self.heartbeat()
        self.ensure_indexes(owner)  # sources_where finds owners through their index
        self.engine.set_payload(source_filter(source), dict(owner), key=META_KEY)
        self.engine.set_payload(source_filter(source), lowercase_shadow(owner), key=CI_KEY)

    def delete_source(self, source: str) -> int:
        return self.remove_other_versions(source, None)

    # -- state -----------------------------------------------------------
    def source_state(self, source: str) -> SourceState:
        return self.source_states([source])[source]

    def source_states(self, sources: list[str]) -> dict[str, SourceState]:
        """What the collection holds for each of ``sources``, read in one pass over their chunks."""
        states = {s: SourceState(complete={}, pending=0, expected={}) for s in sources}
        if not sources:
            return states
        flt = Filter(must=[Cond(meta_path("source"), any_of=tuple(sources))])
        offset = None
        while True:
            records, offset = self.engine.scroll(
                flt, limit=1024, offset=offset,
                fields=[STATE_KEY, SETTINGS_KEY, meta_path("source"), meta_path("file_hash"),
                        meta_path("total_chunks"), *(meta_path(f) for f in OWNER_FIELDS)],
            )
            for rec in records:
                meta = rec.payload.get(META_KEY, {})
                state = states.get(meta.get("source"))
                if state is None:
                    continue
                if rec.payload.get(STATE_KEY) == STATE_COMPLETE:
                    fh = meta.get("file_hash", "")
                    state.complete[fh] = state.complete.get(fh, 0) + 1
                    state.settings.setdefault(fh, set()).add(rec.payload.get(SETTINGS_KEY) or "")
                    if "total_chunks" in meta:
                        state.expected[fh] = int(meta["total_chunks"])
                    for name in OWNER_FIELDS:
                        if meta.get(name):
                            state.owner.setdefault(name, str(meta[name]))
                else:
                    state.pending += 1
            if offset is None:
                break
        return states

    def stored_vectors(self, source: str, content_hashes: set[str] | None = None, *,
                       vectors_fingerprint: str | None = None) -> dict[str, tuple[list[float] | None, Any]]:
        """content_hash → (dense, sparse) of a source's complete chunks, for reuse.

        Only ``content_hashes`` are read when given, so a replaced file costs the
        vectors it can use, not all it had.  With ``vectors_fingerprint``, vectors
        made under other embedding settings are not returned (chunks without a
        fingerprint predate them and are trusted, like their model record).
        """
        out: dict[str, tuple[list[float] | None, Any]] = {}
        if content_hashes is not None and not content_hashes:
            return out
        offset = None
        flt = source_filter(source).and_(visible())
        if content_hashes is not None:
            flt = flt.and_(Filter(must=[Cond(meta_path("content_hash"), any_of=tuple(sorted(content_hashes)))]))
        while True:
            records, offset = self.engine.scroll(flt, limit=256, offset=offset, with_vectors=True)
            for rec in records:
                made_with = rec.payload.get(VECTORS_KEY) or ""
                if vectors_fingerprint is not None and made_with and made_with != vectors_fingerprint:
                    continue
                ch = rec.payload.get(META_KEY, {}).get("content_hash")
                if ch and rec.dense is not None:
                    out.setdefault(ch, (rec.dense, rec.sparse))
            if offset is None:
                break
        return out

    def source_count(self) -> int:
        return len(self.engine.facet(meta_path("source"), limit=10_000_000, flt=self.reader_filter()))

    def sources(self) -> dict[str, str]:
        """Every source with a complete version → its file hash."""
        out: dict[str, str] = {}
        shown = self.reader_filter()
        for value, _count in self.engine.facet(meta_path("source"), limit=10_000_000, flt=shown):
            out[str(value)] = ""
        for source in list(out):
            hashes = self.engine.facet(meta_path("file_hash"), limit=10, flt=source_filter(source).and_(shown))
            out[source] = str(hashes[0][0]) if hashes else ""
        return out

    def sources_where(self, field: str, value: str) -> list[str]:
        """Every source with a chunk (pending ones included) whose metadata ``field`` equals ``value``."""
        if meta_path(field) not in self.indexes():
            return []  # no chunk ever carried the field
        flt = _all_chunks().and_(Filter(must=[Cond(meta_path(field), value=value)]))
        return sorted(str(v) for v, _count in self.engine.facet(meta_path("source"), limit=10_000_000, flt=flt))

    def source_points(self, source: str) -> int:
        """Every point of a source, pending and older versions included: what :meth:`delete_source` removes."""
        return self.engine.count(source_filter(source))

    # -- reads -----------------------------------------------------------
    def count(self, flt: Filter | None = None) -> int:
        return self.engine.count(self.reader_filter(flt))

    def scroll(self, flt: Filter | None = None, *, limit: int, offset: Any = None,
               fields: list[str] | None = None) -> tuple[list[Record], Any]:
        """One page of the chunks readers may see; pass the returned offset for the next."""
        return self.engine.scroll(self.reader_filter(flt), limit=limit, offset=offset, fields=fields)

    def search(self, *, dense=None, sparse=None, flt: Filter | None = None, limit: int = 5,
               fusion: Fusion | None = None, dense_params: DenseParams | None = None,
               with_vectors: bool = False) -> list[Record]:
        # RRF gives exact ties; engines break them arbitrarily.  Fetch a few extra and
        # order ties by id, so the same query on the same data returns the same list.
        records = self.engine.search(
            dense=dense, sparse=sparse, flt=self.reader_filter(flt), limit=limit + _TIE_MARGIN, fusion=fusion,
            dense_params=dense_params, with_vectors=with_vectors,
        )
        records.sort(key=lambda r: (-(r.score or 0.0), r.id))
        return records[:limit]

    def facet(self, field: str, limit: int = 50) -> list[Any]:
        path = meta_path(field)
        if path not in self.indexes():
            kind = "keyword"
            sample = self.sample_metadata().get(field)
            if isinstance(sample, bool):
                kind = "bool"
            elif isinstance(sample, int):
                kind = "integer"
            self.engine.create_index(path, kind)
            self.indexes()[path] = kind
        return [value for value, _count in self.engine.facet(path, limit=limit, flt=self.reader_filter())]

    def sample_metadata(self) -> dict[str, Any]:
        records, _ = self.engine.scroll(self.reader_filter(), limit=1)
        return dict(records[0].payload.get(META_KEY, {})) if records else {}

    def indexed_vectors(self) -> int:
        return self.engine.indexed_vectors()
