"""One LLM call of a query: retried, traced as a ``chat`` span, its tokens counted, callbacks passed on.

Every model call the answer package makes (the answer, a chat's rewrite,
refinement's classify and judge) goes through here, so :class:`~.types.Usage`
sums all of them and a LangChain callback handler (Langfuse, LangSmith) sees each.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from typing import Any

import ragwire.telemetry as telemetry
from ragwire.providers.retry import acall_with_retries, call_with_retries

from .types import Usage


def run_config(callbacks: Sequence[Any] | None) -> dict[str, Any]:
    """The LangChain ``config=`` of a call: the callbacks, when there are any."""
    return {"callbacks": list(callbacks)} if callbacks else {}


def reported_usage(message: Any, calls: int = 1) -> Usage:
    """Token counts the provider reported on ``message`` (None when it reported none), as ``calls`` calls."""
    meta = getattr(message, "usage_metadata", None) or {}
    return Usage(prompt_tokens=meta.get("input_tokens"), completion_tokens=meta.get("output_tokens"),
                 llm_calls=calls)


def invoke(llm: Any, messages: list[Any], *, retries: int, what: str,
           callbacks: Sequence[Any] | None = None) -> tuple[Any, Usage]:
    """``llm.invoke(messages)`` with retries; the reply and its usage (generation seconds included)."""
    call = functools.partial(llm.invoke, config=run_config(callbacks)) if callbacks else llm.invoke
    with telemetry.span(_name(llm), telemetry.chat_attributes(llm)) as span:
        start = time.perf_counter()
        reply = call_with_retries(call, messages, retries=retries, what=what)
        usage = reported_usage(reply)
        usage.generation_s = time.perf_counter() - start
        record(span, usage)
    return reply, usage


async def ainvoke(llm: Any, messages: list[Any], *, retries: int, what: str,
                  callbacks: Sequence[Any] | None = None) -> tuple[Any, Usage]:
    """:func:`invoke` awaited (``llm.ainvoke``)."""
    call = functools.partial(llm.ainvoke, config=run_config(callbacks)) if callbacks else llm.ainvoke
    with telemetry.span(_name(llm), telemetry.chat_attributes(llm)) as span:
        start = time.perf_counter()
        reply = await acall_with_retries(call, messages, retries=retries, what=what)
        usage = reported_usage(reply)
        usage.generation_s = time.perf_counter() - start
        record(span, usage)
    return reply, usage


def record(span: Any, usage: Usage) -> None:
    """Put the call's token counts on its ``chat`` span."""
    telemetry.set_attributes(span, telemetry.usage_attributes(usage.prompt_tokens, usage.completion_tokens))


def span_name(llm: Any) -> str:
    """``chat gpt-4o-mini``: the GenAI conventions' name of a chat span."""
    return _name(llm)


def _name(llm: Any) -> str:
    return f"chat {telemetry.chat_attributes(llm)['gen_ai.request.model']}"
