"""Refinement without an LLM: split the question, search each part, check the quotes cover its terms, re-query.

The extractive answerer quotes passages for each part from the chunks found for
that part.  A part is covered when its answer quotes passages and those passages
state its specific terms (numbers, codes, and the words it rests on, as
:func:`~.answerable.missing_terms` finds them).  An uncovered part is searched
again for its uncovered terms, at most ``max_iterations`` rounds in all; then
each covered part is answered with its citations and each uncovered one named as
not covered by the documents.
"""

from __future__ import annotations

import dataclasses
import re
import time
from typing import Any

from ragwire.retrieval.hit import Hit

from .answerable import missing_terms
from .calibration import calibrated
from .citations import marker_spans, renumber
from .context import NumberedSource
from .finishing import finish, refusal, refuse_early, searched
from .parts import split_parts
from .reference import names_nothing, search_query
from .refine import Run, hit_key, interleave
from .results import Answer, Usage


def run(state: Run, kind: str) -> Answer:
    """The deterministic refinement loop for ``state.question`` (classified ``kind`` by the router)."""
    answerer = state.answerer
    parts = split_parts(state.question)
    state.step("classify", 0, kind=kind, by="router")
    if len(parts) < 2:
        # A comparison or summary in one sentence has no parts to split off without a model.
        grounding = state.ground(state.question)
        return state.finished(answerer.answer_grounded(grounding, state.callbacks))
    state.step("plan", 0, queries=parts)
    found: dict[str, list[Hit]] = {}
    wide = 2 * (state.top_k or _top_k(answerer))
    # "…, and when do they open?" is searched with what "they" are (reference.py).
    search = {part: search_query(part, parts[0]) for part in parts}
    asked: set[tuple[str, int | None]] = {(search[part], state.top_k) for part in parts}
    seconds = 0.0
    for part in parts:
        found[part], took = state.retrieve(search[part], 1)
        seconds += took
    iteration = 1
    while True:
        grounding = answerer.grounding(state.question, interleave(found.values()), state.filters, seconds)
        strengths: dict[str, float] = {}
        # Each part is read as written: with its topic words it reads as answered by any sentence about the
        # topic (a part the documents do not cover got a near-topic quote in 8 of 11 changed outcomes).
        answers = {part: _answer_part(answerer, part, _sources_of(grounding.sources, found[part]), strengths)
                   for part in parts}
        missing = {part: gaps for part, (_, refused, gaps) in answers.items() if refused or gaps}
        state.step("judge", iteration, decision="sufficient" if not missing else "insufficient",
                   missing=[f"{part} ({', '.join(gaps) or 'no passage answers it'})" for part, gaps in missing.items()])
        # The part's own words found nothing that states them: search for what is missing,
        # wider, and let those chunks come first for this part.  A query already run finds
        # nothing new, so a part with no new query to try ends the loop for itself.
        queries = {part: _refined_query(search[part], gaps) for part, gaps in missing.items()}
        queries = {part: q for part, q in queries.items() if (q, wide) not in asked}
        if not queries or iteration >= state.max_iterations:
            break
        iteration += 1
        for part, query in queries.items():
            asked.add((query, wide))
            hits, took = state.retrieve(query, iteration, top_k=wide)
            seconds += took
            found[part] = _first(hits, found[part])
    state.iterations = iteration
    answer = compose(grounding, parts, answers)
    answered = [strengths[p] for p in parts if p in strengths and not answers[p][1]]
    if answered and not answer.refused:
        # As single-shot: the least grounded part answered says how far the whole answer can be trusted.
        answer.confidence = calibrated(min(answered))
    return state.finished(answer)


def _answer_part(answerer: Any, part: str, sources: list[NumberedSource],
                 strengths: dict[str, float] | None = None) -> tuple[str, bool, list[str]]:
    """``(text, refused, uncovered terms)`` of the extractive answer to one part.

    The part is answered from its own chunks numbered 1..n in its own retrieval order
    (the extractive ranking favours earlier sources), then the markers are given back
    the numbers of the merged context.  An :class:`~.extraction.Extractor`'s grounding
    strength for the part goes into ``strengths``.
    """
    if not sources:
        return "", True, []
    local = [dataclasses.replace(s, index=i) for i, s in enumerate(sources, 1)]
    extract = getattr(answerer.extractive, "extract", None)
    if extract is not None:
        extraction = extract(part, local)
        text, refused = extraction.render()
        if strengths is not None and not refused:
            strengths[part] = extraction.strength
    else:
        text, refused = answerer.extractive(part, local)
    numbers = {s.index: source.index for s, source in zip(local, sources, strict=True)}
    text = renumber(text, numbers)
    if answerer.embedding is None:
        return text, refused, []
    if refused:
        return text, True, missing_terms(part, sources, answerer.embedding)
    cited = {n for m in marker_spans(text, {s.index for s in sources}) for n in m.sources}
    quoted = [s for s in sources if s.index in cited]
    return text, False, missing_terms(part, quoted or sources, answerer.embedding)


def _refined_query(part: str, gaps: list[str]) -> str:
    """The part's uncovered terms first, then its other words: the terms must be found, in the part's context."""
    if not gaps:
        return part  # no term to name: the same words, searched wider
    rest = [w for w in re.findall(r"[\w.-]+", part) if w.lower() not in {g.lower() for g in gaps}]
    return " ".join([*gaps, *rest])


def _sources_of(sources: list[NumberedSource], hits: list[Hit]) -> list[NumberedSource]:
    """The numbered sources (global numbers kept) that came from ``hits``, in ``hits``' order."""
    by_key = {hit_key(s.hit): s for s in sources}
    return [by_key[k] for k in dict.fromkeys(hit_key(h) for h in hits) if k in by_key]


def _first(new: list[Hit], old: list[Hit]) -> list[Hit]:
    keys = {hit_key(h) for h in new}
    return [*new, *(h for h in old if hit_key(h) not in keys)]


def compose(grounding: Any, parts: list[str], answers: dict[str, tuple[str, bool, list[str]]]) -> Answer:
    """Each covered part's quotes under its question, each uncovered part named; a refusal when none is covered."""
    early = refuse_early(grounding)
    if early is not None:
        return early
    start = time.perf_counter()
    if answers[parts[0]][1]:
        # "Can I hire a tandem there, and at what price?": the price of a thing the documents do not cover.
        answers = {p: (a if p == parts[0] or not names_nothing(p) else ("", True, a[2])) for p, a in answers.items()}
    uncovered = [p for p in parts if answers[p][1]]
    if len(uncovered) == len(parts):
        named = "; ".join(f"'{p}'" for p in parts)
        return refusal(grounding, f"The documents do not cover any part of this question: {named} "
                                  f"(searched {searched(grounding)}).")
    blocks = []
    for part in parts:
        text, refused, _ = answers[part]
        blocks.append(f"{part}\n" + ("The documents do not cover this part." if refused else text))
    return finish(grounding, "\n\n".join(blocks), Usage(), time.perf_counter() - start)


def single_shot(grounding: Any, parts: list[str], extractive: Any) -> Answer:
    """Each part of a multi-part question answered from its own quotes of the one search's sources (no refinement).

    A part none of the sources answers is named as not covered: a near-topic sentence
    does not fill it.  The confidence is that of the least grounded part answered.
    """
    answers: dict[str, tuple[str, bool, list[str]]] = {}
    strengths = []
    for part in parts:
        extract = getattr(extractive, "extract", None)
        if extract is not None:
            extraction = extract(part, grounding.sources)
            text, refused = extraction.render()
            strengths += [] if refused else [extraction.strength]
        else:
            text, refused = extractive(part, grounding.sources)
        answers[part] = (text, refused, [])
    answer = compose(grounding, parts, answers)
    if strengths and not answer.refused:
        answer.confidence = calibrated(min(strengths))
    return answer


def _top_k(answerer: Any) -> int:
    return int(getattr(getattr(answerer.retriever, "config", None), "top_k", 5) or 5)

