"""What LLM calls used: the tokens the provider reported, the calls made, and their price under ``llm.pricing``.

One type and one summing rule for every place that calls a chat model: a query's
answer (``Answer.usage``) and an ingest's metadata extraction (``metadata_usage``
in the ingest and sync stats).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ragwire.config import LLMPricing

N = TypeVar("N", int, float)  # a token count or a cost


@dataclass
class Usage:
    """Tokens when the provider reports them, the calls made, and the seconds each stage took.

    For a query, summed over every LLM call it made (a chat's rewrite, refinement's
    classify and judge calls, the answer); for an ingest, over every metadata
    extraction.  ``llm_calls`` counts the requests sent, retried attempts included.
    ``cost`` is in the currency of ``llm.pricing`` and None without pricing (never a
    guessed price).
    """

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    retrieval_s: float = 0.0
    generation_s: float = 0.0
    llm_calls: int = 0
    cost: float | None = None

    @property
    def total_tokens(self) -> int | None:
        """Prompt plus completion tokens; None when the provider reported neither."""
        if self.prompt_tokens is None and self.completion_tokens is None:
            return None
        return (self.prompt_tokens or 0) + (self.completion_tokens or 0)

    def price(self, pricing: LLMPricing | None) -> None:
        """Set ``cost`` from ``pricing`` (None without pricing, or when no tokens were reported)."""
        self.cost = None if pricing is None else pricing.cost(self.prompt_tokens, self.completion_tokens)

    def accounting(self) -> dict[str, Any]:
        """LLM calls, tokens and cost as a JSON-safe dict (the shape of eval's ``answer_usage``)."""
        return {"llm_calls": self.llm_calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "total_tokens": self.total_tokens, "cost": self.cost}


def merged(a: Usage, b: Usage) -> Usage:
    """Sum two usages; a token count (or cost) stays None only when neither side has one."""

    def add(x: N | None, y: N | None) -> N | None:
        return None if x is None and y is None else (x or 0) + (y or 0)

    return Usage(
        prompt_tokens=add(a.prompt_tokens, b.prompt_tokens),
        completion_tokens=add(a.completion_tokens, b.completion_tokens),
        retrieval_s=a.retrieval_s + b.retrieval_s,
        generation_s=a.generation_s + b.generation_s,
        llm_calls=a.llm_calls + b.llm_calls,
        cost=add(a.cost, b.cost),
    )


def add_into(total: Usage, part: Usage) -> None:
    """Add ``part`` to ``total`` in place (for a tally that outlives a failed call)."""
    summed = merged(total, part)
    total.prompt_tokens, total.completion_tokens = summed.prompt_tokens, summed.completion_tokens
    total.retrieval_s, total.generation_s = summed.retrieval_s, summed.generation_s
    total.llm_calls, total.cost = summed.llm_calls, summed.cost
