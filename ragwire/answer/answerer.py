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

import ragwire.telemetry as telemetry
from ragwire.config import DEFAULT_RETRIES, GenerationConfig, LLMPricing
from ragwire.config.answer import MAX_ITERATIONS_RANGE
from ragwire.errors import ConfigError
from ragwire.providers import calls
from ragwire.providers.usage import merged
from ragwire.retrieval.hit import Hit
from ragwire.retrieval.retriever import RetrieveOptions, SupportsRetrieve

from . import generative, refine_llm, refine_offline
from . import refine as refinement
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
    refuse_early,
)
from .parts import route, split_parts
from .prompt import Turn
from .results import Answer, Mode, Usage

if TYPE_CHECKING:
    from ..stages import ChatModel

logger = logging.getLogger(__name__)

__all__ = ["NOTHING_MATCHES", "NOTHING_TO_SEARCH", "NOT_IN_DOCUMENTS", "Answerer"]


class Answerer:
    """Answers questions with numbered citations, or refuses.

    Args:
        retriever: The retrieval stage (a :class:`~ragwire.retrieval.Retriever`, or anything
            with its ``retrieve(query, options) -> list[Hit]``), best first.
        llm: The chat model; None answers extractively.
        generation: The ``generation`` config section (context budget, system prompt, refinement).
        extractive: ``extractive(question, sources) -> (text with [n] markers, refused)``,
            used when ``llm`` is None.
        retries: Extra attempts for a retryable LLM failure (network, 429, 5xx).
        pricing: ``llm.pricing``; sets ``Answer.usage.cost`` (None without it).
        embedding: The collection's embedding model; extractive refinement checks with it
            which terms of a question's part the quoted passages cover.
        collection: The collection's name, for the query spans.
        callbacks: LangChain callback handlers given to every LLM call (``query`` can add more).

    Raises:
        ConfigError: neither an LLM nor an extractive answerer was given.
        ValueError: ``retries`` is negative.
    """

    def __init__(
        self,
        retriever: SupportsRetrieve,
        llm: ChatModel | None = None,
        generation: GenerationConfig | None = None,
        extractive: Extractive | None = None,
        retries: int = DEFAULT_RETRIES,
        pricing: LLMPricing | None = None,
        embedding: Any = None,
        collection: str | None = None,
        callbacks: Sequence[Any] | None = None,
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
        self.pricing = pricing
        self.embedding = embedding
        self.collection = collection or "ragwire"
        self.callbacks: list[Any] = list(callbacks or [])

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
        *,
        refine: bool | None = None,
        max_iterations: int | None = None,
        callbacks: Sequence[Any] | None = None,
        spent: Usage | None = None,
    ) -> Answer:
        """Answer ``question`` from the retrieved chunks, citing them as ``[n]``, or refuse.

        Args:
            question: The question.
            top_k: Chunks to retrieve (default: the retriever's ``top_k``).
            filters: Metadata filters for retrieval.
            rerank: Override reranking, as in ``retrieve()``.
            refine: Plan, retrieve per part, judge and re-query (see :mod:`.refine`);
                default ``generation.refine``.
            max_iterations: The most retrieval rounds when refining; default ``generation.max_iterations``.
            callbacks: LangChain callback handlers for this query's LLM calls.
            spent: LLM usage this question cost before it reached the answerer (reading
                filters from it, ``retriever.auto_filter``); counted in ``Answer.usage``.

        Returns:
            An :class:`Answer`; falsy when the documents do not support an answer.

        Raises:
            ProviderError: the LLM failed (after retries).
            ConfigError: ``max_iterations`` is outside 1 to 10 (as ``generation.max_iterations``).
            ValueError: the question is empty.
        """
        run = self._run(question, top_k, filters, rerank, refine, max_iterations, callbacks, spent)
        with telemetry.span("invoke_agent ragwire", self._query_attributes()) as span:
            if run.refining:
                answer = self._refined(run)
            else:
                grounding = run.ground(question)
                answer = run.finished(self.answer_grounded(grounding, run.callbacks))
            return self._close(answer, run, span)

    async def aquery(
        self,
        question: str,
        top_k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        rerank: bool | None = None,
        *,
        refine: bool | None = None,
        max_iterations: int | None = None,
        callbacks: Sequence[Any] | None = None,
        spent: Usage | None = None,
    ) -> Answer:
        """:meth:`query` with the LLM call awaited (``ainvoke``); retrieval runs synchronously.

        A refined query runs its loop in a worker thread (``asyncio.to_thread``), so the
        event loop is free while its several calls run.
        """
        run = self._run(question, top_k, filters, rerank, refine, max_iterations, callbacks, spent)
        if run.refining:
            import asyncio  # only the async path needs it; a cold synchronous query skips the import

            return await asyncio.to_thread(self.query, question, top_k, filters, rerank, refine=True,
                                           max_iterations=run.max_iterations, callbacks=callbacks, spent=spent)
        with telemetry.span("invoke_agent ragwire", self._query_attributes()) as span:
            grounding = run.ground(question)
            done = self._without_model(grounding)
            if done is None:
                assert self.llm is not None  # _without_model answered every case without one
                reply, usage = await calls.ainvoke(self.llm, self._messages(grounding), retries=self.retries,
                                                   what=self.call_name("answer"), callbacks=run.callbacks, step="answer")
                done = finish(grounding, generative.text_of(reply), usage, 0.0)
            return self._close(run.finished(done), run, span)

    def stream(
        self,
        question: str,
        top_k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        rerank: bool | None = None,
        *,
        refine: bool | None = None,
        max_iterations: int | None = None,
        callbacks: Sequence[Any] | None = None,
        spent: Usage | None = None,
    ) -> Iterator[str | Answer]:
        """Yield the answer's text as it arrives, then the :class:`Answer` (as :meth:`query` gives it).

        Citation numbers the sources do not have and the refusal sentinel are held
        back, a few characters at most, and never shown.  Text already shown cannot
        be withdrawn: when the reply turns out to be a refusal, the pieces end with
        the refusal's explanation.  Extractive mode yields its text once, and so does a
        refined answer (``refine``, default ``generation.refine``): its loop plans,
        searches and judges before anything is written.  Against
        OpenAI-compatible servers the closing usage chunk is requested, so the
        Answer has token counts.
        """
        run = self._run(question, top_k, filters, rerank, refine, max_iterations, callbacks, spent)
        with telemetry.span("invoke_agent ragwire", self._query_attributes()) as span:
            if run.refining:
                refined = self._close(self._refined(run), run, span)
                yield refined.text
                yield refined
                return
            yield from self._pieces(run, run.ground(question), span)

    def _pieces(self, run: refinement.Run, grounding: Grounding, span: telemetry.Span | None) -> Iterator[str | Answer]:
        """The answer to ``grounding`` as the model writes it, then the :class:`Answer` (see :meth:`stream`)."""
        done = self._without_model(grounding)
        if done is not None:
            done = self._close(run.finished(done), run, span)
            yield done.text
            yield done
            return
        assert self.llm is not None
        for piece in generative.stream_answer(self.llm, self._messages(grounding), grounding,
                                              retries=self.retries, what=self.call_name("answer"),
                                              callbacks=run.callbacks):
            yield self._close(run.finished(piece), run, span) if isinstance(piece, Answer) else piece

    def chat(
        self,
        messages: Sequence[Any],
        top_k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        rerank: bool | None = None,
        *,
        callbacks: Sequence[Any] | None = None,
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
        run = self._run(turns[-1].content, top_k, filters, rerank, False, None, callbacks)
        with telemetry.span("invoke_agent ragwire", self._query_attributes()) as span:
            grounding = self._follow_up(run, turns)
            return self._close(run.finished(self.answer_grounded(grounding, run.callbacks)), run, span)

    def chat_stream(self, messages: Sequence[Any], top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                    rerank: bool | None = None, *, callbacks: Sequence[Any] | None = None) -> Iterator[str | Answer]:
        """:meth:`chat`'s answer as the model writes it, then the :class:`Answer` (the pieces as :meth:`stream`'s)."""
        turns = to_turns(messages)
        run = self._run(turns[-1].content, top_k, filters, rerank, False, None, callbacks)
        with telemetry.span("invoke_agent ragwire", self._query_attributes()) as span:
            yield from self._pieces(run, self._follow_up(run, turns), span)

    def _follow_up(self, run: refinement.Run, turns: list[Turn]) -> Grounding:
        """The sources for a conversation's last turn, searched for as a standalone question."""
        earlier, last = turns[:-1], turns[-1].content
        rewrite = Usage()
        if not earlier:
            search = last
        elif self.llm is None:
            search = offline_query(earlier, last)
        else:
            search, rewrite = generative.rewrite(self.llm, earlier, last, retries=self.retries,
                                                 what=self.call_name("rewrite"), callbacks=run.callbacks)
            run.step("rewrite", 0, query=search)
        run.filter_text = search  # filters are read from what is searched: the standalone question
        # Without an LLM the follow-up alone often lacks its topic ("how do I fix it?"):
        # extraction then scores sentences against the joined turns it was searched with.
        asked = search if self.llm is None else last
        grounding = run.ground(asked, search=search, history=earlier)
        grounding.usage = merged(grounding.usage, rewrite)
        return grounding

    # -- steps -------------------------------------------------------------------

    def _run(self, question: str, top_k: int | None, filters: Mapping[str, Any] | None, rerank: bool | None,
             refining: bool | None, max_iterations: int | None, callbacks: Sequence[Any] | None,
             spent: Usage | None = None) -> refinement.Run:
        if not isinstance(question, str) or not question.strip():
            raise ValueError("question: must be a non-empty string")
        limit = self.generation.max_iterations if max_iterations is None else max_iterations
        low, high = MAX_ITERATIONS_RANGE
        if isinstance(limit, bool) or not isinstance(limit, int) or not low <= limit <= high:
            raise ConfigError(f"max_iterations: must be a whole number from {low} to {high} "
                              f"(as generation.max_iterations), got {limit!r}", source="query()")
        on = self.generation.refine if refining is None else refining
        # {} (no filters, or none read from the question) stays {}: None would have them read again.
        given = dict(filters) if filters is not None else None
        return refinement.Run(self, question, top_k, given, rerank, bool(on), limit,
                              [*self.callbacks, *(callbacks or [])], spent=spent or Usage(),
                              max_queries=self.generation.max_queries_per_round)

    def retrieve(self, query: str, top_k: int | None, filters: Mapping[str, Any] | None,
                 rerank: bool | None) -> tuple[list[Hit], float]:
        """The hits for ``query`` and the seconds it took (the retrieval stage traces its own span)."""
        start = time.perf_counter()
        hits = list(self.retriever.retrieve(query, RetrieveOptions(top_k=top_k, filters=filters, rerank=rerank)))
        return hits, time.perf_counter() - start

    def grounding(self, question: str, hits: list[Hit], filters: Mapping[str, Any] | None, seconds: float,
                  history: list[Turn] | None = None) -> Grounding:
        """What the answer needs of ``hits``: the numbered sources within the context budget, and the rest."""
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
            usage=Usage(retrieval_s=seconds),
        )

    def answer_grounded(self, grounding: Grounding, callbacks: Sequence[Any] | None = None) -> Answer:
        """The answer to ``grounding``'s question from its sources, in one step (what refinement finishes with)."""
        done = self._without_model(grounding)
        if done is not None:
            return done
        assert self.llm is not None  # _without_model answered every case without one
        reply, usage = calls.invoke(self.llm, self._messages(grounding), retries=self.retries,
                                    what=self.call_name("answer"), callbacks=callbacks, step="answer")
        return finish(grounding, generative.text_of(reply), usage, 0.0)

    def _refined(self, run: refinement.Run) -> Answer:
        """The router's single shot for a plain factual question, else the refinement loop."""
        kind = route(run.question)
        if kind == "factual":
            run.step("classify", 0, kind=kind, by="router")
            return run.finished(self.answer_grounded(run.ground(run.question), run.callbacks))
        if self.llm is None:
            return refine_offline.run(run, kind)
        return refine_llm.run(run, kind)

    def _without_model(self, grounding: Grounding) -> Answer | None:
        """The answer when no LLM call is needed: an early refusal, or extractive mode; else None."""
        refusal = refuse_early(grounding)
        if refusal is not None or self.llm is not None:
            return refusal
        assert self.extractive is not None  # the constructor guarantees one of llm / extractive
        # A chat's joined turns are one question with its context, not two questions.
        parts = split_parts(grounding.question) if not grounding.history else []
        if len(parts) > 1:
            # Each part is answered from its own quotes of the same sources, and a part none of
            # them answers is named as not covered: a near-topic sentence does not fill it.
            return refine_offline.single_shot(grounding, parts, self.extractive)
        return extracted(grounding, self.extractive)

    def _messages(self, grounding: Grounding) -> list[Any]:
        return generative.messages(self.generation, grounding)

    def call_name(self, step: str) -> str:
        """The name an LLM call of ``step`` is logged and traced under."""
        return generative.call_name(self.llm, step)

    def _query_attributes(self) -> dict[str, Any]:
        attributes: dict[str, Any] = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "ragwire",
                                      "gen_ai.data_source.id": self.collection, "ragwire.mode": self.mode}
        if self.llm is not None:
            attributes["gen_ai.request.model"] = telemetry.chat_attributes(self.llm)["gen_ai.request.model"]
        return attributes

    def _close(self, answer: Answer, run: refinement.Run, span: telemetry.Span | None) -> Answer:
        """The answer with its cost, trace id and trace; the query span gets the totals."""
        if run.spent.llm_calls:
            answer.usage = merged(answer.usage, run.spent)
        usage = answer.usage
        usage.price(self.pricing)
        answer.trace_id = telemetry.trace_id(span)
        telemetry.set_attributes(span, {
            **telemetry.usage_attributes(usage.prompt_tokens, usage.completion_tokens),
            "ragwire.llm_calls": usage.llm_calls, "ragwire.iterations": answer.iterations,
            "ragwire.refused": answer.refused, "ragwire.refined": run.refining, "ragwire.cost": usage.cost,
        })
        return answer

