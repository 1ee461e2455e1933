"""The quotes of an extractive answer: the chosen passages in reading order, each with the heading it needs."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from .context import NumberedSource
from .extraction import Quote
from .passages import Scored


class Candidate(Scored, Protocol):
    """A chosen passage, with the heading shown before it when only the heading holds the answer's value."""

    @property
    def heading(self) -> str: ...


_LABELLED = re.compile(r"^[A-Z][A-Za-z]{1,20}(?: [A-Za-z]{1,20})?:\s")
_BARE_REPLY = re.compile(r"^(?:Yes|No|Yes and no|Not yet|Not really)\b[.,!;:]", re.IGNORECASE)


def quotes_of(chosen: Sequence[Candidate], sources: list[NumberedSource] | None = None) -> list[Quote]:
    """The best source first, its passages in reading order, each with the heading or FAQ question it needs."""
    by_number = {s.index: s for s in sources or []}
    by_source: dict[int, list[Candidate]] = {}
    for cand in chosen:  # best first, so sources come in order of their best passage
        by_source.setdefault(cand.source, []).append(cand)
    quotes: list[Quote] = []
    for index, group in by_source.items():
        group.sort(key=lambda c: c.passage.position)
        shown_title = ""
        for cand in group:
            passage = cand.passage
            heading = ""
            # "Meaning: …" says nothing without the error code line above it.
            if cand.heading and cand.heading != shown_title:
                heading = shown_title = cand.heading
            elif passage.title and passage.title != shown_title and _LABELLED.match(passage.text):
                heading = shown_title = passage.title
            # A bare "No." answers the FAQ question above it, not the one asked: the pair is
            # quoted, so the reader sees which question it answers.
            asked = passage.context if (not heading and _BARE_REPLY.match(passage.text)
                                        and passage.context.endswith("?")) else ""
            source = by_number.get(index)
            at = source.text.find(passage.text) if source is not None else -1
            page = source.hit.page_number if source is not None else None
            quotes.append(Quote(index, passage.text, (at, at + len(passage.text)) if at >= 0 else None,
                                page if isinstance(page, int) else None, heading, asked))
    return quotes
