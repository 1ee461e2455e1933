"""One typed extraction: the quotes an extractive answer gives, or its refusal, rendered to text and markers once.

An :class:`Extractor` reads the numbered sources and returns an :class:`Extraction`:
:class:`Quote` objects (which source, what text, where in the chunk, which page and
heading) or a :class:`Refusal` (why, and the terms it names).  :meth:`Extraction.render`
is the one place the answer text and its ``[n]`` markers are written; the marker
grammar itself lives in :mod:`.citations`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .citations import neutralise
from .context import NumberedSource
from .passages import split_sentences


@dataclass(frozen=True)
class Quote:
    """A passage quoted from one numbered source.

    Attributes:
        source: The source's number (``NumberedSource.index``), the ``[n]`` it is cited with.
        text: The passage as quoted (one line; a table row as ``column: value`` pairs).
        span: ``(start, end)`` of the passage in the chunk's text when it is there verbatim, else None.
        page: The chunk's page, when it has pages.
        heading: Shown before the quote when it names what the quote is about ("E-17 Fan stall — Meaning: …").
        asked: The FAQ question a bare "Yes."/"No." reply answers, shown before it.
    """

    source: int
    text: str
    span: tuple[int, int] | None = None
    page: int | None = None
    heading: str = ""
    asked: str = ""

    @property
    def prose(self) -> bool:
        """A sentence (it runs on after the previous one) rather than a row or a list line (a line of its own)."""
        return self.text.endswith((".", "!", "?"))


@dataclass(frozen=True)
class Refusal:
    """Why there is no answer, and the terms of the question it names (if any)."""

    reason: str
    terms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Extraction:
    """Quotes in the order they are shown (best source first, each source's quotes in reading order), or a refusal."""

    quotes: list[Quote] = field(default_factory=list)
    refusal: Refusal | None = None
    strength: float = 0.0  # how well the quotes ground the question (calibration.strength), 0 for a refusal

    @classmethod
    def refused(cls, reason: str, terms: tuple[str, ...] | list[str] = ()) -> Extraction:
        return cls([], Refusal(reason, tuple(terms)))

    def render(self) -> tuple[str, bool]:
        """``(text, refused)``: each quote's sentences ending with its marker; prose of one source runs on."""
        if self.refusal is not None:
            return self.refusal.reason, True
        lines: list[str] = []
        previous: Quote | None = None
        for quote in self.quotes:
            text = f"{quote.heading} — {quote.text}" if quote.heading else quote.text
            shown = (f"{quote.asked} — " if quote.asked else "") + cite(text, quote.source)
            if previous is not None and previous.source == quote.source and previous.prose and quote.prose:
                lines[-1] += " " + shown
            else:
                lines.append(shown)
            previous = quote
        return "\n".join(lines), False


class Extractor(Protocol):
    """Reads the numbered sources of a question and returns what to quote, or why not."""

    def extract(self, question: str, sources: list[NumberedSource]) -> Extraction: ...


def cite(text: str, index: int) -> str:
    """Every sentence of ``text`` ends with ``[index]``, before its final period.

    A bracketed number of the quote itself ("an internal study [3]") is shown as
    ``(3)``: only the marker added here can read as a citation.  Only a one-word
    reply ("No.") shares the marker of the sentence after it.
    """
    marker = f"[{index}]"
    out = []
    for sentence in split_sentences(neutralise(text), min_words=2):
        if sentence.endswith(".") and not sentence.endswith("..."):
            out.append(f"{sentence[:-1]} {marker}.")
        else:
            out.append(f"{sentence} {marker}")
    return " ".join(out)
