"""Retrieval metrics over one ranked list of identifiers.

``retrieved`` is in rank order and holds, per result, the expected id it matched or
``"<miss>"``; ``expected`` is the set of correct ids.  ``k`` cuts the list (``None``:
the whole list).  An empty ``expected`` scores zero everywhere, and a result whose id
already appeared higher up gains nothing in recall, MRR or nDCG.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

MISS = "<miss>"
METRIC_NAMES: tuple[str, ...] = ("recall", "mrr", "hit_rate", "precision", "ndcg")


def _top(retrieved: Sequence[str], k: int | None) -> list[str]:
    if k is None:
        return list(retrieved)
    if k < 1:
        raise ValueError(f"k must be at least 1 (got {k})")
    return list(retrieved[:k])


def _relevant(expected: Iterable[str]) -> set[str]:
    return {e for e in expected if e != MISS}


def recall_at_k(retrieved: Sequence[str], expected: Iterable[str], k: int | None = None) -> float:
    """Fraction of the expected ids found in the first ``k`` results."""
    relevant = _relevant(expected)
    if not relevant:
        return 0.0
    return len(relevant.intersection(_top(retrieved, k))) / len(relevant)


def precision_at_k(retrieved: Sequence[str], expected: Iterable[str], k: int | None = None) -> float:
    """Fraction of the first ``k`` results (of those returned) that belong to an expected id.

    Every chunk of an expected document is a correct result, so two chunks of the
    same right file both count: precision measures how much of the context is on target.
    """
    relevant = _relevant(expected)
    top = _top(retrieved, k)
    if not relevant or not top:
        return 0.0
    return sum(1 for r in top if r in relevant) / len(top)


def hit_rate_at_k(retrieved: Sequence[str], expected: Iterable[str], k: int | None = None) -> float:
    """``1.0`` when any of the first ``k`` results is correct, else ``0.0``."""
    relevant = _relevant(expected)
    return 1.0 if any(r in relevant for r in _top(retrieved, k)) else 0.0


def reciprocal_rank(retrieved: Sequence[str], expected: Iterable[str], k: int | None = None) -> float:
    """``1 / rank`` of the first correct result within the first ``k``; ``0.0`` when none is."""
    relevant = _relevant(expected)
    for rank, r in enumerate(_top(retrieved, k), 1):
        if r in relevant:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(retrieved: Sequence[str], expected: Iterable[str], k: int | None = None) -> float:
    """Normalised discounted cumulative gain with binary relevance and a log2 discount.

    A result gains ``1 / log2(rank + 1)`` the first time its id appears; a repeat gains
    nothing.  The ideal ranks ``min(k, len(expected))`` correct ids first.
    """
    relevant = _relevant(expected)
    if not relevant:
        return 0.0
    seen: set[str] = set()
    dcg = 0.0
    for rank, r in enumerate(_top(retrieved, k), 1):
        if r in relevant and r not in seen:
            seen.add(r)
            dcg += 1.0 / math.log2(rank + 1)
    ideal_hits = len(relevant) if k is None else min(k, len(relevant))
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, ideal_hits + 1))
    return dcg / ideal


def score_query(retrieved: Sequence[str], expected: Iterable[str], k: int | None = None) -> dict[str, float]:
    """Every metric for one query: ``recall``, ``mrr``, ``hit_rate``, ``precision``, ``ndcg``."""
    expected = list(expected)
    return {
        "recall": recall_at_k(retrieved, expected, k),
        "mrr": reciprocal_rank(retrieved, expected, k),
        "hit_rate": hit_rate_at_k(retrieved, expected, k),
        "precision": precision_at_k(retrieved, expected, k),
        "ndcg": ndcg_at_k(retrieved, expected, k),
    }


def mean_metrics(per_query: Iterable[dict[str, float]]) -> dict[str, float]:
    """Average metric dicts key by key; an empty list gives zeros for the standard metrics.

    A key missing from some dicts is averaged over the dicts that have it.
    """
    rows = list(per_query)
    if not rows:
        return {name: 0.0 for name in METRIC_NAMES}
    keys = list(dict.fromkeys(key for row in rows for key in row))
    means = {}
    for key in keys:
        values = [row[key] for row in rows if key in row]
        means[key] = sum(values) / len(values)
    return means
