"""Reconcile a collection with its sources: ingest what is new, replace what changed, delete what is gone.

Deletion rules (see docs/sync.md):
- only documents a source of this run wrote (chunk metadata ``sync_source``) are
  candidates, so a document ingested by hand is never deleted by sync;
- a source that could not be listed, or listed zero files, deletes nothing this run:
  an unreachable bucket and an emptied one look alike from outside;
- a source whose root changed kind (a folder that is a file now) was not seen;
- a listing cut short (a walk limit) deletes nothing of its source;
- a document listed by any source of the run, or refused by one, is kept, and so is
  every document under a folder a source could not read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..errors import SourceError
from ..hashing import sha256_file_from_path
from ..ingest import IngestItem, IngestRunner
from ..logs import REPORTED, get_logger
from ..providers.usage import add_into
from ..store import OWNER_FIELDS
from ..store.records import ACCESS_FIELD
from .base import Listing, Source, SourceEntry
from .stats import SourceStats, SyncStats

if TYPE_CHECKING:
    from ..store import Collection

log = get_logger(__name__)

# The chunk metadata naming the configured source a document was synced from, and where it reads.
SYNC_SOURCE_FIELD, SYNC_PLACE_FIELD = OWNER_FIELDS


# The access labels of one entry of a source (ragwire.access.labels.source_labeller).
Labeller = Callable[[Source, SourceEntry], list[str]]


@dataclass
class _Listed:
    source: Source
    listing: Listing | None
    # The documents the source owned before this run wrote anything (None: not read).
    owned: list[str] | None = None


def reconcile(sources: list[Source], runner: IngestRunner | None, *, delete_missing: bool = True,
              dry_run: bool = False, labels: Labeller | None = None) -> SyncStats:
    """Run one sync of ``sources`` into the runner's collection.

    Args:
        sources: The sources of this run (their keys are unique).
        runner: The ingest runner on the open collection; None for a dry run on a
            collection that does not exist yet (everything would be new).
        delete_missing: Delete documents of these sources that they no longer list.
        dry_run: Write, download and delete nothing; report what a real run would do.
        labels: The access labels of one entry of a source (:func:`ragwire.access.labels.source_labeller`);
            an unchanged file whose labels changed is relabelled without re-embedding.

    Raises:
        IngestAborted: the ingest itself stopped (store unreachable, model not loadable);
            nothing is deleted then.
    """
    stats = SyncStats(dry_run=dry_run)
    listed = [_list(source, stats) for source in sources]
    try:
        if runner is not None:
            _read_owned(listed, runner, stats, delete_missing)
        _ingest(listed, runner, stats, dry_run, labels)
        if delete_missing and runner is not None:
            _delete_missing(listed, runner, stats, dry_run)
    finally:
        for source in sources:
            source.close()
    log.info("%s", stats.summary(), extra=REPORTED)
    return stats


def _list(source: Source, stats: SyncStats) -> _Listed:
    mine = stats.source(source.key)
    try:
        listing = source.list()
    except SourceError as exc:
        mine.list_failed = True
        _warn(mine, f"{source.key}: not listed, so nothing of it is deleted this run: {exc}")
        return _Listed(source, None)
    mine.listed = len(listing.entries)
    mine.refused = len(listing.refused)
    mine.refused_files = [{"file": r.location, "reason": r.reason} for r in listing.refused]
    mine.unlisted = [{"folder": u.location, "reason": u.reason} for u in listing.unlisted]
    for part in listing.unlisted:
        _warn(mine, f"{source.key}: {part.location} could not be listed ({part.reason}), "
                    "so nothing stored under it is deleted this run")
    if listing.left_out is not None:
        _warn(mine, f"{source.key}: {listing.left_out}")
    if listing.truncated is not None:
        mine.truncated = True
        _warn(mine, f"{source.key}: listing incomplete ({listing.truncated}), so nothing of it is deleted this run")
    if not listing.entries and listing.complete:
        _warn(mine, f"{source.key}: listed zero files, so nothing of it is deleted this run "
                    "(an emptied source and an unreachable one look alike; delete by hand if it is really empty)")
    return _Listed(source, listing)


def _read_owned(listed: list[_Listed], runner: IngestRunner, stats: SyncStats, delete_missing: bool) -> None:
    """Read what each listed source owns, and set aside a source whose root changed kind.

    A root that was a folder and is a file now (or the other way round) lists what is
    there, not what the source held: it is treated as not seen, so nothing of it is
    ingested or deleted.
    """
    keys = {one.source.key for one in listed}
    for one in listed:
        if one.listing is None or (not delete_missing and one.listing.root_kind != "file"):
            continue
        one.owned = _owned(runner.collection, one.source, keys)
        reason = one.source.kind_changed(one.listing, one.owned)
        if reason is not None:
            mine = stats.source(one.source.key)
            mine.list_failed = True
            mine.listed = mine.refused = 0
            mine.refused_files, mine.unlisted = [], []
            _warn(mine, f"{one.source.key}: not listed, so nothing of it is ingested or deleted this run: {reason}")
            one.listing = None


def _warn(mine: SourceStats, text: str) -> None:
    """Record a warning in the source's stats and log it (the CLI prints the stats' copy)."""
    mine.warnings.append(text)
    log.warning("%s", text, extra=REPORTED)


def _ingest(listed: list[_Listed], runner: IngestRunner | None, stats: SyncStats, dry_run: bool,
            labels: Labeller | None = None) -> None:
    items: list[IngestItem] = []
    owners: list[tuple[str, SourceEntry]] = []
    for one in listed:
        if one.listing is None:
            continue
        mine = stats.source(one.source.key)
        for entry in one.listing.entries:
            if dry_run:
                _predict(one.source, entry, runner, mine)
                continue
            try:
                path = one.source.fetch(entry)
                labelled = {} if labels is None else {ACCESS_FIELD: labels(one.source, entry)}
            except SourceError as exc:
                mine.failed += 1
                mine.errors.append({"file": entry.location, "error": str(exc)})
                continue
            items.append(IngestItem(path, entry.identity, {**one.source.owner(), **labelled}))
            owners.append((one.source.key, entry))
        if not dry_run:
            mine.downloaded = getattr(one.source, "downloads", 0)
    if dry_run or not items or runner is None:
        return
    result = runner.run(items)
    # The runner records one outcome per item, in input order.
    for (key, entry), outcome in zip(owners, result.outcomes, strict=True):
        mine = stats.source(key)
        # A file that failed after its extraction made the calls all the same.
        add_into(mine.metadata_usage, outcome.metadata_usage)
        if outcome.status == "failed":
            mine.failed += 1
            mine.errors.append({"file": entry.location, "error": outcome.reason})
            continue
        if outcome.status == "skipped":
            mine.skipped += 1
            continue
        mine.processed += 1
        mine.replaced += int(outcome.replaced)
        mine.chunks_created += outcome.chunks
        mine.embedded_chunks += outcome.embedded
        mine.reused_chunks += outcome.reused


def _predict(source: Source, entry: SourceEntry, runner: IngestRunner | None, mine: SourceStats) -> None:
    """What the real run would do with ``entry``, decided the way the runner decides."""
    state = runner.collection.source_state(entry.identity) if runner is not None else None
    stored = bool(state and state.complete)
    if source.needs_fetch(entry):
        # A new download means new content (its ETag changed): it would be written.
        mine.downloaded += 1
        mine.processed += 1
        mine.replaced += int(stored)
        return
    try:
        file_hash = sha256_file_from_path(Path(source.fetch(entry)))
    except (OSError, SourceError) as exc:
        mine.failed += 1
        mine.errors.append({"file": entry.location, "error": f"cannot read ({exc})"})
        return
    if runner is not None and state is not None and runner.settings.is_current(state, file_hash):
        mine.skipped += 1
    else:
        mine.processed += 1
        mine.replaced += int(stored)


def _delete_missing(listed: list[_Listed], runner: IngestRunner, stats: SyncStats, dry_run: bool) -> None:
    coll = runner.collection
    # Listed or refused anywhere in this run: kept, whichever source stored it.
    present = {e.identity for one in listed if one.listing for e in one.listing.entries}
    present |= {r.identity for one in listed if one.listing for r in one.listing.refused}
    # Folders some source could not read: whatever is stored under them may still exist.
    unseen = [u.identity for one in listed if one.listing for u in one.listing.unlisted]
    keys = {one.source.key for one in listed}
    for one in listed:
        if one.listing is None or not one.listing.entries or one.listing.truncated is not None:
            continue  # the reason is in warnings already
        mine = stats.source(one.source.key)
        owned = one.owned if one.owned is not None else _owned(coll, one.source, keys)
        for identity in owned:
            if identity in present or any(_under(identity, folder) for folder in unseen):
                continue
            removed = coll.source_points(identity) if dry_run else coll.delete_source(identity)
            mine.deleted += 1
            mine.deleted_chunks += removed
            mine.deleted_sources.append(identity)
            log.info("%s: %s %d chunks (no longer in %s)", identity,
                     "would delete" if dry_run else "deleted", removed, one.source.key)


def _owned(coll: Collection, source: Source, keys: set[str]) -> list[str]:
    """The documents ``source`` owns: written under its key, or written from its place
    under a key no source of this run has (the same source before a rename; an unnamed
    source's key is its place, which covers documents from before places were recorded)."""
    owned = set(coll.sources_where(SYNC_SOURCE_FIELD, source.key))
    # One facet over the index for both ways an earlier name is found (each costs ~0.5 s at 20k chunks).
    as_key = [(SYNC_SOURCE_FIELD, source.place)] if source.place not in keys else []
    earlier = set(coll.sources_where(SYNC_PLACE_FIELD, source.place, *as_key))
    others = keys - {source.key}
    states = coll.source_states(sorted(earlier - owned))  # one pass over their chunks
    owned |= {identity for identity, state in states.items() if state.owner.get(SYNC_SOURCE_FIELD) not in others}
    return sorted(owned)


def _under(identity: str, folder: str) -> bool:
    """Whether ``identity`` is ``folder`` or lies beneath it (identities use ``/``)."""
    return identity == folder or identity.startswith(folder.rstrip("/") + "/")
