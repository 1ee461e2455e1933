"""Answer-level scoring: did ``query()`` refuse when it should, and cite an expected document when it answered."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..providers.usage import Usage, add_into
from .golden import GoldenEntry, GoldenSet
from .metrics import MISS
from .target import Pipeline

log = logging.getLogger("ragwire.eval")

# Refusals are scored on each side separately: a combined accuracy over a set of mostly
# answerable questions stays high when no unanswerable one is ever refused.
ANSWER_METRIC_NAMES: tuple[str, ...] = (
    "refusal_recall",
    "false_refusal_rate",
    "answered_cited_rate",
    "citation_hit_rate",
    "refusal_accuracy_combined",
    "mean_confidence",
)


@dataclass
class AnswerOutcome:
    """What ``query()`` did with one golden question.

    ``cited`` holds, per citation, the expected id it matched or ``"<miss>"``;
    ``refusal_correct`` is true when an unanswerable question was refused or an
    answerable one was answered.  A ``query()`` that raised has ``error`` set and
    counts as a wrong answer.
    """

    refused: bool
    confidence: float
    cited: list[str] = field(default_factory=list)
    cites_expected: bool = False
    refusal_correct: bool = False
    error: str | None = None
    latency_s: float = 0.0
    # what the query cost: LLM calls, tokens (None: not reported), cost (None: no llm.pricing)
    llm_calls: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_answer(rag: Pipeline, golden: GoldenSet, entry: GoldenEntry, number: int, top_k: int,
                 retrieve_kwargs: Mapping[str, Any]) -> AnswerOutcome:
    """Ask ``rag.query()`` the entry's question with the same top_k, filters and rerank as retrieval."""
    kwargs: dict[str, Any] = {"top_k": top_k, "filters": retrieve_kwargs.get("filters")}
    if "rerank" in retrieve_kwargs:
        kwargs["rerank"] = retrieve_kwargs["rerank"]
    start = time.perf_counter()
    try:
        answer = rag.query(entry.query, **kwargs)
    except Exception as exc:  # noqa: BLE001 - one failing question is a wrong answer, not the end of the run
        log.warning("golden query %d: query() failed, scored as a wrong answer: %s: %s",
                    number, type(exc).__name__, exc)
        return AnswerOutcome(refused=False, confidence=0.0, error=f"{type(exc).__name__}: {exc}",
                             latency_s=time.perf_counter() - start)
    latency = time.perf_counter() - start
    refused = bool(getattr(answer, "refused", False))
    usage = getattr(answer, "usage", None)
    cited = [golden.identify(_citation_metadata(c, golden.match_field), entry.expected)
             for c in getattr(answer, "citations", [])]
    return AnswerOutcome(
        refused=refused,
        confidence=float(getattr(answer, "confidence", 0.0) or 0.0),
        cited=cited,
        cites_expected=any(c != MISS for c in cited),
        refusal_correct=refused != entry.answerable,
        latency_s=latency,
        llm_calls=int(getattr(usage, "llm_calls", 0) or 0),
        prompt_tokens=getattr(usage, "prompt_tokens", None),
        completion_tokens=getattr(usage, "completion_tokens", None),
        cost=getattr(usage, "cost", None),
    )


def _citation_metadata(citation: object, match_field: str) -> Mapping[str, Any]:
    metadata = dict(getattr(citation, "metadata", None) or {})
    # a citation always knows its source even when its metadata dict was trimmed
    if match_field == "source" and "source" not in metadata:
        metadata["source"] = getattr(citation, "source", None)
    return metadata


def summarize_answers(entries: Sequence[GoldenEntry], outcomes: Sequence[AnswerOutcome]) -> dict[str, float | None]:
    """The answer scores of a run; ``None`` where nothing was counted.

    * ``refusal_recall``: the share of ``answerable: false`` entries that were refused;
    * ``false_refusal_rate``: the share of answerable entries that were refused;
    * ``answered_cited_rate``: the share of answerable entries answered with a citation of
      an expected document (a ``query()`` that raised counts against it);
    * ``citation_hit_rate``: the same, among the answerable entries that got an answer;
    * ``refusal_accuracy_combined``: the share of all entries whose refusal decision was right;
    * ``mean_confidence``: over the entries that got an answer.
    """
    pairs = list(zip(entries, outcomes, strict=False))
    answerable = [o for e, o in pairs if e.answerable]
    unanswerable = [o for e, o in pairs if not e.answerable]
    answered = [(e, o) for e, o in pairs if o.error is None and not o.refused]
    answered_answerable = [o for e, o in answered if e.answerable]
    return {
        "refusal_recall": _mean([1.0 if o.refused and o.error is None else 0.0 for o in unanswerable]),
        "false_refusal_rate": _mean([1.0 if o.refused else 0.0 for o in answerable]),
        "answered_cited_rate": _mean([1.0 if o.error is None and not o.refused and o.cites_expected else 0.0
                                      for o in answerable]),
        "citation_hit_rate": _mean([1.0 if o.cites_expected else 0.0 for o in answered_answerable]),
        "refusal_accuracy_combined": _mean([1.0 if o.refusal_correct else 0.0 for _, o in pairs]),
        "mean_confidence": _mean([o.confidence for _, o in answered]),
    }


def total_usage(outcomes: Sequence[AnswerOutcome]) -> dict[str, Any]:
    """LLM calls, tokens and cost summed over the answers of a run (None where nothing was reported)."""
    total = Usage()
    for o in outcomes:
        add_into(total, Usage(prompt_tokens=o.prompt_tokens, completion_tokens=o.completion_tokens,
                              llm_calls=o.llm_calls, cost=o.cost))
    return total.accounting()


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None
