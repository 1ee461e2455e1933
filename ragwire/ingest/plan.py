"""Planning an ingest run: per file, skip it (unchanged), fail it early, or prepare it.

Store state is read for ``PLAN_WINDOW`` files at a time, so an unchanged corpus
costs few queries; decisions go out in input order, so stats and logs never depend
on timing.  An unchanged file keeps (or takes) its owner without being rewritten.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterator

from ..hashing import FileVersion, sha256_file_at_rest
from ..logs import get_logger
from ..store import OWNER_FIELDS, Collection
from ..store.records import ACCESS_FIELD
from .items import IngestItem
from .prepare import CHANGING, Prepared
from .settings import IngestSettings

log = get_logger(__name__)

# Files whose stored state is read in one query while planning.
PLAN_WINDOW = 256


def unstorable_name(source: str) -> str | None:
    """Why a file cannot be stored under ``source``, or None.

    A file name that is not valid UTF-8 reaches Python with surrogate escapes, which no
    store payload can hold: that file fails alone, named readably, and the run goes on.
    """
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(source).decode("utf-8", errors="backslashreplace")
        return f"{shown}: the file name is not valid UTF-8; rename it to store it"
    return None


class Planned:
    """A planned file that needs no preparation (skipped or failed before loading)."""

    def __init__(self, index: int, path: Path, kind: str, reason: str = "") -> None:
        self.index = index
        self.path = path
        self.kind = kind
        self.reason = reason


def plan(paths: list[IngestItem], collection: Collection, settings: IngestSettings, force: bool,
         store_call: Callable[..., Any]) -> Iterator[Prepared | Planned]:
    """Decide per file; ``store_call(fn, *args)`` runs a store read or repair the run depends on."""
    seen: set[str] = set()
    for start in range(0, len(paths), PLAN_WINDOW):
        decided: list[Prepared | Planned] = []
        window: list[tuple[int, Path, str, str]] = []
        versions: dict[int, FileVersion] = {}
        for index in range(start, min(start + PLAN_WINDOW, len(paths))):
            path, source = paths[index].path, paths[index].source
            if source in seen:
                decided.append(Planned(index, path, "skipped", "listed twice in this run"))
                continue
            seen.add(source)
            if not path.is_file():
                decided.append(Planned(index, path, "failed", f"{path.name}: file not found at {source}"))
                continue
            unnamed = unstorable_name(source)
            if unnamed is not None:
                decided.append(Planned(index, path, "failed", unnamed))
                continue
            try:
                hashed = sha256_file_at_rest(path)
            except OSError as exc:
                reason = f"{path.name}: cannot read ({exc.strerror or exc})"
                decided.append(Planned(index, path, "failed", reason))
                continue
            if hashed is None:
                decided.append(Planned(index, path, "failed", f"{path.name}: {CHANGING}"))
                continue
            window.append((index, path, source, hashed[0]))
            versions[index] = hashed[1]
        states = store_call(collection.source_states, [source for _, _, source, _ in window])
        for index, path, source, file_hash in window:
            state = states[source]
            metadata = paths[index].metadata
            if not any(name in metadata for name in OWNER_FIELDS) and state.owner:
                # A hand ingest or a forced rewrite of a synced document keeps its owner,
                # so the sync that owns it still deletes it once its file is gone.
                metadata = {**state.owner, **metadata}
            if ACCESS_FIELD not in metadata:
                # An ingest naming no labels keeps those stored; a new document takes access.default.
                stored = state.labels if state.labels is not None else list(settings.default_labels)
                metadata = {**metadata, ACCESS_FIELD: stored}
            if not force and settings.is_current(state, file_hash):
                owner = {name: metadata[name] for name in OWNER_FIELDS if name in metadata}
                if any(state.owner.get(name) != value for name, value in owner.items()):
                    # Unchanged content, new owner (a source renamed, a hand-ingested file
                    # now listed by a sync): recorded without re-embedding.
                    store_call(collection.set_owner, source, owner)
                    log.info("%s: now owned by sync source %s", path.name, owner.get("sync_source"))
                if state.labels != sorted(metadata[ACCESS_FIELD]):
                    # Relabelled (a source's access: changed, ingest --access): the payload only.
                    store_call(collection.set_owner, source, {ACCESS_FIELD: sorted(metadata[ACCESS_FIELD])})
                    log.info("%s: access labels now %s", path.name, sorted(metadata[ACCESS_FIELD]) or "none")
                if state.pending:
                    # Unfinished chunks of an interrupted run: never visible, now gone.
                    store_call(collection.discard_pending, source)
                if settings.ingestion.replace_changed and len(state.complete) > 1:
                    removed = store_call(collection.remove_other_versions, source, file_hash)
                    log.info("%s: removed %d chunks of older versions", path.name, removed)
                decided.append(Planned(index, path, "skipped", "unchanged"))
                continue
            if not force and state.has_complete(file_hash):
                log.info("%s: stored with other settings or without its metadata; re-processing", path.name)
            item = Prepared(index=index, path=path, source=source, file_hash=file_hash,
                            file_version=versions[index], extra_metadata=metadata)
            item.replacing = bool(state.complete)
            item.same_content_stored = file_hash in state.complete
            decided.append(item)
        # Outcomes go out in input order, so stats and logs never depend on timing.
        yield from sorted(decided, key=lambda d: d.index)
