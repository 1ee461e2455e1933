"""What the collection holds for a source: its complete versions, leftovers, owner and reusable vectors,
folded from the pages :class:`ragwire.store.Collection` reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .engine import Engine, Point
from .filters import META_KEY, STATE_COMPLETE, STATE_KEY, Cond, Filter, meta_path
from .records import ACCESS_FIELD, OWNER_FIELDS, SETTINGS_KEY, VECTORS_KEY, all_chunks, source_filter


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


# What add_states reads of each chunk.
STATE_FIELDS = [STATE_KEY, SETTINGS_KEY, meta_path("source"), meta_path("file_hash"), meta_path("total_chunks"),
                meta_path(ACCESS_FIELD), *(meta_path(f) for f in OWNER_FIELDS)]


def add_states(states: dict[str, SourceState], records: list[Point]) -> None:
    """Count one page of chunks (every state, read raw) into the states of their sources."""
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


def add_vectors(out: dict[str, tuple[list[float] | None, Any]], records: list[Point],
                vectors_fingerprint: str | None) -> None:
    """content_hash → (dense, sparse) of one page of visible chunks, for reuse.

    With ``vectors_fingerprint``, vectors made under other embedding settings are left
    out (chunks without a fingerprint predate them and are trusted, like their model record).
    """
    for rec in records:
        made_with = rec.payload.get(VECTORS_KEY) or ""
        if vectors_fingerprint is not None and made_with and made_with != vectors_fingerprint:
            continue
        ch = rec.payload.get(META_KEY, {}).get("content_hash")
        if ch and rec.dense is not None:
            out.setdefault(ch, (rec.dense, rec.sparse))


class SourceListing:
    """Which sources the collection holds, part of ``Collection`` (which supplies the engine,
    its indexes and the reader filter)."""

    _engine: Engine

    def indexes(self) -> dict[str, str]:
        raise NotImplementedError

    def reader_filter(self, flt: Filter | None = None) -> Filter:
        raise NotImplementedError

    def source_count(self) -> int:
        return len(self._engine.facet(meta_path("source"), limit=10_000_000, flt=self.reader_filter()))

    def sources(self) -> dict[str, str]:
        """Every source with a complete version → its file hash."""
        out: dict[str, str] = {}
        shown = self.reader_filter()
        for value, _count in self._engine.facet(meta_path("source"), limit=10_000_000, flt=shown):
            out[str(value)] = ""
        for source in list(out):
            hashes = self._engine.facet(meta_path("file_hash"), limit=10, flt=source_filter(source).and_(shown))
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
        return sorted(str(v) for v, _count in self._engine.facet(meta_path("source"), limit=10_000_000, flt=flt))

    def source_points(self, source: str) -> int:
        """Every point of a source, pending and older versions included: what :meth:`delete_source` removes."""
        return self._engine.count(source_filter(source))
