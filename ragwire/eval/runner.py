"""Run a golden set through ``retrieve()`` (and optionally ``query()``) and score it; sweep over settings."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict

from ..errors import EvalError, did_you_mean
from .answers import AnswerOutcome, check_answer, summarize_answers
from .golden import GoldenSet
from .metrics import MISS, mean_metrics, score_query
from .results import EvalResult, QueryResult, SweepResult
from .target import Pipeline

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+, and ragwire runs on 3.10: only the type checker imports it

# The spec names this logger; every module of ragwire.eval reports through it.
log = logging.getLogger("ragwire.eval")


class RetrieveArgs(TypedDict, total=False):
    """The ``retrieve()`` settings a run passes on (and records in its result's ``settings``)."""

    filters: Mapping[str, Any] | None
    rerank: bool | None
    search_type: str | None


def evaluate(rag: Pipeline, golden: GoldenSet, top_k: int = 5, label: str = "default", answers: bool = False,
             **retrieve_kwargs: Unpack[RetrieveArgs]) -> EvalResult:
    """Run every golden query and score what comes back.

    Args:
        rag: The pipeline to evaluate.
        golden: Queries to run.
        top_k: How many chunks to retrieve, and the cutoff every metric is computed at.
        label: Name for this run in tables.
        answers: Also call ``rag.query()`` per entry and report ``answer_metrics``
            (refusal recall, false refusals, citations, mean confidence).
        **retrieve_kwargs: Passed to ``retrieve()`` (``rerank``, ``search_type``, ``filters``);
            an entry's own ``filters`` are merged over ``filters``.

    Returns:
        An :class:`EvalResult`.  A query whose retrieval raised is logged and scored
        zero with its error recorded; the run goes on.  Expected documents that are
        not in the collection are listed in ``absent_expected`` (and logged).

    Raises:
        EvalError: the run could only score zeros: the collection is empty, no stored
            chunk has the set's ``match_field``, or none of the expected documents is
            in the collection (``exc.absent`` names them).
    """
    if top_k < 1:
        raise ValueError(f"top_k must be at least 1 (got {top_k})")
    absent, field_known = _absent_expected(rag, golden)
    per_query: list[QueryResult] = []
    searches: list[RetrieveArgs] = []
    field_seen = False
    for number, entry in enumerate(golden.entries, 1):
        kwargs = retrieve_kwargs.copy()
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
        field_seen = field_seen or any(golden.match_field in d.metadata for d in docs)
        retrieved = [golden.identify(d.metadata, entry.expected) for d in docs]
        per_query.append(QueryResult(
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
        ))
        searches.append(kwargs)
    if not field_known and not field_seen and any(q.sources for q in per_query):
        # checked before any answer is asked for: those may be LLM calls
        raise EvalError(f"match_field {golden.match_field!r}: no stored chunk has this field, so every "
                        f"result would be a miss{_field_hint(rag, golden.match_field)}")
    outcomes: list[AnswerOutcome] = []
    if answers:
        for number, (entry, query, kwargs) in enumerate(zip(golden.entries, per_query, searches, strict=True), 1):
            query.answer = check_answer(rag, golden, entry, number, top_k, kwargs)
            outcomes.append(query.answer)
    scored = [q.metrics for q in per_query if q.answerable]
    result = EvalResult(
        label=label,
        top_k=top_k,
        per_query=per_query,
        metrics=mean_metrics(scored),
        answer_metrics=summarize_answers(golden.entries, outcomes) if answers else {},
        settings=dict(retrieve_kwargs),
        match_mode=golden.match_mode,
        absent_expected=absent,
    )
    log.info("%s: %d queries, recall %.3f, mrr %.3f, %d failures, %d errors", label, len(per_query),
             result.metrics["recall"], result.metrics["mrr"], len(result.failures), len(result.errors))
    if answers and result.answer_errors:
        log.warning("%s: %d of %d query() calls failed; they count as wrong answers", label,
                    len(result.answer_errors), len(per_query))
    return result


def _absent_expected(rag: Pipeline, golden: GoldenSet) -> tuple[list[str], bool]:
    """The expected ids no stored chunk matches, and whether ``match_field`` is known to be stored.

    A field the collection's indexes and a sample chunk do not show may still be on
    some chunks (an engine without payload indexes): it is then checked on what the
    run retrieves instead.

    Raises:
        EvalError: the collection is empty, or none of the expected ids is stored.
    """
    stats = rag.get_stats()
    if not stats.get("total_documents"):
        raise EvalError(f"collection {stats.get('collection_name')!r} is empty: there is nothing to score "
                        "(run `ragwire ingest` first, or check vectorstore in the config)")
    expected = list(dict.fromkeys(e for entry in golden.entries for e in entry.expected))
    field = golden.match_field
    if field not in {*rag.discover_metadata_fields(), *rag.filter_fields}:
        return [], False
    if not expected:
        return [], True
    stored = rag.get_field_values(field, limit=_STORED_VALUES_LIMIT)
    absent = [e for e in expected if not any(golden.matches(value, e) for value in stored)]
    where = f"(match_field {field}, match_mode {golden.match_mode})"
    if absent and len(absent) == len(expected):
        raise EvalError(f"none of the {len(expected)} expected documents is in the collection {where}: "
                        f"{_names(absent)}; ingest them, or fix the golden set", absent=absent)
    if absent:
        log.warning("%d of %d expected documents are not in the collection %s, so their questions score as "
                    "misses: %s", len(absent), len(expected), where, _names(absent))
    return absent, True


# Distinct match_field values read to check the expected documents: every file of a large collection.
_STORED_VALUES_LIMIT = 100_000


def _names(ids: list[str], shown: int = 10) -> str:
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more


def _field_hint(rag: Pipeline, field: str) -> str:
    return (did_you_mean(field, rag.discover_metadata_fields(), cutoff=0.75)
            or " (set match_field to a stored field, such as source or file_name)")


def sweep(rag: Pipeline, golden: GoldenSet, variants: Mapping[str, Mapping[str, Any]], top_k: int = 5,
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
