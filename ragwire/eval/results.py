"""What ``evaluate`` and ``sweep`` return: per-query results, averages, text tables and JSON-safe dicts."""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass, field
from typing import Any

from .answers import ANSWER_METRIC_NAMES, AnswerOutcome, total_usage
from .metrics import METRIC_NAMES


@dataclass
class QueryResult:
    """One golden query, scored.

    ``retrieved`` is rank-ordered and holds the expected id each result matched or
    ``"<miss>"``; ``sources`` the raw match-field values behind them; ``missed`` the
    expected ids not retrieved.  ``error`` is set when retrieval raised (the query then
    scores zero); ``answer`` when the run also checked answers.
    """

    query: str
    expected: list[str]
    retrieved: list[str]
    metrics: dict[str, float]
    missed: list[str]
    sources: list[str] = field(default_factory=list)
    error: str | None = None
    latency_s: float = 0.0
    answerable: bool = True
    note: str | None = None
    answer: AnswerOutcome | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "expected": list(self.expected),
            "answerable": self.answerable,
            "note": self.note,
            "retrieved": list(self.retrieved),
            "sources": list(self.sources),
            "missed": list(self.missed),
            "metrics": dict(self.metrics),
            "error": self.error,
            "latency_s": self.latency_s,
            "answer": self.answer.to_dict() if self.answer is not None else None,
        }


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass
class EvalResult:
    """One run over a golden set.

    ``metrics`` averages ``recall``, ``mrr``, ``hit_rate``, ``precision`` and ``ndcg``
    over the answerable queries (a query whose retrieval raised counts as zero).
    ``answer_metrics`` is empty unless the run checked answers.  ``absent_expected``
    lists the expected documents that are not in the collection at all.
    """

    label: str
    top_k: int
    per_query: list[QueryResult]
    metrics: dict[str, float]
    answer_metrics: dict[str, float | None] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    match_mode: str = "basename"
    absent_expected: list[str] = field(default_factory=list)

    @property
    def failures(self) -> list[QueryResult]:
        """Answerable queries that retrieved nothing correct (errors included)."""
        return [q for q in self.per_query if q.answerable and not q.metrics.get("hit_rate")]

    @property
    def errors(self) -> list[QueryResult]:
        """Queries whose retrieval raised."""
        return [q for q in self.per_query if q.error is not None]

    @property
    def answer_errors(self) -> list[QueryResult]:
        """Queries whose ``query()`` raised (answers checked only)."""
        return [q for q in self.per_query if q.answer is not None and q.answer.error is not None]

    @property
    def answers_checked(self) -> bool:
        return any(q.answer is not None for q in self.per_query)

    @property
    def answer_usage(self) -> dict[str, Any]:
        """LLM calls, tokens and cost over every ``query()`` of the run (empty unless answers were checked)."""
        outcomes = [q.answer for q in self.per_query if q.answer is not None]
        return total_usage(outcomes) if outcomes else {}

    @property
    def latency_p50_s(self) -> float:
        """Median retrieval time per query, in seconds."""
        return statistics.median(q.latency_s for q in self.per_query) if self.per_query else 0.0

    def summary_rows(self) -> list[tuple[str, str]]:
        """(name, formatted value) pairs, in table order; sweep tables line these up."""
        rows = [(name, _fmt(self.metrics.get(name))) for name in METRIC_NAMES]
        rows += [(name, _fmt(self.answer_metrics.get(name))) for name in ANSWER_METRIC_NAMES if self.answer_metrics]
        rows.append(("latency p50", f"{self.latency_p50_s * 1000:.0f} ms"))
        rows.append(("errors", str(len(self.errors))))
        if self.answers_checked:
            rows.append(("answer errors", str(len(self.answer_errors))))
            usage = self.answer_usage
            tokens = "tokens not reported" if usage["total_tokens"] is None else f"{usage['total_tokens']} tokens"
            cost = "" if usage["cost"] is None else f", cost {usage['cost']:.6f}"
            rows.append(("answer usage", f"{usage['llm_calls']} LLM calls, {tokens}{cost}"))
        return rows

    def to_table(self) -> str:
        """The averages, then every failure and error, as aligned text."""
        answerable = sum(1 for q in self.per_query if q.answerable)
        unanswerable = len(self.per_query) - answerable
        head = f"{self.label}: {len(self.per_query)} queries, top_k={self.top_k}"
        if unanswerable:
            head += f" ({unanswerable} unanswerable, not in retrieval scores)"
        rows = self.summary_rows()
        width = max(len(name) for name, _ in rows)
        lines = [head, *(f"  {name:<{width}}  {value}" for name, value in rows)]
        if self.absent_expected:
            count = len(self.absent_expected)
            lines.append(f"not in the collection ({count} expected document{'s' if count != 1 else ''}, "
                         f"scored as misses): {', '.join(self.absent_expected)}")
        if self.failures:
            lines.append(f"failures ({len(self.failures)}, nothing expected retrieved):")
            for q in self.failures:
                # file names are what a basename golden set lists; other modes need the whole value
                shown = [os.path.basename(s) if self.match_mode == "basename" else s for s in q.sources]
                got = ", ".join(dict.fromkeys(shown)) or "nothing"
                lines.append(f"  - {_short(q.query)}")
                lines.append(f"    expected {', '.join(q.expected)}; got {got}")
        if self.errors:
            lines.append(f"errors ({len(self.errors)}, scored zero):")
            lines.extend(f"  - {_short(q.query)}: {q.error}" for q in self.errors)
        if self.answer_errors:
            lines.append(f"answer errors ({len(self.answer_errors)}, counted as wrong answers):")
            lines.extend(f"  - {_short(q.query)}: {q.answer.error}" for q in self.answer_errors if q.answer)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_table()

    def to_dict(self) -> dict[str, Any]:
        """Everything, JSON-safe, for CI jobs and dashboards."""
        return {
            "label": self.label,
            "top_k": self.top_k,
            "settings": dict(self.settings),
            "metrics": dict(self.metrics),
            "answer_metrics": dict(self.answer_metrics),
            "latency_p50_s": self.latency_p50_s,
            "queries": len(self.per_query),
            "failures": len(self.failures),
            "errors": len(self.errors),
            "answer_errors": len(self.answer_errors),
            "answer_usage": self.answer_usage,
            "absent_expected": list(self.absent_expected),
            "absent_expected_count": len(self.absent_expected),
            "per_query": [q.to_dict() for q in self.per_query],
        }


@dataclass
class SweepResult:
    """Several runs over one golden set; the first is the baseline the others are compared with.

    ``best`` is the label with the highest ``ndcg``, ties broken by ``mrr`` and then by
    order (the earlier variant wins, so the baseline stays best unless beaten).
    """

    results: dict[str, EvalResult]

    def __post_init__(self) -> None:
        if not self.results:
            raise ValueError("a sweep needs at least one variant, e.g. sweep(rag, golden, {'default': {}})")

    @property
    def baseline(self) -> str:
        return next(iter(self.results))

    @property
    def best(self) -> str:
        labels = list(self.results)
        return max(labels, key=lambda label: (self.results[label].metrics.get("ndcg", 0.0),
                                              self.results[label].metrics.get("mrr", 0.0),
                                              -labels.index(label)))

    def to_table(self) -> str:
        """One column per variant; later columns show the change against the first."""
        base = self.results[self.baseline]
        columns: list[list[str]] = []
        names = [name for name, _ in base.summary_rows()]
        for label, result in self.results.items():
            cells = [label]
            for name, value in result.summary_rows():
                delta = _delta(base, result, name) if result is not base else ""
                cells.append(f"{value}{delta}")
            columns.append(cells)
        first = ["metric", *names]
        widths = [max(len(c) for c in first)] + [max(len(c) for c in col) for col in columns]
        lines = []
        for row in range(len(first)):
            cells = [first[row], *(col[row] for col in columns)]
            lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False)).rstrip())
        lines.append(f"best: {self.best} (highest ndcg, then mrr)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_table()

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "best": self.best,
            "results": {label: result.to_dict() for label, result in self.results.items()},
        }


def _delta(base: EvalResult, other: EvalResult, name: str) -> str:
    """`` (+0.050)`` for a metric that moved, nothing for unchanged values and non-metrics."""
    pool = {**base.metrics, **base.answer_metrics}
    if name not in pool:
        return ""
    before, after = pool[name], {**other.metrics, **other.answer_metrics}.get(name)
    if before is None or after is None or round(after - before, 3) == 0:
        return ""
    return f" ({after - before:+.3f})"
