"""Answer a question from the collection: retrieve, fit the context budget, ask the LLM (or extract), cite or refuse.

The same steps serve ``query``, ``aquery``, ``stream`` and ``chat``; only the way
the model is called differs.  A question the documents cannot answer gives a
refused :class:`Answer`, never an exception; an LLM that cannot be reached is a
:class:`~ragwire.errors.ProviderError`, never a refusal.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragwire.config import GenerationConfig
from ragwire.errors import ConfigError, ProviderError
from ragwire.providers.retry import acall_with_retries, call_with_retries, classify
from ragwire.retrieval.hit import Hit
from ragwire.retrieval.retriever import RetrieveOptions, SupportsRetrieve

from .chat import offline_query, to_turns
from .citations import resolve
from .context import NumberedSource, build_context
from .prompt import (
    REWRITE_SYSTEM_PROMPT,
    Turn,
    clean_rewrite,
    is_refusal,
    rewrite_user_message,
    strip_sentinel,
    system_prompt,
    user_message,
)
from .streaming import StreamFilter
from .types import Answer, Mode, Usage

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage

logger = logging.getLogger(__name__)

Extractive = Callable[[str, list[NumberedSource]], tuple[str, bool]]

NOTHING_TO_SEARCH = (
    "There is nothing to search: the collection is empty or has not been created yet. "
    "Add documents with: ragwire ingest <path>"
)
NOTHING_MATCHES = (
    "No documents match the filters {filters}, so there is nothing to answer from. "
    "Loosen or drop the filters (or, if the collection is empty, add documents with: ragwire ingest <path>)."
)
NOT_IN_DOCUMENTS = "The documents do not contain the answer to this question (searched {searched})."


@dataclass
class _Grounding:
    """What retrieval produced for one question, and everything the answer needs from before the model call."""

    question: str  # as the model is asked it (a chat's last user turn, not its rewrite)
    hits: list[Hit]
    documents: list[Any]  # the hits as the public API's LangChain Documents (Answer.documents)
    sources: list[NumberedSource]
    filters_used: dict[str, Any] | None
    mode: Mode
    history: list[Turn] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


class Answerer:
    """Answers questions with numbered citations, or refuses.

    Args:
        retriever: The retrieval stage (a :class:`~ragwire.retrieval.Retriever`, or anything
            with its ``retrieve(query, options) -> list[Hit]``), best first.
        llm: The chat model; None answers extractively.
        generation: The ``generation`` config section (context budget, system prompt).
        extractive: ``extractive(question, sources) -> (text with [n] markers, refused)``,
            used when ``llm`` is None.
        retries: Extra attempts for a retryable LLM failure (network, 429, 5xx).

    Raises:
        ConfigError: neither an LLM nor an extractive answerer was given.
        ValueError: ``retries`` is negative.
    """

    def __init__(
        self,
        retriever: SupportsRetrieve,
        llm: BaseChatModel | None = None,
        generation: GenerationConfig | None = None,
        extractive: Extractive | None = None,
        retries: int = 2,
    ) -> None:
        if llm is None and extractive is None:
            raise ConfigError("llm: answering questions needs an llm section (or the extractive mode)")
        if retries < 0:
            raise ValueError(f"retries: must be >= 0, got {retries}")
        self.retriever = retriever
        self.llm = llm
        self.generation = generation or GenerationConfig()
        self.extractive = extractive
        self.retries = retries

    @property
    def mode(self) -> Mode:
        """``generative`` with an LLM, else ``extractive``."""
        return "extractive" if self.llm is None else "generative"

    # -- public ----------------------------------------------------------------

    def query(
        self,
        question: str,
        top_k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        rerank: bool | None = None,
    ) -> Answer:
        """Answer ``question`` from the retrieved chunks, citing them as ``[n]``, or refuse.

        Args:
            question: The question.
            top_k: Chunks to retrieve (default: the retriever's ``top_k``).
            filters: Metadata filters for retrieval.
            rerank: Override reranking, as in ``retrieve()``.

        Returns:
            An :class:`Answer`; falsy when the documents do not support an answer.

        Raises:
            ProviderError: the LLM failed (after retries).
            ValueError: the question is empty.
        """
        grounding = self._ground(question, question, top_k, filters, rerank)
        return self._answer(grounding)

    async def aquery(
        self,
        question: str,
        top_k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        rerank: bool | None = None,
    ) -> Answer:
        """:meth:`query` with the LLM call awaited (``ainvoke``); retrieval runs synchronously."""
        grounding = self._ground(question, question, top_k, filters, rerank)
        done = self._without_model(grounding)
        if done is not None:
            return done
        start = time.perf_counter()
        reply = await acall_with_retries(
            self.llm.ainvoke, self._messages(grounding), retries=self.retries, what=self._what("answer")
        )
        return self._finish(grounding, _text(reply), _reported(reply), time.perf_counter() - start)

    def stream(
        self,
        question: str,
        top_k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        rerank: bool | None = None,
    ) -> Iterator[str | Answer]:
        """Yield the answer's text as it arrives, then the :class:`Answer` (as :meth:`query` gives it).

        Citation numbers the sources do not have and the refusal sentinel are held
        back, a few characters at most, and never shown.  Text already shown cannot
        be withdrawn: when the reply turns out to be a refusal, the pieces end with
        the refusal's explanation.  Extractive mode yields its text once.
        """
        grounding = self._ground(question, question, top_k, filters, rerank)
        done = self._without_model(grounding)
        if done is not None:
            yield done.text
            yield done
            return
        yield from self._stream(grounding)

    def chat(
        self,
        messages: Sequence[Any],
        top_k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        rerank: bool | None = None,
    ) -> Answer:
        """Answer the last user turn of a conversation.

        Earlier turns go to the model unchanged.  Retrieval searches for the last
        user turn, first rewritten by the LLM into a standalone question when there
        are earlier turns (one extra call).  Without an LLM, the search is for the
        previous user turn joined with the last one, and the extractive answer is
        chosen for those joined turns too.

        Args:
            messages: ``{"role": "user" | "assistant", "content": str}`` dicts or
                LangChain ``HumanMessage`` / ``AIMessage``, oldest first; the last is the user's.

        Raises:
            ProviderError: the LLM failed (after retries).
            ValueError: the conversation is malformed.
        """
        turns = to_turns(messages)
        earlier, last = turns[:-1], turns[-1].content
        rewrite = Usage()
        if not earlier:
            search = last
        elif self.llm is None:
            search = offline_query(earlier, last)
        else:
            search, rewrite = self._rewrite(earlier, last)
        # Without an LLM the follow-up alone often lacks its topic ("how do I fix it?"):
        # extraction then scores sentences against the joined turns it was searched with.
        asked = search if self.llm is None else last
        grounding = self._ground(asked, search, top_k, filters, rerank, history=earlier)
        grounding.usage = _merged(grounding.usage, rewrite)
        return self._answer(grounding)

    # -- steps -------------------------------------------------------------------

    def _ground(
        self,
        question: str,
        search: str,
        top_k: int | None,
        filters: Mapping[str, Any] | None,
        rerank: bool | None,
        history: list[Turn] | None = None,
    ) -> _Grounding:
        if not isinstance(question, str) or not question.strip():
            raise ValueError("question: must be a non-empty string")
        start = time.perf_counter()
        hits = list(self.retriever.retrieve(search, RetrieveOptions(top_k=top_k, filters=filters, rerank=rerank)))
        usage = Usage(retrieval_s=time.perf_counter() - start)
        sources = build_context(hits, self.generation.max_context_chars)
        logger.info(
            "retrieved %d chunks, %d shown to the %s answerer", len(hits), len(sources), self.mode
        )
        return _Grounding(
            question=question,
            hits=hits,
            documents=[hit.to_document() for hit in hits],
            sources=sources,
            filters_used=dict(filters) if filters else None,
            mode=self.mode,
            history=list(history or []),
            usage=usage,
        )

    def _answer(self, grounding: _Grounding) -> Answer:
        done = self._without_model(grounding)
        if done is not None:
            return done
        start = time.perf_counter()
        reply = call_with_retries(
            self.llm.invoke, self._messages(grounding), retries=self.retries, what=self._what("answer")
        )
        return self._finish(grounding, _text(reply), _reported(reply), time.perf_counter() - start)

    def _without_model(self, grounding: _Grounding) -> Answer | None:
        """The answer when no LLM call is needed: an early refusal, or extractive mode; else None."""
        refusal = self._refuse_early(grounding)
        if refusal is not None or self.llm is not None:
            return refusal
        return self._extract(grounding)

    def _refuse_early(self, grounding: _Grounding) -> Answer | None:
        """A refusal before any model call: nothing retrieved, or nothing fits the budget."""
        if not grounding.documents:
            if grounding.filters_used:
                return _refusal(grounding, NOTHING_MATCHES.format(filters=grounding.filters_used))
            return _refusal(grounding, NOTHING_TO_SEARCH)
        if not grounding.sources:
            return _refusal(grounding, NOT_IN_DOCUMENTS.format(searched=_searched(grounding)))
        return None

    def _extract(self, grounding: _Grounding) -> Answer:
        assert self.extractive is not None  # the constructor guarantees one of llm / extractive
        start = time.perf_counter()
        text, refused = self.extractive(grounding.question, grounding.sources)
        seconds = time.perf_counter() - start
        if refused and text.strip():
            # the extractive answerer knows why (how close the best passage came): keep its reason
            usage = _merged(grounding.usage, Usage(generation_s=seconds))
            return _refusal(grounding, text.strip(), usage)
        return self._finish(grounding, text, Usage(), seconds, refused=refused)

    def _messages(self, grounding: _Grounding) -> list[BaseMessage]:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        history = [
            HumanMessage(turn.content) if turn.role == "user" else AIMessage(turn.content)
            for turn in grounding.history
        ]
        return [
            SystemMessage(system_prompt(self.generation)),
            *history,
            HumanMessage(user_message(grounding.question, grounding.sources)),
        ]

    def _finish(
        self, grounding: _Grounding, reply: str, reported: Usage, seconds: float, refused: bool = False
    ) -> Answer:
        """Turn the model's (or the extractive answerer's) reply into an Answer or a refusal."""
        usage = _merged(grounding.usage, reported)
        usage.generation_s += seconds
        refusal = _refusal(grounding, NOT_IN_DOCUMENTS.format(searched=_searched(grounding)), usage)
        if refused or is_refusal(reply):
            return refusal
        text, citations, confidence = resolve(strip_sentinel(reply), grounding.sources)
        if not any(ch.isalnum() for ch in text):
            logger.warning("the %s answerer returned an empty reply; treating it as a refusal", self.mode)
            return refusal
        logger.info(
            "answered with %d citations (confidence %.2f) in %.1f s",
            len(citations),
            confidence,
            usage.retrieval_s + usage.generation_s,
        )
        return Answer(
            text=text,
            citations=citations,
            documents=grounding.documents,
            filters_used=grounding.filters_used,
            refused=False,
            confidence=confidence,
            mode=grounding.mode,
            usage=usage,
        )

    def _stream(self, grounding: _Grounding) -> Iterator[str | Answer]:
        assert self.llm is not None
        llm = self.llm
        messages = self._messages(grounding)
        what = self._what("answer")

        def open_stream() -> tuple[Iterator[Any], Any]:
            # The request goes out on the first next(); retrying it is safe until a piece arrived.
            pieces = iter(llm.stream(messages))
            return pieces, next(pieces, None)

        start = time.perf_counter()
        pieces, first = call_with_retries(open_stream, retries=self.retries, what=what)
        shown = StreamFilter({s.index for s in grounding.sources})
        reply: list[str] = []
        reported = Usage()
        chunk = first
        try:
            while chunk is not None:
                reply.append(_text(chunk))
                reported = _merged(reported, _reported(chunk))
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
        answer = self._finish(grounding, "".join(reply), reported, time.perf_counter() - start)
        if answer.refused:
            yield ("\n\n" if shown.shown else "") + answer.text
        else:
            tail = shown.finish()
            if tail:
                yield tail
        yield answer

    def _rewrite(self, earlier: list[Turn], last: str) -> tuple[str, Usage]:
        """The last user turn as a standalone question, by one LLM call."""
        from langchain_core.messages import HumanMessage, SystemMessage

        assert self.llm is not None
        messages = [SystemMessage(REWRITE_SYSTEM_PROMPT), HumanMessage(rewrite_user_message(earlier, last))]
        start = time.perf_counter()
        reply = call_with_retries(self.llm.invoke, messages, retries=self.retries, what=self._what("rewrite"))
        usage = _reported(reply)
        usage.generation_s = time.perf_counter() - start
        return clean_rewrite(_text(reply), fallback=last), usage

    def _what(self, step: str) -> str:
        llm = self.llm
        name = getattr(llm, "model_name", None) or getattr(llm, "model", None) or type(llm).__name__
        return f"LLM {step} (model {name})"


def _refusal(grounding: _Grounding, text: str, usage: Usage | None = None) -> Answer:
    return Answer(
        text=text,
        documents=grounding.documents,
        filters_used=grounding.filters_used,
        refused=True,
        confidence=0.0,
        mode=grounding.mode,
        usage=usage or _merged(grounding.usage, Usage()),
    )


def _searched(grounding: _Grounding) -> str:
    chunks = len(grounding.hits)
    files = len({h.metadata.get("source") or h.metadata.get("file_name") for h in grounding.hits})
    return f"{chunks} chunk{'s' if chunks != 1 else ''} from {files} file{'s' if files != 1 else ''}"


def _text(message: Any) -> str:
    """The text of a LangChain message or chunk; content blocks keep their text parts."""
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    text = getattr(message, "text", "")
    # langchain-core 1.x: a str property; older releases: a method.
    return text if isinstance(text, str) else str(text())


def _reported(message: Any) -> Usage:
    """Token counts the provider reported on ``message`` (None when it reported none)."""
    meta = getattr(message, "usage_metadata", None) or {}
    return Usage(prompt_tokens=meta.get("input_tokens"), completion_tokens=meta.get("output_tokens"))


def _merged(a: Usage, b: Usage) -> Usage:
    """Sum two usages; a token count stays None only when neither side reported it."""

    def add(x: int | None, y: int | None) -> int | None:
        return None if x is None and y is None else (x or 0) + (y or 0)

    return Usage(
        prompt_tokens=add(a.prompt_tokens, b.prompt_tokens),
        completion_tokens=add(a.completion_tokens, b.completion_tokens),
        retrieval_s=a.retrieval_s + b.retrieval_s,
        generation_s=a.generation_s + b.generation_s,
    )
