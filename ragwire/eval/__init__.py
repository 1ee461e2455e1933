"""Score retrieval against a golden set: ``GoldenSet``, ``evaluate``, ``sweep`` and the metric functions."""

from __future__ import annotations

from ..errors import EvalError
from .answers import AnswerOutcome
from .golden import GoldenEntry, GoldenPart, GoldenSet
from .metrics import (
    MISS,
    hit_rate_at_k,
    mean_metrics,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    score_query,
)
from .results import EvalResult, QueryResult, SweepResult
from .runner import evaluate, sweep

__all__ = [
    "MISS",
    "AnswerOutcome",
    "EvalError",
    "EvalResult",
    "GoldenEntry",
    "GoldenPart",
    "GoldenSet",
    "QueryResult",
    "SweepResult",
    "evaluate",
    "hit_rate_at_k",
    "mean_metrics",
    "ndcg_at_k",
    "precision_at_k",
    "recall_at_k",
    "reciprocal_rank",
    "score_query",
    "sweep",
]
