"""The one chunk every stage passes, from the splitter to the store: :class:`Chunk`.

Its text, where it lies (:class:`Location`), how ragwire stored it (:class:`Bookkeeping`)
and ``extra``: everything else, the file's properties, the LLM's fields, OCR details, a
caller's own metadata.  The store keeps a chunk as one flat metadata dict (what users
filter on and what the public API's Documents carry); :attr:`Chunk.metadata` and
:meth:`Chunk.from_metadata` are the two directions of that one mapping, so a new field
is added to one of these classes and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .fields import LOCATION_FIELDS


@dataclass(frozen=True)
class Location:
    """Where a chunk lies in its file, as far as its splitter and loader know (None: unknown).

    ``heading_path`` is the section path (``"Guide > Install"``); ``page_number`` the
    first page, ``page_end`` the last, ``page_label`` the first page's printed label;
    ``page_starts`` where each later page begins within the text, so a quoted sentence
    can name its own page.
    """

    heading_path: str | None = None
    page_number: int | None = None
    page_end: int | None = None
    page_total: int | None = None
    page_label: str | None = None
    page_starts: tuple[int, ...] | None = None

    @classmethod
    def of(cls, where: Mapping[str, Any]) -> Location:
        """The location the location fields of ``where`` give (other keys ignored)."""
        known = {name: where[name] for name in LOCATION_FIELDS if where.get(name) is not None}
        if "page_starts" in known:
            known["page_starts"] = tuple(known["page_starts"])
        return cls(**known)

    def fields(self) -> dict[str, Any]:
        """The known fields by name, as stored (``page_starts`` a list)."""
        known = {name: getattr(self, name) for name in LOCATION_FIELDS if getattr(self, name) is not None}
        if "page_starts" in known:
            known["page_starts"] = list(known["page_starts"])
        return known


@dataclass(frozen=True)
class Bookkeeping:
    """How a chunk was stored, not what it says: its file, ids, hashes, when, which sync source owns it
    and the access labels a reader needs one of (``ragwire.access``; an empty list is kept).

    Every field is None until the stage that knows it sets it (a text added through
    LangChain's ``add_texts`` has only ``source`` and ``content_hash``).
    """

    source: str | None = None
    file_name: str | None = None
    file_type: str | None = None
    file_hash: str | None = None
    chunk_id: str | None = None
    chunk_index: int | None = None
    total_chunks: int | None = None
    content_hash: str | None = None
    chunk_hash: str | None = None
    created_at: str | None = None
    metadata_status: str | None = None
    sync_source: str | None = None
    sync_place: str | None = None
    access: list[str] | None = None

    def fields(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}


# The names Bookkeeping owns in the flat metadata (Location owns LOCATION_FIELDS); everything else is ``extra``.
BOOK_FIELDS = tuple(f.name for f in fields(Bookkeeping))


@dataclass(frozen=True)
class Chunk:
    """A chunk of text with its typed location, its bookkeeping and ``extra`` metadata.

    ``id``, ``dense`` and ``sparse`` are set once the chunk is placed and embedded, just before it is written.
    """

    text: str
    location: Location = Location()
    book: Bookkeeping = Bookkeeping()
    extra: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None
    dense: list[float] | None = None
    sparse: tuple[list[int], list[float]] | None = None

    @classmethod
    def at(cls, text: str, where: Mapping[str, Any]) -> Chunk:
        """A chunk of ``text`` placed by the location fields of ``where`` (other keys ignored)."""
        return cls(text, Location.of(where))

    @classmethod
    def from_metadata(cls, text: str, metadata: Mapping[str, Any], *, id: str | None = None,
                      dense: list[float] | None = None, sparse: tuple[list[int], list[float]] | None = None) -> Chunk:
        """The chunk a flat metadata dict (as stored) describes, with its point id and vectors when known."""
        book = {name: metadata[name] for name in BOOK_FIELDS if metadata.get(name) is not None}
        extra = {k: v for k, v in metadata.items() if k not in LOCATION_FIELDS and k not in BOOK_FIELDS}
        return cls(text, Location.of(metadata), Bookkeeping(**book), extra, id, dense, sparse)

    @property
    def metadata(self) -> dict[str, Any]:
        """The flat metadata dict stored with the chunk (a fresh dict): extra, then location, then bookkeeping."""
        return {**self.extra, **self.location.fields(), **self.book.fields()}

    def placed(self, id: str, dense: list[float] | None, sparse: tuple[list[int], list[float]] | None) -> Chunk:
        """This chunk with its point id and vectors, ready to write."""
        return replace(self, id=id, dense=dense, sparse=sparse)
