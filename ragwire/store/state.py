"""What the collection holds for a source: its complete versions, leftovers, owner and reusable vectors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .engine import Engine
from .filters import META_KEY, STATE_COMPLETE, STATE_KEY, Cond, Filter, meta_path, visible
from .records import ACCESS_FIELD, OWNER_FIELDS, SETTINGS_KEY, VECTORS_KEY, source_filter


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
    # The access labels its complete chunks carry; None when none carries the field.
    labels: list[str] | None = None

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


def read_source_states(engine: Engine, sources: list[str]) -> dict[str, SourceState]:
    """What the collection holds for each of ``sources``, read in one pass over their chunks."""
    states = {s: SourceState(complete={}, pending=0, expected={}) for s in sources}
    if not sources:
        return states
    flt = Filter(must=[Cond(meta_path("source"), any_of=tuple(sources))])
    offset = None
    while True:
        records, offset = engine.scroll(
            flt, limit=1024, offset=offset,
            fields=[STATE_KEY, SETTINGS_KEY, meta_path("source"), meta_path("file_hash"),
                    meta_path("total_chunks"), meta_path(ACCESS_FIELD), *(meta_path(f) for f in OWNER_FIELDS)],
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
                if ACCESS_FIELD in meta and state.labels is None:
                    state.labels = sorted(meta[ACCESS_FIELD] or [])
            else:
                state.pending += 1
        if offset is None:
            break
    return states


def read_stored_vectors(engine: Engine, source: str, content_hashes: set[str] | None = None, *,
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
        records, offset = engine.scroll(flt, limit=256, offset=offset, with_vectors=True)
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
