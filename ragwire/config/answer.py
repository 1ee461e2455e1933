"""The `generation:` section: the context budget and prompt of ``query()``, and its refinement limits."""

from __future__ import annotations

from pydantic import Field, field_validator

from ragwire.config._base import _Section

# The bounds of `generation.max_iterations`, shared with the `max_iterations=` argument and
# `--max-iterations`: past ten rounds a judge that is never satisfied only burns calls.
MAX_ITERATIONS_RANGE = (1, 10)
# The bounds of `generation.max_queries_per_round`: a plan of 40 parts would run 40 searches.
MAX_QUERIES_RANGE = (1, 20)


class GenerationConfig(_Section):
    """`generation:` the context budget and prompt of ``query()``."""

    max_context_chars: int = Field(12_000, ge=500)
    system_prompt: str | None = None
    # Refinement (plan, retrieve per part, judge, re-query) for questions a router sees as
    # multi-part; off by default so a plain query costs what it always did.
    refine: bool = False
    max_iterations: int = Field(3, ge=MAX_ITERATIONS_RANGE[0], le=MAX_ITERATIONS_RANGE[1])
    # Searches one refinement round may run (the plan's, then each round's follow-ups); the
    # rest are dropped and named in the trace.  Four covers the questions people ask in one go.
    max_queries_per_round: int = Field(4, ge=MAX_QUERIES_RANGE[0], le=MAX_QUERIES_RANGE[1])

    @field_validator("system_prompt")
    @classmethod
    def _keeps_sentinel(cls, value: str | None) -> str | None:
        if value is not None and "{sentinel}" not in value:
            raise ValueError(
                "must contain {sentinel}: it is replaced with the refusal token, "
                "and without it refusal detection stops working"
            )
        return value
