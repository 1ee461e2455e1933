"""Ingest and sync runs over the built parts: open the store for the run, hand the files or
sources to the ingest runner or the reconciler, and trace the run.

The facade (:mod:`ragwire.pipeline`) calls these in a line each; they take the typed
:class:`~ragwire.components.Parts` and config, never the facade.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ragwire.telemetry as telemetry

from .config import RagwireConfig
from .errors import ConfigError

if TYPE_CHECKING:
    from .components import Parts
    from .ingest import IngestRunner
    from .store import Collection
    from .sync import Source, SyncStats

# One file or several, as paths or stored identities (``s3://``, ``local://``).
Paths = str | Path | Sequence[str | Path]


def runner(parts: Parts, coll: Collection) -> IngestRunner:
    """The ingest runner of these parts over an opened collection (metadata extraction hooked in)."""
    from .ingest import IngestRunner, IngestSettings

    settings = IngestSettings.from_config(parts.config)
    hook = parts.metadata.prepare_ingest(coll)
    return IngestRunner(coll, parts.bulk_embedding, parts.sparse_encoder, settings, extract_metadata=hook)


def ingest(parts: Parts, file_paths: Paths, *, force: bool, not_walked: list[tuple[str, str]] | None = None,
           access: list[str] | None = None, on_file: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Ingest ``file_paths`` (one path or a list) and return the spec's stats dict.

    ``access`` labels every file (none given: a stored document keeps its labels, a new one
    gets ``access.default``); ``on_file`` is told each file's outcome (:meth:`FileOutcome.to_dict`) as it is recorded.

    Raises:
        IngestAborted: the run itself failed; ``exc.stats`` holds what was done before.
    """
    attributes = telemetry.run_attributes(parts.config.vectorstore.collection_name)
    with telemetry.span("ragwire ingest", attributes) as span:
        stats = _ingest_files(parts, file_paths, force, not_walked, access, on_file)
        telemetry.set_counts(span, stats)
        return stats


def _ingest_files(parts: Parts, file_paths: Paths, force: bool, not_walked: list[tuple[str, str]] | None,
                  access: list[str] | None = None, on_file: Callable[[dict[str, Any]], None] | None = None,
                  ) -> dict[str, Any]:
    from .errors import IngestAborted, MissingDependencyError, ProviderError
    from .ingest import IngestStats

    entries = [stored_as(parts.config, path)
               for path in ([file_paths] if isinstance(file_paths, (str, Path)) else file_paths)]
    if access is not None:
        from .access.labels import ACCESS_FIELD, normalise_labels
        from .ingest.items import IngestItem, as_item

        try:
            labels = {ACCESS_FIELD: normalise_labels(access)}
        except ValueError as exc:
            raise ConfigError(str(exc), source="ingest") from None
        entries = [IngestItem(i.path, i.source, {**i.metadata, **labels}) for i in map(as_item, entries)]
    try:
        with contextlib.ExitStack() as stack:
            try:
                coll = stack.enter_context(parts.store.opened(create=bool(entries)))
            except (ProviderError, MissingDependencyError) as exc:
                # Creating the store needs the model, and it cannot load: the run's failure,
                # reported like the same failure later in a run.  (A store or config
                # problem keeps its own type: it is not about this run's files.)
                nothing = IngestStats(total=len(entries), aborted=" ".join(str(exc).split()))
                raise IngestAborted(f"ingest stopped before the first file: {nothing.aborted}",
                                    nothing.to_dict()) from exc
            told = None if on_file is None else (lambda outcome: on_file(outcome.to_dict()))
            stats = runner(parts, coll).run(entries, force=force, on_file=told)
    except IngestAborted as exc:
        if not_walked is not None:
            exc.stats["not_walked"] = [{"file": f, "reason": r} for f, r in not_walked]
        raise
    stats.not_walked = not_walked
    return stats.to_dict()


def stored_as(config: RagwireConfig, path: object) -> Any:
    """What a hand ingest or delete of ``path`` reaches: the document of the named local
    source holding it (``local://name/…``, owner kept), else the path's own identity."""
    if isinstance(path, (str, Path)) and config.sources:
        from .sync.local import claim

        claimed = claim(path, config.sources, config.loader)
        if claimed is not None:
            return claimed
    return path


def delete(parts: Parts, file_path: str | Path) -> int:
    """Remove every chunk of ``file_path`` (a path, or a stored ``s3://``/``local://`` identity)."""
    from .ingest.items import as_item, source_id

    if not parts.collection.exists():
        return 0
    with parts.store.opened(check=False) as coll, coll.writing():
        if str(file_path).startswith(("s3://", "local://")):
            return int(coll.delete_source(str(file_path)))
        # A file of a named source is stored under the source's identity; a copy an
        # earlier version stored under the path itself goes too.
        identities = {as_item(stored_as(parts.config, file_path)).source, source_id(file_path)}
        return sum(coll.delete_source(identity) for identity in sorted(identities))


def sync(parts: Parts, config_name: str, sources: list[Source] | None, *, delete_missing: bool,
         dry_run: bool) -> SyncStats:
    """Reconcile the collection with ``sources`` (default: the config's), traced as one run.

    Raises:
        ConfigError: no sources are configured or passed.
    """
    attributes = telemetry.run_attributes(parts.config.vectorstore.collection_name)
    with telemetry.span("ragwire sync", attributes) as span:
        stats = _sync(parts, config_name, sources, delete_missing, dry_run)
        telemetry.set_counts(span, stats.to_dict())
        return stats


def _sync(parts: Parts, where: str, sources: list[Source] | None, delete_missing: bool, dry_run: bool) -> SyncStats:
    from .sync import make_sources, reconcile

    config: RagwireConfig = parts.config
    configs = config.sources if sources is None else list(sources)
    if not configs:
        raise ConfigError(f"sources: nothing to sync; add a sources: list to {where} or pass sources=[...]",
                          source=where)
    built = make_sources(configs, config.loader, where=where)
    if dry_run and not parts.collection.exists():
        return reconcile(built, None, delete_missing=delete_missing, dry_run=True)
    from .access.labels import source_labeller

    labels = source_labeller(config.access)
    with parts.store.opened(create=not dry_run) as coll:
        if dry_run:
            return reconcile(built, runner(parts, coll), delete_missing=delete_missing, dry_run=True)
        # One hold of the writer lease for the ingest and the deletes: one sync at a time.
        with coll.writing():
            return reconcile(built, runner(parts, coll), delete_missing=delete_missing, dry_run=False,
                             labels=labels)
