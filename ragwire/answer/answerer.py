"""Answer a question from the collection: retrieve, fit the context budget, ask the LLM (or extract), cite or refuse.

The same steps serve ``query``, ``aquery``, ``stream`` and ``chat``; only the way
the model is called differs.  A question the documents cannot answer gives a
refused :class:`Answer`, never an exception; an LLM that cannot be reached is a
:class:`~ragwire.errors.ProviderError`, never a refusal.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ragwire.config import GenerationConfig
from ragwire.errors import ConfigError
from ragwire.providers.retry import acall_with_retries, call_with_retries
from ragwire.retrieval.retriever import RetrieveOptions, SupportsRetrieve

from . import generative
from .chat import offline_query, to_turns
from .context import build_context
from .finishing import (
    NOT_IN_DOCUMENTS,
    NOTHING_MATCHES,
    NOTHING_TO_SEARCH,
    Extractive,
    Grounding,
    extracted,
    finish,
    merged,
    refuse_early,
)
from .prompt import Turn
from .types import Answer, Mode, Usage

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

logger = logging.getLogger(__name__)

__all__ = ["NOTHING_MATCHES", "NOTHING_TO_SEARCH", "NOT_IN_DOCUMENTS", "Answerer"]


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
        assert self.llm is not None  # _without_model answered every case without one
        start = time.perf_counter()
        reply = await acall_with_retries(
            self.llm.ainvoke, self._messages(grounding), retries=self.retries, what=self._what("answer")
        )
        seconds = time.perf_counter() - start
        return finish(grounding, generative.text_of(reply), generative.reported_usage(reply), seconds)

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
        assert self.llm is not None
        yield from generative.stream_answer(self.llm, self._messages(grounding), grounding, retries=self.retries,
                                            what=self._what("answer"))

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
            assert self.llm is not None
            search, rewrite = generative.rewrite(self.llm, earlier, last, retries=self.retries,
                                                 what=self._what("rewrite"))
        # Without an LLM the follow-up alone often lacks its topic ("how do I fix it?"):
        # extraction then scores sentences against the joined turns it was searched with.
        asked = search if self.llm is None else last
        grounding = self._ground(asked, search, top_k, filters, rerank, history=earlier)
        grounding.usage = merged(grounding.usage, rewrite)
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
    ) -> Grounding:
        if not isinstance(question, str) or not question.strip():
            raise ValueError("question: must be a non-empty string")
        start = time.perf_counter()
        hits = list(self.retriever.retrieve(search, RetrieveOptions(top_k=top_k, filters=filters, rerank=rerank)))
        usage = Usage(retrieval_s=time.perf_counter() - start)
        sources = build_context(hits, self.generation.max_context_chars)
        logger.info(
            "retrieved %d chunks, %d shown to the %s answerer", len(hits), len(sources), self.mode
        )
        return Grounding(
            question=question,
            hits=hits,
            documents=[hit.to_document() for hit in hits],
            sources=sources,
            filters_used=dict(filters) if filters else None,
            mode=self.mode,
            history=list(history or []),
            usage=usage,
        )

    def _answer(self, grounding: Grounding) -> Answer:
        done = self._without_model(grounding)
        if done is not None:
            return done
        assert self.llm is not None  # _without_model answered every case without one
        start = time.perf_counter()
        reply = call_with_retries(
            self.llm.invoke, self._messages(grounding), retries=self.retries, what=self._what("answer")
        )
        seconds = time.perf_counter() - start
        return finish(grounding, generative.text_of(reply), generative.reported_usage(reply), seconds)

    def _without_model(self, grounding: Grounding) -> Answer | None:
        """The answer when no LLM call is needed: an early refusal, or extractive mode; else None."""
        refusal = refuse_early(grounding)
        if refusal is not None or self.llm is not None:
            return refusal
        assert self.extractive is not None  # the constructor guarantees one of llm / extractive
        return extracted(grounding, self.extractive)

    def _messages(self, grounding: Grounding) -> list[Any]:
        return generative.messages(self.generation, grounding)

    def _what(self, step: str) -> str:
        return generative.call_name(self.llm, step)
