"""Refinement: plan, retrieve per part, judge what is covered, re-query, then answer or refuse the uncovered part.

Single-shot hybrid search often finds one half of "What does error E-17 mean, and
what does a spare battery cost?".  Refinement searches each part on its own,
checks which parts the retrieved text covers, searches again for what is missing
(at most ``max_iterations`` retrieval rounds), merges the results without
duplicates within the context budget, and answers, or names the part the
documents do not cover.

A router (:func:`.parts.route`) decides first, without any model call: a question with one part and no
comparison or summary cue takes the single-shot path, so refinement costs nothing
(no extra LLM call) where it cannot help (the Answerer routes).  The loop itself is
:mod:`.refine_llm` with an LLM (classify, plan, judge in structured calls) and
:mod:`.refine_offline` without one (the same steps, decided deterministically).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ragwire.retrieval.hit import Hit

from .finishing import Grounding
from .prompt import Turn
from .results import Answer, TraceStep, Usage


def hit_key(hit: Hit) -> str:
    """What makes two hits the same chunk: the stored id, else the source and text."""
    return hit.id or f"{hit.metadata.get('source')}\x00{hit.text}"


def interleave(lists: Iterable[list[Hit]]) -> list[Hit]:
    """The hits of every list, taken in turn (best of each first), each chunk once.

    Taking turns keeps every part inside the context budget: the budget is spent
    in this order, and one part's ten chunks must not crowd out another's best.
    """
    queues = [list(hits) for hits in lists]
    out: list[Hit] = []
    seen: set[str] = set()
    while any(queues):
        for queue in queues:
            if not queue:
                continue
            hit = queue.pop(0)
            key = hit_key(hit)
            if key not in seen:
                seen.add(key)
                out.append(hit)
    return out


def normalised(query: str) -> str:
    """What makes two searches the same: their words, case-folded ("E-17 meaning?" is "e 17 meaning")."""
    return " ".join(re.findall(r"\w+", query.casefold()))


@dataclass
class Run:
    """One query on its way through the answerer: its options, its trace, its retrieval rounds."""

    answerer: Any  # the Answerer (typed loosely: it imports this module)
    question: str
    top_k: int | None
    filters: dict[str, Any] | None
    rerank: bool | None
    refining: bool
    max_iterations: int
    callbacks: list[Any]
    trace: list[TraceStep] = field(default_factory=list)
    iterations: int = 1
    # LLM usage of this question before the answerer ran, and the filter extraction's.
    spent: Usage = field(default_factory=Usage)
    # The searches one refinement round may run (generation.max_queries_per_round).
    max_queries: int = 4
    # What filters are read from (retriever.auto_filter): the question, or a chat's rewrite.
    filter_text: str = ""
    # Every search run for this answer, normalised: a round that would only repeat one ends the loop.
    searched: set[str] = field(default_factory=set)
    _filters_read: bool = field(default=False, init=False)

    def step(self, name: str, iteration: int, **data: Any) -> None:
        """Record a step of the trace."""
        self.trace.append(TraceStep(name, iteration, data))

    def warn(self, step: str, iteration: int, problem: str, fallback: str) -> None:
        """Record that ``step``'s reply could not be used, why, and what the answer does instead."""
        self.step("warning", iteration, of=step, problem=problem, fallback=fallback)

    def resolved_filters(self) -> dict[str, Any] | None:
        """The filters of every search: the given ones, else (``retriever.auto_filter``) the ones read
        from :attr:`filter_text`, once per answer and counted in :attr:`spent`.

        ``{}`` (nothing found) stays ``{}``: None would make the retriever read them again.
        """
        if not self._filters_read:
            self._filters_read = True
            read = getattr(self.answerer.retriever, "auto_filters", None)
            if read is not None:
                found = read(self.filter_text or self.question, self.filters, usage=self.spent)
                self.filters = dict(found) if found is not None else None
        return self.filters

    def retrieve(self, query: str, iteration: int, top_k: int | None = None) -> tuple[list[Hit], float]:
        """Search for ``query`` with this query's filters and reranking; the step goes in the trace."""
        filters = self.resolved_filters()
        self.searched.add(normalised(query))
        hits, seconds = self.answerer.retrieve(query, top_k or self.top_k, filters, self.rerank)
        self.step("retrieve", iteration, query=query, filters=filters or None, chunks=len(hits))
        return hits, seconds

    def fresh(self, queries: Iterable[str]) -> tuple[list[str], list[str]]:
        """``(to run, dropped)``: ``queries`` without repeats of each other or of a search already run,
        at most :attr:`max_queries` of them; each dropped one says why."""
        kept: list[str] = []
        dropped: list[str] = []
        seen = set(self.searched)
        for query in queries:
            key = normalised(query)
            if not key or key in seen:
                dropped.append(f"{query!r} (repeats a search)" if key else f"{query!r} (no words)")
            elif len(kept) >= self.max_queries:
                dropped.append(f"{query!r} (over the limit of {self.max_queries} a round)")
            else:
                seen.add(key)
                kept.append(query)
        return kept, dropped

    def ground(self, question: str, search: str | None = None, history: list[Turn] | None = None) -> Grounding:
        """The single-shot grounding: one search (for ``search``, default the question)."""
        hits, seconds = self.retrieve(search or question, 1)
        return self.answerer.grounding(question, hits, self.filters, seconds, history=history)

    def finished(self, answer: Answer) -> Answer:
        """``answer`` with this run's trace (ending in its ``answer`` or ``refuse`` step) and rounds."""
        final = "refuse" if answer.refused else "answer"
        if not self.trace or self.trace[-1].step not in {"answer", "refuse"}:
            detail: dict[str, Any] = {"citations": len(answer.citations)} if not answer.refused else {
                "reason": answer.text}
            self.step(final, self.iterations, **detail)
        answer.trace = list(self.trace)
        answer.iterations = self.iterations
        return answer
