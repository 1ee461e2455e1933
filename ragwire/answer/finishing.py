"""Finishing an answer: the refusals, and a reply turned into an Answer with its citations.

Shared by the generative and the extractive path: a reply that is a refusal, or has
no words left once invalid citations are dropped, becomes a refusal saying what was
searched; otherwise its markers are resolved onto the numbered sources.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ragwire.providers.usage import merged
from ragwire.retrieval.hit import Hit

from .calibration import calibrated
from .citations import marker_spans, resolve
from .context import NumberedSource
from .prompt import Turn, is_refusal, strip_sentinel
from .results import Answer, Mode, Usage

logger = logging.getLogger("ragwire.answer.answerer")

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
class Grounding:
    """What retrieval produced for one question, and everything the answer needs from before the model call."""

    question: str  # as the model is asked it (a chat's last user turn, not its rewrite)
    hits: list[Hit]
    documents: list[Any]  # the hits as the public API's LangChain Documents (Answer.documents)
    sources: list[NumberedSource]
    filters_used: dict[str, Any] | None
    mode: Mode
    history: list[Turn] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


def refuse_early(grounding: Grounding) -> Answer | None:
    """A refusal before any model call: nothing retrieved, or nothing fits the budget."""
    if not grounding.documents:
        if grounding.filters_used:
            return refusal(grounding, NOTHING_MATCHES.format(filters=grounding.filters_used))
        return refusal(grounding, NOTHING_TO_SEARCH)
    if not grounding.sources:
        return refusal(grounding, NOT_IN_DOCUMENTS.format(searched=searched(grounding)))
    return None


def extracted(grounding: Grounding, extractive: Extractive) -> Answer:
    """The extractive answerer's answer (or refusal, with its reason) for ``grounding``."""
    start = time.perf_counter()
    extract = getattr(extractive, "extract", None)
    confidence = None
    if extract is not None:  # an Extractor: its grounding strength, calibrated, is the answer's confidence
        extraction = extract(grounding.question, grounding.sources)
        text, refused = extraction.render()
        confidence = calibrated(extraction.strength)
    else:
        text, refused = extractive(grounding.question, grounding.sources)
    seconds = time.perf_counter() - start
    if refused and text.strip():
        # the extractive answerer knows why (how close the best passage came): keep its reason
        usage = merged(grounding.usage, Usage(generation_s=seconds))
        return refusal(grounding, text.strip(), usage)
    answer = finish(grounding, text, Usage(), seconds, refused=refused)
    if confidence is not None and not answer.refused:
        answer.confidence = confidence
    return answer


def finish(
    grounding: Grounding, reply: str, reported: Usage, seconds: float, refused: bool = False
) -> Answer:
    """Turn the model's (or the extractive answerer's) reply into an Answer or a refusal."""
    usage = merged(grounding.usage, reported)
    usage.generation_s += seconds
    refused_answer = refusal(grounding, NOT_IN_DOCUMENTS.format(searched=searched(grounding)), usage)
    if refused or is_refusal(reply):
        return refused_answer
    text, citations, confidence = resolve(strip_sentinel(reply), grounding.sources)
    if not any(ch.isalnum() for ch in text):
        logger.warning("the %s answerer returned an empty reply; treating it as a refusal", grounding.mode)
        return refused_answer
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
        markers=marker_spans(text, {s.index for s in grounding.sources}),
    )


def refusal(grounding: Grounding, text: str, usage: Usage | None = None) -> Answer:
    """A refused Answer saying ``text``."""
    return Answer(
        text=text,
        documents=grounding.documents,
        filters_used=grounding.filters_used,
        refused=True,
        confidence=0.0,
        mode=grounding.mode,
        usage=usage or merged(grounding.usage, Usage()),
    )


def searched(grounding: Grounding) -> str:
    """``5 chunks from 2 files``: what was searched, for a refusal."""
    chunks = len(grounding.hits)
    files = len({h.metadata.get("source") or h.metadata.get("file_name") for h in grounding.hits})
    return f"{chunks} chunk{'s' if chunks != 1 else ''} from {files} file{'s' if files != 1 else ''}"
