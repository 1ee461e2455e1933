"""A ragwire collection on top of an engine: lifecycle, the writer lease, schema checks, writes, reads.

Chunks are written only through :meth:`Collection.commit`: ``pending``, then made visible
once a whole file is in (:mod:`ragwire.store.commits`), so readers never see half a document
and a crashed run is cleaned up by the next.  The engine stays private; reads are visible
(:meth:`Collection.reader_filter`) or, named so, raw.  Payload layout: :mod:`ragwire.store.records`.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Iterator

from ..chunk import Chunk
from ..logs import get_logger
from .commits import Commit, CommitSteps, Note, pending_points, read_notes, run_directly, visibility
from .engine import DenseParams, Engine, Fusion, Offset, Point
from .filters import (
    CI_KEY,
    KIND_KEY,
    META_KEY,
    STATE_KEY,
    STATE_PENDING,
    Cond,
    Filter,
    lowercase_shadow,
    meta_path,
)
from .lease import WriterLease
from .options import StoreOptions
from .records import (
    ACCESS_FIELD,
    META_POINT_ID,
    OWNER_FIELDS,
    CollectionMeta,
    all_chunks,
    chunk_point_id,
    source_filter,
    stale_filter,
)
from .schema import INITIAL_INDEXES, check_model, new_meta, wanted_indexes
from .scope import scoped
from .session import OpenSession
from .state import STATE_FIELDS, SourceListing, SourceState, add_states, add_vectors
from .writer import WriterGate

__all__ = ["Collection", "CollectionMeta", "SourceState", "OWNER_FIELDS", "META_POINT_ID",
           "chunk_point_id", "source_filter", "stale_filter"]

log = get_logger(__name__)

# Extra hits fetched so that ties at the cut-off are broken deterministically.
_TIE_MARGIN = 8

class Collection(CommitSteps, SourceListing):
    """The ragwire view of one Qdrant collection.  Use ``with collection.opened():`` around work."""

    def __init__(self, engine: Engine, name: str, options: StoreOptions | None = None) -> None:
        # Built by hand (a tool, a test) the engine closes as each block ends, so the next
        # handle on the folder never waits; open_collection passes the config's timings.
        options = options or StoreOptions(hold_open_s=0.0)
        self._engine = engine
        self.name = name
        self.options = options
        self.writer = WriterGate(engine, name, wait_s=options.write_wait_s, lease_ttl_s=options.lease_ttl_s)
        # Held while the collection is checked, created or dropped, and by every opening:
        # a thread opening the store mid-creation would load the folder beside the creator.
        self._ensure_lock = threading.RLock()
        self.session = OpenSession(engine, options.hold_open_s, on_close=self._forget)
        self._lock = self.session.lock
        self._meta: CollectionMeta | None = None
        # The engine generation _meta was read at: a reopen or a drop makes it stale.
        self._meta_generation = -1
        self._indexed: dict[str, str] | None = None
        self._notes: list[Note] | None = None
        self._notes_generation = -1

    # -- lifecycle -------------------------------------------------------
    @contextlib.contextmanager
    def opened(self) -> Iterator[Collection]:
        """Hold the engine open for the block; nested blocks share one open
        (:class:`ragwire.store.session.OpenSession`).

        Threads may read while another writes; only the opening waits for a creation or
        drop under way in another thread (the server's writer creating the collection
        while a request reads it).
        """
        with contextlib.ExitStack() as stack:
            with self._ensure_lock:
                stack.enter_context(self.session.opened())
            yield self

    def close(self) -> None:
        """Close the engine now (it must not be in use)."""
        self.session.close()

    def exists(self) -> bool:
        return self._engine.exists()

    @property
    def engine_name(self) -> str:
        return self._engine.name

    @property
    def location(self) -> str:
        return self._engine.location

    def drop(self) -> None:
        """Delete the collection and every point in it (waits for a run writing it)."""
        with self._ensure_lock, self.writing():
            self._engine.drop()
            self._forget()
            self.lease.holder = None  # its point went with the collection: nothing to give back

    def optimize(self) -> bool:
        """Build the vector index now (embedded engine); True when it was built."""
        return bool(self._engine.optimize())

    # -- the writer lease ----------------------------------------------------
    @property
    def lease(self) -> WriterLease:
        return self.writer.lease

    @contextlib.contextmanager
    def writing(self, wait_s: float | None = None) -> Iterator[Collection]:
        """Hold the right to write for the block (:class:`ragwire.store.writer.WriterGate`).

        Raises:
            StoreLockedError: the collection was still being written after ``wait_s``
                seconds (default: ``options.write_wait_s``).
        """
        with self.writer.hold(self.opened, wait_s):
            yield self

    def heartbeat(self) -> None:
        """Keep this run's writer lease alive; called on every write of the writing thread."""
        self.writer.heartbeat()

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
            if force_recreate and self._engine.exists():
                # Dropping is a write: it waits for any run writing the collection now.
                with self.writing():
                    self._ensure(embedding_model, dimension, sparse, force_recreate)
            else:
                self._ensure(embedding_model, dimension, sparse, force_recreate)

    def _ensure(self, embedding_model: str, dimension: int | None, sparse: bool, force_recreate: bool) -> None:
        where = f"collection '{self.name}' at {self._engine.location}"
        if force_recreate and self._engine.exists():
            chunks = self._engine.count(all_chunks())
            self._engine.drop()
            self._forget()
            log.warning("force_recreate: deleted %s and its %d chunks; it is created anew", where, chunks)
        elif self._engine.exists() and self.meta() is None and self._engine.count(None) == 0:
            log.warning("%s was left half-created by an interrupted run (no model record, no points); "
                        "rebuilding it", where)
            self._engine.drop()
            self._forget()
        if not self._engine.exists():
            if dimension is None:
                raise ValueError("creating a collection needs the embedding dimension")
            meta = new_meta(embedding_model, dimension, sparse)
            created = self._engine.create(dimension, sparse, meta.to_point(), list(INITIAL_INDEXES))
            self._indexed = None
            if created:
                self._meta, self._meta_generation = meta, self._engine.generation
                log.info("created collection '%s' (%s, %d-d, sparse=%s) at %s",
                         self.name, embedding_model, dimension, sparse, self._engine.location)
                return
            # Another process created it while we waited: check theirs like any existing one.
            self._forget()
        check_model(self.meta(), where, embedding_model, dimension, sparse)

    def _forget(self) -> None:
        self._meta = None
        self._indexed = None
        self._notes = None

    def meta(self) -> CollectionMeta | None:
        """The model record, read again after every real (re)open of the engine; None if absent."""
        with self._lock:
            if self._meta is None or self._meta_generation != self._engine.generation:
                self._meta = None
                records = self._engine.retrieve([META_POINT_ID])
                # Read after retrieve(): it may itself have opened the engine.
                generation = self._engine.generation
                if not records:
                    return None
                self._meta = CollectionMeta.from_payload(records[0].payload)
                self._meta_generation = generation
            return self._meta

    # -- indexes ---------------------------------------------------------
    def indexes(self) -> dict[str, str]:
        if self._indexed is None:
            self._indexed = dict(self._engine.indexes())
        return self._indexed

    def ensure_indexes(self, metadata: dict[str, Any] | list[dict[str, Any]], every_field: bool = False) -> None:
        """Create the indexes the chunks' metadata needs (:func:`ragwire.store.schema.wanted_indexes`)."""
        existing = self.indexes()
        for path, kind in wanted_indexes(metadata, every_field=every_field):
            if path not in existing:
                self._engine.create_index(path, kind)
                existing[path] = kind

    # -- writes: only through a commit --------------------------------------
    @contextlib.contextmanager
    def commit(self, source: str, run_id: str, *, file_hash: str | None = None, keep_other_versions: bool = False,
               fingerprints: dict[str, str] | None = None, call: Callable[..., Any] | None = None) -> Iterator[Commit]:
        """Write one source's new version: ``txn.write(chunks)`` in the block, visible once it ends.

        The block holds the writer lease (:meth:`writing`) and starts by discarding the
        source's pending leftovers; it ends with :meth:`commit_source`
        (``txn.removed``: the chunks it replaced).  Without ``file_hash`` the new chunks are
        added beside the stored ones (``add_texts``).  An exception in the block leaves its
        chunks pending, invisible, for the next write run to discard.  ``call(fn, *args)``
        runs each store step (ingest's retries).
        """
        run = call or run_directly

        def write(chunks: list[Chunk]) -> None:
            run(self.ensure_indexes, [c.metadata for c in chunks])
            run(self.write_pending, chunks, run_id, fingerprints=fingerprints)

        with self.writing():
            run(self.discard_pending, source)
            txn = Commit(source, run_id, write)
            yield txn
            txn.removed = run(self.commit_source, source, file_hash, run_id, keep_other_versions=keep_other_versions)

    def write_pending(self, chunks: list[Chunk], run_id: str, fingerprints: dict[str, str] | None = None) -> None:
        """Store chunks invisible to readers (a step of :meth:`commit`)."""
        points = pending_points(chunks, run_id, fingerprints or {})
        self.heartbeat()
        self._engine.upsert(points)

    # -- commit notes: read once per open -------------------------------------
    def _commit_notes(self) -> list[Note]:
        """Every commit under way or interrupted by a crash; none without the index.  An embedded
        store is read once per open: no other process writes it meanwhile, and this collection's
        own commits say when they change the notes.  A server's other clients may, at any time."""
        if KIND_KEY not in self.indexes():
            return []  # no commit has ever written a note here
        with self._lock:
            if self._notes is None or self._notes_generation != self._engine.generation or not self._engine.exclusive:
                notes = read_notes(self._engine)
                self._notes, self._notes_generation = notes, self._engine.generation
            return list(self._notes)

    def reader_filter(self, flt: Filter | None = None) -> Filter:
        """What readers may see (:func:`ragwire.store.commits.visibility`, narrowed by the caller's
        :mod:`~ragwire.store.scope`); every read path goes through here.

        At every step of a commit, and after a crash at any of them, each document
        has exactly one complete version visible.
        """
        return visibility(self._commit_notes()).and_(scoped(flt))

    def remove_other_versions(self, source: str, keep_hash: str | None) -> int:
        stale = source_filter(source)
        if keep_hash is not None:
            stale.must_not.append(Cond(meta_path("file_hash"), value=keep_hash))
        return self._delete_counted(stale)

    def discard_pending(self, source: str) -> int:
        return self._delete_counted(source_filter(source).and_(Filter(must=[Cond(STATE_KEY, value=STATE_PENDING)])))

    def _delete_counted(self, flt: Filter) -> int:
        """Delete the points matching ``flt``; returns how many there were."""
        count = self._engine.count(flt)
        if count:
            self.heartbeat()
            self._engine.delete(flt)
        return count

    def set_owner(self, source: str, owner: dict[str, Any]) -> None:
        """Record ``owner`` (OWNER_FIELDS; ACCESS_FIELD: a relabel) on every chunk of ``source``, without rewriting them."""
        unknown = set(owner) - {*OWNER_FIELDS, ACCESS_FIELD}
        if unknown:
            raise ValueError(f"not owner fields: {sorted(unknown)}")
        self.heartbeat()
        self.ensure_indexes(owner)  # sources_where finds owners through their index
        self._engine.set_payload(source_filter(source), dict(owner), key=META_KEY)
        # labels are lower case already, and an empty list must replace the old ones too
        self._engine.set_payload(source_filter(source), {**lowercase_shadow(owner), **{
            k: v for k, v in owner.items() if k == ACCESS_FIELD}}, key=CI_KEY)

    def delete_source(self, source: str) -> int:
        return self.remove_other_versions(source, None)

    # -- state -----------------------------------------------------------
    def source_state(self, source: str) -> SourceState:
        return self.source_states([source])[source]

    def source_states(self, sources: list[str]) -> dict[str, SourceState]:
        """What the collection holds for each of ``sources``, read raw (pending chunks and every
        version count) in one pass over their chunks."""
        states = {s: SourceState(complete={}, pending=0, expected={}) for s in sources}
        if sources:
            flt = Filter(must=[Cond(meta_path("source"), any_of=tuple(sources))])
            for records in self._pages(self._raw_scroll, flt, 1024, fields=STATE_FIELDS):
                add_states(states, records)
        return states

    def stored_vectors(self, source: str, content_hashes: set[str] | None = None, *,
                       vectors_fingerprint: str | None = None) -> dict[str, tuple[list[float] | None, Any]]:
        """content_hash → (dense, sparse) of a source's visible chunks, for reuse (:func:`.state.add_vectors`).

        Only ``content_hashes`` are read when given, so a replaced file costs the vectors it can use.
        """
        out: dict[str, tuple[list[float] | None, Any]] = {}
        if content_hashes is not None and not content_hashes:
            return out
        flt = source_filter(source)
        if content_hashes is not None:
            flt = flt.and_(Filter(must=[Cond(meta_path("content_hash"), any_of=tuple(sorted(content_hashes)))]))
        for records in self._pages(self.scroll, flt, 256, with_vectors=True):
            add_vectors(out, records, vectors_fingerprint)
        return out

    @staticmethod
    def _pages(read: Callable[..., tuple[list[Point], Offset]], flt: Filter, size: int,
               **options: object) -> Iterator[list[Point]]:
        offset = None
        while True:
            records, offset = read(flt, limit=size, offset=offset, **options)
            yield records
            if offset is None:
                return

    # -- reads -----------------------------------------------------------
    def count(self, flt: Filter | None = None) -> int:
        return self._engine.count(self.reader_filter(flt))

    def scroll(self, flt: Filter | None = None, *, limit: int, offset: Offset = None,
               fields: list[str] | None = None, with_vectors: bool = False) -> tuple[list[Point], Offset]:
        """One page of the chunks readers may see; pass the returned offset for the next."""
        return self._engine.scroll(self.reader_filter(flt), limit=limit, offset=offset, fields=fields,
                                   with_vectors=with_vectors)

    def _raw_scroll(self, flt: Filter | None, *, limit: int, offset: Offset = None,
                    fields: list[str] | None = None) -> tuple[list[Point], Offset]:
        """One page of every point ``flt`` matches, pending and replaced ones too (the writer's view)."""
        return self._engine.scroll(flt, limit=limit, offset=offset, fields=fields)

    def search(self, *, dense=None, sparse=None, flt: Filter | None = None, limit: int = 5,
               fusion: Fusion | None = None, dense_params: DenseParams | None = None,
               with_vectors: bool = False) -> list[Point]:
        # RRF gives exact ties; engines break them arbitrarily.  Fetch a few extra and
        # order ties by id, so the same query on the same data returns the same list.
        records = self._engine.search(
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
            self._engine.create_index(path, kind)
            self.indexes()[path] = kind
        return [value for value, _count in self._engine.facet(path, limit=limit, flt=self.reader_filter())]

    def sample_metadata(self) -> dict[str, Any]:
        records, _ = self._engine.scroll(self.reader_filter(), limit=1)
        return dict(records[0].payload.get(META_KEY, {})) if records else {}

    def indexed_vectors(self) -> int:
        return self._engine.indexed_vectors()
