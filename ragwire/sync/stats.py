"""Typed results of a sync: per-source counts, summed for the run.  ``to_dict`` is the spec's shape."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ..providers.usage import Usage, add_into

_COUNTS = ("listed", "processed", "skipped", "replaced", "deleted", "deleted_chunks", "failed",
           "refused", "chunks_created", "embedded_chunks", "reused_chunks", "downloaded")


@dataclass
class SourceStats:
    """What one source contributed.  ``processed`` counts every document written, ``replaced`` included."""

    key: str
    listed: int = 0
    processed: int = 0
    skipped: int = 0
    replaced: int = 0
    deleted: int = 0
    deleted_chunks: int = 0
    failed: int = 0
    refused: int = 0
    chunks_created: int = 0
    embedded_chunks: int = 0
    reused_chunks: int = 0
    downloaded: int = 0
    # The source could not be listed: nothing of it was deleted, and the run is a partial failure.
    list_failed: bool = False
    # Folders whose contents could not be read ({"folder", "reason"}): what is stored under them was kept.
    unlisted: list[dict[str, str]] = field(default_factory=list)
    # The listing stopped at a walk limit: nothing of the source was deleted.
    truncated: bool = False
    warnings: list[str] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)
    refused_files: list[dict[str, str]] = field(default_factory=list)
    # Identities a dry run found would be deleted, or a real run deleted.
    deleted_sources: list[str] = field(default_factory=list)
    # LLM metadata extraction of this source's files: calls, tokens, cost (llm.pricing).
    metadata_usage: Usage = field(default_factory=Usage)

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "key"}
        out["refused_files"] = list(self.refused_files)
        out["unlisted"] = list(self.unlisted)
        out["metadata_usage"] = self.metadata_usage.accounting()
        return out

    @property
    def incomplete(self) -> bool:
        """The source was not fully seen this run (not listed, a folder unreadable, a limit hit)."""
        return self.list_failed or bool(self.unlisted) or self.truncated


@dataclass
class SyncStats:
    """The result of :meth:`ragwire.RAGWire.sync`.  Totals are sums over ``sources``."""

    sources: dict[str, SourceStats] = field(default_factory=dict)
    dry_run: bool = False

    def source(self, key: str) -> SourceStats:
        if key not in self.sources:
            self.sources[key] = SourceStats(key)
        return self.sources[key]

    def _sum(self, name: str) -> int:
        return sum(getattr(s, name) for s in self.sources.values())

    @property
    def listed(self) -> int:
        return self._sum("listed")

    @property
    def processed(self) -> int:
        return self._sum("processed")

    @property
    def skipped(self) -> int:
        return self._sum("skipped")

    @property
    def replaced(self) -> int:
        return self._sum("replaced")

    @property
    def deleted(self) -> int:
        return self._sum("deleted")

    @property
    def deleted_chunks(self) -> int:
        return self._sum("deleted_chunks")

    @property
    def failed(self) -> int:
        return self._sum("failed")

    @property
    def refused(self) -> int:
        return self._sum("refused")

    @property
    def chunks_created(self) -> int:
        return self._sum("chunks_created")

    @property
    def embedded_chunks(self) -> int:
        return self._sum("embedded_chunks")

    @property
    def reused_chunks(self) -> int:
        return self._sum("reused_chunks")

    @property
    def downloaded(self) -> int:
        return self._sum("downloaded")

    @property
    def metadata_usage(self) -> Usage:
        """LLM metadata extraction summed over the sources (no calls on a dry run)."""
        total = Usage()
        for source in self.sources.values():
            add_into(total, source.metadata_usage)
        return total

    @property
    def warnings(self) -> list[str]:
        return [w for s in self.sources.values() for w in s.warnings]

    @property
    def errors(self) -> list[dict[str, str]]:
        return [e for s in self.sources.values() for e in s.errors]

    @property
    def partial(self) -> bool:
        """Some file failed or some source was not fully listed: the collection may lag its sources."""
        return self.failed > 0 or any(s.incomplete for s in self.sources.values())

    def summary(self) -> str:
        """One line for logs."""
        head = "sync (dry run)" if self.dry_run else "sync"
        line = (f"{head}: {len(self.sources)} sources, {self.listed} listed, {self.processed} processed "
                f"({self.replaced} replaced), {self.skipped} skipped, {self.deleted} deleted "
                f"({self.deleted_chunks} chunks), {self.failed} failed, {self.refused} refused; "
                f"{self.chunks_created} chunks written ({self.embedded_chunks} embedded, "
                f"{self.reused_chunks} reused), {self.downloaded} downloaded")
        if self.warnings:
            line += f"; {len(self.warnings)} warnings"
        return line

    def to_dict(self) -> dict[str, Any]:
        """The spec's SyncStats dict, plus ``sources`` (per-source breakdown), ``dry_run`` and
        ``metadata_usage`` (LLM calls, tokens and cost of metadata extraction)."""
        out: dict[str, Any] = {name: self._sum(name) for name in _COUNTS}
        out.update(
            dry_run=self.dry_run,
            warnings=self.warnings,
            errors=self.errors,
            refused_files=[r for s in self.sources.values() for r in s.refused_files],
            sources={key: s.to_dict() for key, s in self.sources.items()},
            metadata_usage=self.metadata_usage.accounting(),
        )
        return out
