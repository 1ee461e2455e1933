"""Commits: the one way chunks are written (:class:`Commit`, opened by ``Collection.commit``),
their notes, and the one visibility rule every read path goes through.

A file's new version is written ``pending``; then a note names the source, the
run and the new content; then the new chunks are flipped to ``complete``, what they
replace is deleted, and the note goes.  Writing the note is the switch: while it
exists readers see that source only as the version it names, pending or flipped,
so a crash between any two steps shows exactly one complete version of the
document, and the next write run finishes the steps the note lists.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Callable

from ..chunk import Chunk
from ..errors import StoreError
from ..logs import get_logger
from .engine import Engine, Point
from .filters import (
    KIND_KEY,
    RUN_KEY,
    STATE_COMPLETE,
    STATE_KEY,
    STATE_PENDING,
    Cond,
    Filter,
    meta_path,
    visible,
)
from .records import NAMESPACE, SETTINGS_KEY, VECTORS_KEY, chunk_payload, stale_filter

log = get_logger(__name__)

COMMIT_KIND = "commit"
COMMIT_SOURCE_KEY = "_commit_source"
COMMIT_HASH_KEY = "_commit_hash"
# The content the commit makes visible (absent on notes written before version 0.3).
COMMIT_NEW_HASH_KEY = "_commit_new_hash"


@dataclass(frozen=True)
class Note:
    """``run_id`` makes ``new_hash`` of ``source`` visible, replacing the source's
    other chunks (only those of ``same_hash`` when it is set)."""

    source: str
    run_id: str
    same_hash: str | None
    new_hash: str | None

    def to_point(self) -> Point:
        return Point(id=note_id(self.source), payload={
            KIND_KEY: COMMIT_KIND, COMMIT_SOURCE_KEY: self.source, RUN_KEY: self.run_id,
            COMMIT_HASH_KEY: self.same_hash, COMMIT_NEW_HASH_KEY: self.new_hash,
        })


def note_id(source: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"ragwire:commit\x00{source}"))


def note_filter(source: str | None = None) -> Filter:
    flt = Filter(must=[Cond(KIND_KEY, value=COMMIT_KIND)])
    if source is not None:
        flt.must.append(Cond(COMMIT_SOURCE_KEY, value=source))
    return flt


def new_version(source: str, run_id: str, file_hash: str | None) -> Filter:
    """The chunks one commit makes visible."""
    flt = Filter(must=[Cond(meta_path("source"), value=source), Cond(RUN_KEY, value=run_id)])
    if file_hash is not None:
        flt.must.append(Cond(meta_path("file_hash"), value=file_hash))
    return flt


def read_notes(engine: Engine) -> list[Note]:
    """Every commit under way or interrupted by a crash (call only once the note index exists)."""
    notes: list[Note] = []
    offset = None
    while True:
        records, offset = engine.scroll(note_filter(), limit=256, offset=offset)
        notes += [Note(r.payload[COMMIT_SOURCE_KEY], r.payload[RUN_KEY], r.payload.get(COMMIT_HASH_KEY),
                       r.payload.get(COMMIT_NEW_HASH_KEY))
                  for r in records if COMMIT_SOURCE_KEY in r.payload]
        if offset is None:
            return notes


def visibility(notes: list[Note]) -> Filter:
    """What readers may see, given the open commit notes.

    Complete chunks, except for a source with a note: that source shows only the
    version the note names (pending or flipped) and, when the commit keeps other
    contents, those.
    """
    if not notes:
        return visible()
    noted = tuple(sorted({note.source for note in notes}))
    shown = Filter(should=[Filter(must=[Cond(STATE_KEY, value=STATE_COMPLETE)],
                                  must_not=[Cond(meta_path("source"), any_of=noted)])])
    for note in notes:
        shown.should.append(new_version(note.source, note.run_id, note.new_hash))
        if note.same_hash is not None:
            shown.should.append(Filter(
                must=[Cond(STATE_KEY, value=STATE_COMPLETE), Cond(meta_path("source"), value=note.source)],
                must_not=[Cond(meta_path("file_hash"), value=note.same_hash)],
            ))
    return shown


# A content hash no chunk carries: a commit that replaces nothing (``add_texts``) names it as
# the content it replaces, so its note and its cleanup leave every other chunk alone.
_APPEND = "ragwire:append"


def run_directly(fn: Callable[..., Any], *args: object, **kwargs: object) -> Any:
    return fn(*args, **kwargs)


class Commit:
    """One source's new version in the making, yielded by ``Collection.commit``.

    :meth:`write` stores chunks ``pending`` (invisible); when the block ends they are made
    visible in one commit (:meth:`CommitSteps.commit_source`) and ``removed`` says how many
    chunks they replaced.
    """

    def __init__(self, source: str, run_id: str, write: Callable[[list[Chunk]], None]) -> None:
        self.source = source
        self.run_id = run_id
        self._write = write
        self.written = 0
        self.removed = 0

    def write(self, chunks: list[Chunk]) -> None:
        """Store ``chunks`` of this source (each placed: :meth:`Chunk.placed`) invisible to readers, with the
        indexes their metadata needs."""
        if chunks:
            self._write(chunks)
            self.written += len(chunks)


def pending_points(chunks: list[Chunk], run_id: str, prints: dict[str, str]) -> list[Point]:
    """The points of chunks invisible to readers; ``prints`` (settings, vectors fingerprints) go on each."""
    return [
        Point(id=_placed_id(c), dense=c.dense, sparse=c.sparse, payload={
            **chunk_payload(c), STATE_KEY: STATE_PENDING, RUN_KEY: run_id,
            SETTINGS_KEY: prints.get("settings", ""), VECTORS_KEY: prints.get("vectors", ""),
        })
        for c in chunks
    ]


def _placed_id(chunk: Chunk) -> str:
    if chunk.id is None:
        raise StoreError(f"a chunk of {chunk.book.source or 'an unnamed source'} has no point id: "
                         "write chunk.placed(id, dense, sparse), not the bare chunk")
    return chunk.id


class CommitSteps:
    """The steps of a commit, part of ``Collection`` (which supplies the engine, its indexes and the lease)."""

    _engine: Engine
    _notes: list[Note] | None

    def indexes(self) -> dict[str, str]:
        raise NotImplementedError

    def heartbeat(self) -> None:
        raise NotImplementedError

    def _delete_counted(self, flt: Filter) -> int:
        raise NotImplementedError

    def _commit_notes(self) -> list[Note]:
        raise NotImplementedError

    def commit_source(self, source: str, file_hash: str | None, run_id: str, keep_other_versions: bool = False) -> int:
        """Make one file's new version visible, then remove what it replaces.

        Steps: a commit note, the flip of the new chunks to ``complete``, the delete of
        what they replace, the removal of the note.  Writing the note is the switch:
        from then on readers see this source only as the new version
        (``Collection.reader_filter``), pending or flipped, so a crash between any two
        steps shows exactly one complete version, and the next write run finishes the
        remaining steps (:meth:`repair_interrupted_commits`).  The note is written only once
        every chunk of the new version is stored.  With ``keep_other_versions`` only leftovers
        of this same content are replaced; without a ``file_hash`` nothing is.  Returns the
        number of chunks removed.
        """
        if file_hash is None:
            note = Note(source, run_id, _APPEND, None)
        else:
            note = Note(source, run_id, file_hash if keep_other_versions else None, file_hash)
        self.heartbeat()
        self.write_note(note)
        return self._finish(note)

    def write_note(self, note: Note) -> None:
        """Store ``note`` (the switch of a commit), with the index notes are found by."""
        if KIND_KEY not in self.indexes():
            self._engine.create_index(KIND_KEY, "keyword")
            self.indexes()[KIND_KEY] = "keyword"
        self._engine.upsert([note.to_point()])
        self._notes_changed()

    def _finish(self, note: Note) -> int:
        """The steps after the note; each is idempotent, so a repair may run them again."""
        self._engine.set_payload(new_version(note.source, note.run_id, note.new_hash), {STATE_KEY: STATE_COMPLETE})
        removed = self._delete_counted(stale_filter(note.source, note.run_id, note.same_hash))
        self._engine.delete(note_filter(note.source))
        self._notes_changed()
        return removed

    def repair_interrupted_commits(self) -> int:
        """Finish the commits a crash interrupted (flip, delete, note); returns how many there were."""
        notes = self._commit_notes()
        for note in notes:
            removed = self._finish(note)
            log.info("%s: finished an interrupted replacement (%d old chunks removed)", note.source, removed)
        return len(notes)

    def _notes_changed(self) -> None:
        self._notes = None
