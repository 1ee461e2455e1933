"""Commit notes and the one visibility rule every read path goes through.

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

from .engine import Engine, PointData
from .filters import KIND_KEY, RUN_KEY, STATE_COMPLETE, STATE_KEY, Cond, Filter, meta_path, visible
from .records import NAMESPACE

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

    def to_point(self) -> PointData:
        return PointData(id=note_id(self.source), payload={
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
