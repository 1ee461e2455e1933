"""Run a golden set through ``retrieve()`` (and optionally ``query()``) and score it; sweep over settings."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .answers import AnswerOutcome, check_answer, summarize_answers
from .golden import GoldenSet
from .metrics import MISS, mean_metrics, score_query
from .results import EvalResult, QueryResult, SweepResult

if TYPE_CHECKING:
    from ragwire import RAGWire

# The spec names this logger; every module of ragwire.eval reports through it.
log = logging.getLogger("ragwire.eval")


def evaluate(rag: RAGWire, golden: GoldenSet, top_k: int = 5, label: str = "default", answers: bool = False,
             **retrieve_kwargs: Any) -> EvalResult:
    """Run every golden query and score what comes back.

    Args:
        rag: The pipeline to evaluate.
        golden: Queries to run.
        top_k: How many chunks to retrieve, and the cutoff every metric is computed at.
        label: Name for this run in tables.
        answers: Also call ``rag.query()`` per entry and report ``answer_metrics``
            (refusal accuracy, citation hit rate, mean confidence).
        **retrieve_kwargs: Passed to ``retrieve()`` (``rerank``, ``search_type``, ``filters``);
            an entry's own ``filters`` are merged over ``filters``.

    Returns:
        An :class:`EvalResult`.  A query whose retrieval raises is logged and scored
        zero with its error recorded; the run goes on.
    """
    if top_k < 1:
        raise ValueError(f"top_k must be at least 1 (got {top_k})")
    per_query: list[QueryResult] = []
    outcomes: list[AnswerOutcome] = []
    for number, entry in enumerate(golden.entries, 1):
        kwargs = dict(retrieve_kwargs)
        if entry.filters:
            kwargs["filters"] = {**(kwargs.get("filters") or {}), **entry.filters}
        start = time.perf_counter()
        error = None
        try:
            docs = list(rag.retrieve(entry.query, top_k=top_k, **kwargs))
        except Exception as exc:  # noqa: BLE001 - one bad query is scored zero, not the end of the run
            log.warning("golden query %d (%s): retrieval failed, scored zero: %s: %s",
                        number, entry.query, type(exc).__name__, exc)
            docs, error = [], f"{type(exc).__name__}: {exc}"
        latency = time.perf_counter() - start
        retrieved = [golden.identify(d.metadata, entry.expected) for d in docs]
        result = QueryResult(
            query=entry.query,
            expected=list(entry.expected),
            retrieved=retrieved,
            metrics=score_query(retrieved, entry.expected, k=top_k),
            missed=[e for e in entry.expected if e not in retrieved],
            sources=[str(d.metadata.get(golden.match_field, MISS)) for d in docs],
            error=error,
            latency_s=latency,
            answerable=entry.answerable,
            note=entry.note,
        )
        if answers:
            result.answer = check_answer(rag, golden, entry, number, top_k, kwargs)
            outcomes.append(result.answer)
        per_query.append(result)
    scored = [q.metrics for q in per_query if q.answerable]
    result = EvalResult(
        label=label,
        top_k=top_k,
        per_query=per_query,
        metrics=mean_metrics(scored),
        answer_metrics=summarize_answers(golden.entries, outcomes) if answers else {},
        settings=dict(retrieve_kwargs),
        match_mode=golden.match_mode,
    )
    log.info("%s: %d queries, recall %.3f, mrr %.3f, %d failures, %d errors", label, len(per_query),
             result.metrics["recall"], result.metrics["mrr"], len(result.failures), len(result.errors))
    return result


def sweep(rag: RAGWire, golden: GoldenSet, variants: Mapping[str, Mapping[str, Any]], top_k: int = 5,
          answers: bool = False) -> SweepResult:
    """Evaluate several retrieval settings against the same golden set.

    Args:
        rag: The pipeline to evaluate.
        golden: Queries to run.
        variants: Label to ``retrieve()`` kwargs, e.g. ``{"no rerank": {"rerank": False}}``.
            The first is the baseline the others are compared with; a ``top_k`` key
            overrides the cutoff for that variant.
        top_k: Default cutoff.
        answers: Also check answers in every variant (see :func:`evaluate`).

    Returns:
        A :class:`SweepResult`; ``best`` is the label with the highest nDCG, then MRR.

    Raises:
        ValueError: no variants were given.
    """
    if not isinstance(variants, Mapping) or not variants:
        raise ValueError("a sweep needs at least one variant, e.g. sweep(rag, golden, {'default': {}})")
    results = {}
    for label, options in variants.items():
        options = dict(options)
        k = options.pop("top_k", top_k)
        results[label] = evaluate(rag, golden, top_k=k, label=label, answers=answers, **options)
    return SweepResult(results)
