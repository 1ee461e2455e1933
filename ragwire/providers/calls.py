"""One chat-model call: retried, traced as a ``chat`` span, its tokens and attempts counted, callbacks passed on.

Every model call ragwire makes goes through here (a query's answer, a chat's
rewrite, refinement's classify and judge, an ingest's metadata extraction), so
:class:`~.usage.Usage` counts all of them by one rule and a LangChain callback
handler (Langfuse, LangSmith) sees each.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ragwire.telemetry as telemetry

from .retry import acall_with_retries, call_with_retries
from .usage import Usage, add_into

if TYPE_CHECKING:
    from langchain_core.runnables import Runnable, RunnableConfig

    from ..stages import ChatModel


def run_config(callbacks: Sequence[Any] | None) -> RunnableConfig:
    """The LangChain ``config=`` of a call: the callbacks, when there are any."""
    return {"callbacks": list(callbacks)} if callbacks else {}


def reported_usage(message: object, calls: int = 1) -> Usage:
    """Token counts the provider reported on ``message`` (None when it reported none), as ``calls`` calls.

    A structured-output reply (``with_structured_output(..., include_raw=True)``)
    is read through its ``raw`` message.
    """
    if isinstance(message, dict) and "raw" in message:
        message = message["raw"]
    meta = getattr(message, "usage_metadata", None) or {}
    return Usage(prompt_tokens=meta.get("input_tokens"), completion_tokens=meta.get("output_tokens"),
                 llm_calls=calls)


def invoke(llm: ChatModel, messages: list[Any], *, retries: int, what: str,
           callbacks: Sequence[Any] | None = None, runnable: Runnable[Any, Any] | None = None,
           tally: Usage | None = None, step: str | None = None) -> tuple[Any, Usage]:
    """``llm.invoke(messages)`` with retries; the reply and its usage (generation seconds included).

    Args:
        llm: the chat model; it names the ``chat`` span.
        messages: what is sent.
        retries: extra attempts for a retryable failure; each attempt sent counts as a call.
        what: how a failure names the call.
        callbacks: LangChain callback handlers for the call.
        runnable: what to invoke instead of ``llm`` (e.g. its structured-output wrapper).
        tally: a running total this call's usage is added to, even when the call fails,
            so attempts that ended in an error are counted too.
        step: what the call is for (``answer``, ``judge``, …), on its span as ``ragwire.step``.

    Raises:
        ProviderError: see :func:`~.retry.call_with_retries`.
    """
    target = llm if runnable is None else runnable
    config = run_config(callbacks)
    usage = Usage()

    def attempt(sent: list[Any]) -> Any:
        usage.llm_calls += 1
        return target.invoke(sent, config=config) if config else target.invoke(sent)

    with telemetry.span(_name(llm), telemetry.chat_attributes(llm, step), client=True) as span:
        start = time.perf_counter()
        try:
            reply = call_with_retries(attempt, messages, retries=retries, what=what)
            _read_tokens(usage, reply)
        finally:
            usage.generation_s = time.perf_counter() - start
            if tally is not None:
                add_into(tally, usage)
        record(span, usage)
    return reply, usage


async def ainvoke(llm: ChatModel, messages: list[Any], *, retries: int, what: str,
                  callbacks: Sequence[Any] | None = None, step: str | None = None) -> tuple[Any, Usage]:
    """:func:`invoke` awaited (``llm.ainvoke``)."""
    config = run_config(callbacks)
    usage = Usage()

    async def attempt(sent: list[Any]) -> Any:
        usage.llm_calls += 1
        return await (llm.ainvoke(sent, config=config) if config else llm.ainvoke(sent))

    with telemetry.span(_name(llm), telemetry.chat_attributes(llm, step), client=True) as span:
        start = time.perf_counter()
        reply = await acall_with_retries(attempt, messages, retries=retries, what=what)
        _read_tokens(usage, reply)
        usage.generation_s = time.perf_counter() - start
        record(span, usage)
    return reply, usage


def _read_tokens(usage: Usage, reply: object) -> None:
    reported = reported_usage(reply, calls=0)
    usage.prompt_tokens, usage.completion_tokens = reported.prompt_tokens, reported.completion_tokens


def record(span: telemetry.Span | None, usage: Usage) -> None:
    """Put the call's token counts on its ``chat`` span."""
    telemetry.set_attributes(span, telemetry.usage_attributes(usage.prompt_tokens, usage.completion_tokens))


def span_name(llm: ChatModel) -> str:
    """``chat gpt-4o-mini``: the GenAI conventions' name of a chat span."""
    return _name(llm)


def _name(llm: ChatModel) -> str:
    return f"chat {telemetry.chat_attributes(llm)['gen_ai.request.model']}"
