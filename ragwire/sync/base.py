"""The source interface: list what exists (identity + fingerprint), fetch one file to a local path."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path

from ..store import OWNER_FIELDS


@dataclass(frozen=True)
class SourceEntry:
    """One file a source holds.

    Attributes:
        identity: The ``source`` string its chunks are stored under; stable across
            machines and mount points for named sources.
        fingerprint: Changes when the content may have changed (an S3 ETag and size,
            a local file's size and mtime); the content hash still decides what is re-embedded.
        location: Where it lives, for messages (a local path, ``s3://bucket/key``).
    """

    identity: str
    fingerprint: str
    location: str


@dataclass(frozen=True)
class Refused:
    """A candidate the source will not hand over (a key escaping the cache, an oversized
    or hidden file), with the reason.  Its stored document, if any, is kept."""

    identity: str
    location: str
    reason: str


@dataclass
class Listing:
    """What one :meth:`Source.list` returned.

    Attributes:
        entries: The files to sync.
        refused: Files the source would not hand over; their stored documents are kept.
        unlisted: Parts (folders) whose contents could not be read: every stored
            document whose identity is, or lies under, one of these identities is kept,
            and the run is partial.
        truncated: Why the listing stopped early (a walk limit), or None.  A truncated
            listing deletes nothing of its source, and the run is partial.
    """

    entries: list[SourceEntry] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    unlisted: list[Refused] = field(default_factory=list)
    truncated: str | None = None
    # What the source's root was when listed ("folder" or "file"), for sources that have
    # one: a root that changed kind (an unmounted folder with a placeholder file at its
    # path) was not seen, however many files it lists.
    root_kind: str | None = None
    # Files of a readable type the source's extensions leave out, in one line (None: none).
    left_out: str | None = None

    @property
    def complete(self) -> bool:
        """Whether every file of the source was seen."""
        return not self.unlisted and self.truncated is None


class Source(ABC):
    """A place sync reconciles the collection against.

    ``key`` names the source on every chunk it wrote (metadata ``sync_source``), so a
    run deletes only documents of the sources it was given.  ``place`` says where it
    reads from (metadata ``sync_place``: a folder, ``s3://bucket/prefix``), so a source
    that was renamed still owns what it wrote under its earlier name.
    """

    key: str
    place: str

    def owner(self) -> dict[str, str]:
        """The owner fields (``OWNER_FIELDS``) every document it writes carries."""
        source_field, place_field = OWNER_FIELDS
        return {source_field: self.key, place_field: self.place}

    def kind_changed(self, listing: Listing, owned: list[str]) -> str | None:
        """Why ``listing`` does not show what this source held before, judging by the
        identities it ``owned``; None when it does (the default: sources without a root kind)."""
        return None

    @abstractmethod
    def list(self) -> Listing:
        """Every file the source holds now.

        Raises:
            SourceError: the source could not be listed (sync then deletes nothing of it).
        """

    @abstractmethod
    def fetch(self, entry: SourceEntry) -> Path:
        """A local path holding the entry's current content (downloaded if needed).

        Raises:
            SourceError: this one file could not be fetched (it is reported as failed).
        """

    def relative(self, entry: SourceEntry) -> str:
        """The entry's path inside the source (``hr/leave.md``), which ``access_paths`` match."""
        return ""

    def tags(self, entry: SourceEntry) -> dict[str, str] | None:
        """The entry's object tags (S3), read for its access labels; None where a source has none."""
        return None

    def needs_fetch(self, entry: SourceEntry) -> bool:
        """Whether :meth:`fetch` would download (a dry run reports it, without downloading)."""
        return False

    def close(self) -> None:  # noqa: B027 - a hook: sources that keep state override it
        """Persist whatever the source keeps between runs (called once, when a sync finishes)."""
