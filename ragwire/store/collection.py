"""A ragwire collection on top of an engine: lifecycle, the writer lease, schema checks, writes, reads.

Chunks are written ``pending`` and made visible once a whole file is in
(:mod:`ragwire.store.commits`), so readers never see half a document and a
crashed run is cleaned up by the next.  What is stored is laid out in
:mod:`ragwire.store.records`; per-source state is read by :mod:`ragwire.store.state`.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

from ..logs import get_logger
from .commits import Note, new_version, note_filter, read_notes, visibility
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
    lowercase_shadow,
    meta_path,
)
from .lease import WriterLease
from .options import StoreOptions
from .records import (
    ACCESS_FIELD,
    META_POINT_ID,
    OWNER_FIELDS,
    SETTINGS_KEY,
    VECTORS_KEY,
    ChunkRecord,
    CollectionMeta,
    all_chunks,
    chunk_point_id,
    source_filter,
    stale_filter,
)
from .schema import INITIAL_INDEXES, check_model, new_meta, wanted_indexes
from .scope import scoped
from .session import OpenSession
from .state import SourceState, read_source_states, read_stored_vectors
from .writer import WriterGate

__all__ = ["Collection", "ChunkRecord", "CollectionMeta", "SourceState", "OWNER_FIELDS", "META_POINT_ID",
           "chunk_point_id", "source_filter", "stale_filter"]

log = get_logger(__name__)

# Extra hits fetched so that ties at the cut-off are broken deterministically.
_TIE_MARGIN = 8

class Collection:
    """The ragwire view of one Qdrant collection.  Use ``with collection.opened():`` around work."""

    def __init__(self, engine: Engine, name: str, options: StoreOptions | None = None) -> None:
        # Built by hand (a tool, a test) the engine closes as each block ends, so the next
        # handle on the folder never waits; open_collection passes the config's timings.
        options = options or StoreOptions(hold_open_s=0.0)
        self.engine = engine
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
        return self.engine.exists()

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
            if force_recreate and self.engine.exists():
                # Dropping is a write: it waits for any run writing the collection now.
                with self.writing():
                    self._ensure(embedding_model, dimension, sparse, force_recreate)
            else:
                self._ensure(embedding_model, dimension, sparse, force_recreate)

    def _ensure(self, embedding_model: str, dimension: int | None, sparse: bool, force_recreate: bool) -> None:
        where = f"collection '{self.name}' at {self.engine.location}"
        if force_recreate and self.engine.exists():
            chunks = self.engine.count(all_chunks())
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
            meta = new_meta(embedding_model, dimension, sparse)
            created = self.engine.create(dimension, sparse, meta.to_point(), list(INITIAL_INDEXES))
            self._indexed = None
            if created:
                self._meta, self._meta_generation = meta, self.engine.generation
                log.info("created collection '%s' (%s, %d-d, sparse=%s) at %s",
                         self.name, embedding_model, dimension, sparse, self.engine.location)
                return
            # Another process created it while we waited: check theirs like any existing one.
            self._forget()
        check_model(self.meta(), where, embedding_model, dimension, sparse)

    def _forget(self) -> None:
        self._meta = None
        self._indexed = None

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
                self._meta = CollectionMeta.from_payload(records[0].payload)
                self._meta_generation = generation
            return self._meta

    # -- indexes ---------------------------------------------------------
    def indexes(self) -> dict[str, str]:
        if self._indexed is None:
            self._indexed = dict(self.engine.indexes())
        return self._indexed

    def ensure_indexes(self, metadata: dict[str, Any] | list[dict[str, Any]], every_field: bool = False) -> None:
        """Create the indexes the chunks' metadata needs (:func:`ragwire.store.schema.wanted_indexes`)."""
        existing = self.indexes()
        for path, kind in wanted_indexes(metadata, every_field=every_field):
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
        note = Note(source, run_id, file_hash if keep_other_versions else None, file_hash)
        self.heartbeat()
        self._ensure_commit_index()
        self.engine.upsert([note.to_point()])
        return self._finish_commit(note)

    def _finish_commit(self, note: Note) -> int:
        """The steps after the note; each is idempotent, so a repair may run them again."""
        self.engine.set_payload(new_version(note.source, note.run_id, note.new_hash), {STATE_KEY: STATE_COMPLETE})
        removed = self._delete_counted(stale_filter(note.source, note.run_id, note.same_hash))
        self.engine.delete(note_filter(note.source))
        return removed

    # -- commit notes -------------------------------------------------------
    def _ensure_commit_index(self) -> None:
        if KIND_KEY not in self.indexes():
            self.engine.create_index(KIND_KEY, "keyword")
            self.indexes()[KIND_KEY] = "keyword"

    def _commit_notes(self) -> list[Note]:
        """Every commit under way or interrupted by a crash; none without the index."""
        if KIND_KEY not in self.indexes():
            return []  # no commit has ever written a note here
        return read_notes(self.engine)

    def repair_interrupted_commits(self) -> int:
        """Finish the commits a crash interrupted (flip, delete, note); returns how many there were."""
        notes = self._commit_notes()
        for note in notes:
            removed = self._finish_commit(note)
            log.info("%s: finished an interrupted replacement (%d old chunks removed)", note.source, removed)
        return len(notes)

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
        count = self.engine.count(flt)
        if count:
            self.heartbeat()
            self.engine.delete(flt)
        return count

    def set_owner(self, source: str, owner: dict[str, Any]) -> None:
        """Record ``owner`` (OWNER_FIELDS; ACCESS_FIELD: a relabel) on every chunk of ``source``, without rewriting them."""
        unknown = set(owner) - {*OWNER_FIELDS, ACCESS_FIELD}
        if unknown:
            raise ValueError(f"not owner fields: {sorted(unknown)}")
        self.heartbeat()
        self.ensure_indexes(owner)  # sources_where finds owners through their index
        self.engine.set_payload(source_filter(source), dict(owner), key=META_KEY)
        # labels are lower case already, and an empty list must replace the old ones too
        self.engine.set_payload(source_filter(source), {**lowercase_shadow(owner), **{
            k: v for k, v in owner.items() if k == ACCESS_FIELD}}, key=CI_KEY)

    def delete_source(self, source: str) -> int:
        return self.remove_other_versions(source, None)

    # -- state -----------------------------------------------------------
    def source_state(self, source: str) -> SourceState:
        return self.source_states([source])[source]

    def source_states(self, sources: list[str]) -> dict[str, SourceState]:
        """What the collection holds for each of ``sources``, read in one pass over their chunks."""
        return read_source_states(self.engine, sources)

    def stored_vectors(self, source: str, content_hashes: set[str] | None = None, *,
                       vectors_fingerprint: str | None = None) -> dict[str, tuple[list[float] | None, Any]]:
        """content_hash → (dense, sparse) of a source's complete chunks, for reuse (see :mod:`.state`)."""
        return read_stored_vectors(self.engine, source, content_hashes, vectors_fingerprint=vectors_fingerprint)

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

    def sources_where(self, field: str, value: str, *more: tuple[str, str]) -> list[str]:
        """Every source with a chunk (pending ones included) whose metadata ``field`` equals
        ``value``, or matches any further ``(field, value)`` pair (one pass over the index)."""
        known = self.indexes()
        pairs = [(f, v) for f, v in ((field, value), *more) if meta_path(f) in known]
        if not pairs:
            return []  # no chunk ever carried the fields
        either = Filter(should=[Cond(meta_path(f), value=v) for f, v in pairs])
        flt = all_chunks().and_(either)
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
