"""The `generation:` section: the context budget and prompt of ``query()``."""

from __future__ import annotations

from pydantic import Field, field_validator

from ragwire.config._base import _Section


class GenerationConfig(_Section):
    """`generation:` the context budget and prompt of ``query()``."""

    max_context_chars: int = Field(12_000, ge=500)
    system_prompt: str | None = None
    # Refinement (plan, retrieve per part, judge, re-query) for questions a router sees as
    # multi-part; off by default so a plain query costs what it always did.
    refine: bool = False
    max_iterations: int = Field(3, ge=1, le=10)

    @field_validator("system_prompt")
    @classmethod
    def _keeps_sentinel(cls, value: str | None) -> str | None:
        if value is not None and "{sentinel}" not in value:
            raise ValueError(
                "must contain {sentinel}: it is replaced with the refusal token, "
                "and without it refusal detection stops working"
            )
        return value
