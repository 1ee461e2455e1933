"""Typed results of an ingest run: one outcome per file, and the run's totals.

Inside the library these objects flow between stages; the spec's dict shapes
are made only at the public boundary, by :meth:`IngestStats.to_dict`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..providers.usage import Usage, add_into

Status = Literal["processed", "skipped", "failed"]


@dataclass
class FileOutcome:
    """What happened to one file of a run.

    A failed file keeps ``error_type``, the class name of the exception that failed it
    (``LoaderError``, ``ProviderError``…; empty when no exception did), and ``retryable``,
    true when a later run may succeed without a change to the file.
    """

    path: str
    status: Status
    reason: str = ""
    error_type: str = ""
    retryable: bool = False
    chunks: int = 0
    embedded: int = 0
    reused: int = 0
    replaced: bool = False
    metadata_failed: bool = False
    # The file's LLM metadata extraction (no calls when none ran); sync sums it per source.
    metadata_usage: Usage = field(default_factory=Usage)
    # OCR'd pages stored although the engine was unsure of them: (page number, confidence).
    ocr_doubtful: list[tuple[int, float]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The outcome as ``ingest_documents(on_file=...)`` hands it over: ``file``, ``status``, ``chunks``
        and, for a failed file, ``error``, ``error_type`` and ``retryable`` as in the stats' ``errors``."""
        out: dict[str, Any] = {"file": self.path, "status": self.status, "chunks": self.chunks}
        if self.status == "failed":
            out.update(self.error_entry())
        elif self.reason:
            out["reason"] = self.reason
        return out

    def error_entry(self) -> dict[str, Any]:
        """A failed file as the stats' ``errors`` list holds it: ``file``, ``error``, ``error_type``, ``retryable``."""
        return {"file": self.path, "error": self.reason, "error_type": self.error_type, "retryable": self.retryable}


@dataclass
class IngestStats:
    """Totals of one run.  ``processed + skipped + failed == total`` once the run ends."""

    total: int
    outcomes: list[FileOutcome] = field(default_factory=list)
    # Set by folder ingests only: candidates the walk left out, with the reason.
    not_walked: list[tuple[str, str]] | None = None
    aborted: str | None = None
    # Every metadata extraction of the run, priced by llm.pricing (see count_extraction).
    metadata_usage: Usage = field(default_factory=Usage)
    # Told each outcome as it is recorded (``ingest_documents(on_file=...)``: a page's per-file progress).
    on_file: Callable[[FileOutcome], None] | None = field(default=None, repr=False)

    # The running chunk total a progress bar shows after every file (summing the outcomes
    # each time made a 20k-file run quadratic).
    _chunks: int = field(default=0, repr=False)

    def record(self, outcome: FileOutcome) -> None:
        self.outcomes.append(outcome)
        if outcome.status == "processed":
            self._chunks += outcome.chunks
        if self.on_file is not None:
            self.on_file(outcome)

    def count_extraction(self, usage: Usage) -> None:
        """Add one prepared file's extraction usage.

        Counted once per prepared file when it is prepared, not when its outcome is
        recorded: the calls were made (and billed) even when the file then fails to
        embed or a run that stops never records it.
        """
        add_into(self.metadata_usage, usage)

    def _count(self, status: Status) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def processed(self) -> int:
        return self._count("processed")

    @property
    def skipped(self) -> int:
        return self._count("skipped")

    @property
    def failed(self) -> int:
        return self._count("failed")

    @property
    def chunks_created(self) -> int:
        return self._chunks

    @property
    def embedded_chunks(self) -> int:
        return sum(o.embedded for o in self.outcomes if o.status == "processed")

    @property
    def reused_chunks(self) -> int:
        return sum(o.reused for o in self.outcomes if o.status == "processed")

    @property
    def replaced(self) -> int:
        return sum(1 for o in self.outcomes if o.status == "processed" and o.replaced)

    @property
    def metadata_failed(self) -> int:
        return sum(1 for o in self.outcomes if o.status == "processed" and o.metadata_failed)

    def to_dict(self) -> dict[str, Any]:
        """The spec's stats dict (plus ragwire's ``embedded_chunks``/``reused_chunks``,
        ``metadata_usage`` — LLM calls, tokens and cost of metadata extraction — and
        ``error_type``/``retryable`` in each ``errors`` entry).

        A run that stored OCR'd pages the engine was unsure of carries ``ocr_low_confidence``
        (file, page, confidence).  An aborted run also carries ``aborted`` (the one-line reason) and
        ``not_started`` (files the run never reached).
        """
        out: dict[str, Any] = {
            "total": self.total,
            "processed": self.processed,
            "skipped": self.skipped,
            "failed": self.failed,
            "chunks_created": self.chunks_created,
            "metadata_failed": self.metadata_failed,
            "replaced": self.replaced,
            "embedded_chunks": self.embedded_chunks,
            "reused_chunks": self.reused_chunks,
            "errors": [o.error_entry() for o in self.outcomes if o.status == "failed"],
            "metadata_usage": self.metadata_usage.accounting(),
        }
        doubtful = [{"file": o.path, "page": page, "ocr_confidence": confidence}
                    for o in self.outcomes if o.status == "processed" for page, confidence in o.ocr_doubtful]
        if doubtful:
            out["ocr_low_confidence"] = doubtful
        if self.not_walked is not None:
            out["not_walked"] = [{"file": f, "reason": r} for f, r in self.not_walked]
        if self.aborted is not None:
            out["aborted"] = self.aborted
            out["not_started"] = self.total - len(self.outcomes)
        return out
