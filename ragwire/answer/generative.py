"""The generative path: the messages sent to the chat model, the streamed reply, the follow-up rewrite.

Every model call is retried on a retryable failure (network, 429, 5xx) until the
first piece of a stream arrived; after that a failure ends the stream.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import ragwire.telemetry as telemetry
from ragwire.config import GenerationConfig
from ragwire.errors import ProviderError
from ragwire.providers import calls
from ragwire.providers.calls import reported_usage
from ragwire.providers.retry import call_with_retries, classify
from ragwire.providers.usage import merged

from .finishing import Grounding, finish
from .prompt import (
    REWRITE_SYSTEM_PROMPT,
    Turn,
    clean_rewrite,
    rewrite_user_message,
    system_prompt,
    user_message,
)
from .results import Answer, Usage
from .streaming import StreamFilter

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

    from ..stages import ChatModel


def messages(generation: GenerationConfig, grounding: Grounding) -> list[BaseMessage]:
    """The system prompt, the earlier turns of a chat, then the question with its numbered sources."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    history = [
        HumanMessage(turn.content) if turn.role == "user" else AIMessage(turn.content)
        for turn in grounding.history
    ]
    return [
        SystemMessage(system_prompt(generation)),
        *history,
        HumanMessage(user_message(grounding.question, grounding.sources)),
    ]


def stream_answer(llm: ChatModel, sent: list[BaseMessage], grounding: Grounding, *, retries: int,
                  what: str, callbacks: Sequence[Any] | None = None) -> Iterator[str | Answer]:
    """Yield the reply's text as it arrives (invalid markers and the sentinel held back), then the Answer."""
    # The span stays current only while this generator runs a step; its timing spans the stream.
    with telemetry.span(calls.span_name(llm), telemetry.chat_attributes(llm, "answer"), client=True) as span:
        answer = None
        for piece in _stream(llm, sent, grounding, retries=retries, what=what, callbacks=callbacks):
            if isinstance(piece, Answer):
                answer = piece
                calls.record(span, Usage(prompt_tokens=piece.usage.prompt_tokens,
                                         completion_tokens=piece.usage.completion_tokens))
            yield piece
        assert answer is not None


def _stream(llm: ChatModel, sent: list[BaseMessage], grounding: Grounding, *, retries: int,
            what: str, callbacks: Sequence[Any] | None) -> Iterator[str | Answer]:
    config = calls.run_config(callbacks)
    attempts = 0  # each one is a request sent: a call, as calls.invoke counts them

    def open_stream() -> tuple[Iterator[Any], Any]:
        nonlocal attempts
        attempts += 1
        # The request goes out on the first next(); retrying it is safe until a piece arrived.
        pieces = iter(llm.stream(sent, config=config) if config else llm.stream(sent))
        return pieces, next(pieces, None)

    start = time.perf_counter()
    pieces, first = call_with_retries(open_stream, retries=retries, what=what)
    shown = StreamFilter({s.index for s in grounding.sources})
    reply: list[str] = []
    reported = Usage(llm_calls=attempts)
    chunk = first
    try:
        while chunk is not None:
            reply.append(text_of(chunk))
            reported = merged(reported, reported_usage(chunk, calls=0))
            visible = shown.feed(reply[-1])
            if visible:
                yield visible
            chunk = next(pieces, None)
    except Exception as exc:
        error = classify(exc)
        if error is None:
            raise
        # Pieces were already shown, so a retry would repeat them: fail instead.
        raise ProviderError(f"{what} failed while streaming: {error}", retryable=error.retryable) from exc
    finally:
        # A consumer that stops early must not leave the HTTP stream open.
        close = getattr(pieces, "close", None)
        if close is not None:
            close()
    answer = finish(grounding, "".join(reply), reported, time.perf_counter() - start)
    if answer.refused:
        yield ("\n\n" if shown.shown else "") + answer.text
    else:
        tail = shown.finish()
        if tail:
            yield tail
    yield answer


def rewrite(llm: ChatModel, earlier: list[Turn], last: str, *, retries: int, what: str,
            callbacks: Sequence[Any] | None = None) -> tuple[str, Usage]:
    """The last user turn as a standalone question, by one LLM call."""
    from langchain_core.messages import HumanMessage, SystemMessage

    messages = [SystemMessage(REWRITE_SYSTEM_PROMPT), HumanMessage(rewrite_user_message(earlier, last))]
    reply, usage = calls.invoke(llm, messages, retries=retries, what=what, callbacks=callbacks, step="rewrite")
    return clean_rewrite(text_of(reply), fallback=last), usage


def call_name(llm: Any, step: str) -> str:
    """How a failed call names itself: ``LLM answer (model gpt-4o-mini)``."""
    name = getattr(llm, "model_name", None) or getattr(llm, "model", None) or type(llm).__name__
    return f"LLM {step} (model {name})"


def text_of(message: Any) -> str:
    """The text of a LangChain message or chunk; content blocks keep their text parts."""
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    text = getattr(message, "text", "")
    # langchain-core 1.x: a str property; older releases: a method.
    return text if isinstance(text, str) else str(text())
