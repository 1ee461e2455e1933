"""Citation markers in answer text: parse ``[1]``, ``[1, 3]``, ``[1][3]`` and ``[1-3]``, keep only real sources.

A number the model invents (not one of the numbered sources) is removed from the
text, with the space before it, and never mapped to anything else.  Bracketed
numbers that belong to a document (``"an internal study [3]"``) are shown as
``(3)`` wherever document text reaches an answer or a prompt (:func:`neutralise`),
so they can never be read as citations.  Confidence is the share of sentences that
carry at least one valid citation.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..retrieval.hit import Hit
from .context import NumberedSource
from .results import Citation, Marker

# Any number of digits: an invented [12345] is a marker to drop, not prose to show.
_ITEM = r"\s*\d+\s*(?:[-–]\s*\d+\s*)?"
MARKER = re.compile(rf"\[({_ITEM}(?:,{_ITEM})*)\]")
# A sentence ends at . ! ? followed by space, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
# A dropped marker takes the spaces before it along: "claim [9] and" reads "claim and".
_SPACED_MARKER = re.compile(rf"([ \t]*)({MARKER.pattern})")
_ONLY_MARKERS = re.compile(rf"^(?:\s*\[{_ITEM}(?:,{_ITEM})*\]\s*[.,;]?)+$")

SNIPPET_CHARS = 240
# Words of a quote that must occur in a row in the chunk for the quote to be located there.
_QUOTE_WORDS = 4
_WORDS = re.compile(r"\w+")


def marker_numbers(body: str, limit: int) -> list[int]:
    """The numbers inside one marker's brackets; a range expands, but never past ``limit``."""
    numbers: list[int] = []
    for part in body.split(","):
        bounds = re.split(r"[-–]", part.strip())
        lo = int(bounds[0])
        hi = int(bounds[-1]) if len(bounds) > 1 else lo
        if hi < lo:
            lo, hi = hi, lo
        numbers.extend(range(lo, min(hi, max(lo, limit)) + 1))
    return numbers


def marker_spans(text: str, valid: set[int]) -> list[Marker]:
    """Every marker of ``text`` with its span and the valid source numbers it cites."""
    out = []
    for match in MARKER.finditer(text):
        numbers = [n for n in marker_numbers(match.group(1), max(valid, default=0)) if n in valid]
        if numbers:
            out.append(Marker(match.start(), match.end(), list(dict.fromkeys(numbers))))
    return out


def without_markers(sentence: str) -> str:
    """A sentence of the answer as the document says it: markers out, no space left before punctuation."""
    return re.sub(r"\s+([.,;:!?])", r"\1", MARKER.sub("", sentence)).strip()


def renumber(text: str, numbers: dict[int, int]) -> str:
    """Markers rewritten through ``numbers`` (a number not in it stays as it is)."""
    def swap(match: re.Match[str]) -> str:
        found = marker_numbers(match.group(1), max(numbers, default=0))
        return "[" + ", ".join(str(numbers.get(n, n)) for n in dict.fromkeys(found)) + "]"

    return MARKER.sub(swap, text)


def neutralise(text: str) -> str:
    """Document text with every bracketed number shown in parentheses: ``[3]`` → ``(3)``, ``[1-2]`` → ``(1-2)``.

    Nothing else changes, so a quote stays word for word apart from its brackets.
    """
    return MARKER.sub(lambda m: f"({m.group(1)})", text)


def filter_markers(text: str, valid: set[int]) -> str:
    """Rewrite every marker to its valid numbers only; a marker with none left disappears with the spaces before it.

    Unlike :func:`clean_markers` this leaves other spacing alone, so the streaming
    path can apply it piece by piece.
    """

    def keep(match: re.Match[str]) -> str:
        numbers = [n for n in marker_numbers(match.group(3), max(valid, default=0)) if n in valid]
        numbers = list(dict.fromkeys(numbers))
        return match.group(1) + "[" + ", ".join(str(n) for n in numbers) + "]" if numbers else ""

    return _SPACED_MARKER.sub(keep, text)


def clean_markers(text: str, valid: set[int]) -> str:
    """Rewrite markers to valid numbers only, then close the gap a dropped marker leaves before punctuation."""
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", filter_markers(text, valid)).strip()


def cited_numbers(text: str, valid: set[int]) -> list[int]:
    """Valid source numbers in order of first reference."""
    found: list[int] = []
    for match in MARKER.finditer(text):
        found += [n for n in marker_numbers(match.group(1), max(valid, default=0)) if n in valid]
    return list(dict.fromkeys(found))


def sentences(text: str) -> list[str]:
    """Split into sentences; a fragment that is only markers belongs to the sentence before it."""
    out: list[str] = []
    for piece in _SENTENCE_END.split(text):
        piece = piece.strip()
        if not piece:
            continue
        if out and _ONLY_MARKERS.match(piece):
            out[-1] += " " + piece
        else:
            out.append(piece)
    return out


def confidence(text: str, valid: set[int]) -> float:
    """Share of sentences with at least one valid citation (0.0 for an empty text)."""
    parts = [s for s in sentences(text) if re.search(r"\w", MARKER.sub("", s))]
    if not parts:
        return 0.0
    grounded = sum(1 for s in parts if cited_numbers(s, valid))
    return grounded / len(parts)


def to_citation(source: NumberedSource, quoted: Sequence[str] = ()) -> Citation:
    """The citation of ``source``; ``quoted`` are the answer's sentences citing it, to find their page."""
    hit = source.hit
    meta = hit.scored_metadata()  # as the public Document carries it, scores included
    score = hit.best_score
    snippet = " ".join(source.text.split())
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[: SNIPPET_CHARS - 1] + "…"
    return Citation(
        index=source.index,
        source=hit.source,
        file_name=hit.file_name,
        text=source.text,
        snippet=snippet,
        metadata=meta,
        score=float(score) if score is not None else None,
        heading_path=hit.heading_path,
        quotes=[q for q in (without_markers(s) for s in quoted) if q],
        **_pages(source.text, hit, quoted),
    )


def _pages(text: str, hit: Hit, quoted: Sequence[str]) -> dict[str, Any]:
    """``page_number``, ``page_label`` and ``page_end`` of a citation.

    A chunk spanning pages (``page_starts`` from the splitter) is cited at the pages of
    the quoted sentences found in it; when none is found, as its whole page range.
    """
    first, last = hit.page_number, hit.page_end
    pages: dict[str, Any] = {"page_number": first, "page_label": hit.page_label, "page_end": None}
    starts = hit.page_starts
    if not isinstance(first, int) or not isinstance(last, int) or last <= first:
        return pages
    found = [offset for sentence in quoted for offset in _quote_span(text, sentence)]
    if not isinstance(starts, list) or not found:
        return {**pages, "page_end": last}
    on = sorted({first + bisect.bisect_right(starts, offset) - 1 for offset in found})
    label = pages["page_label"] if on[0] == first else None  # labels are known for the first page only
    return {"page_number": on[0], "page_label": label, "page_end": on[-1] if on[-1] > on[0] else None}


def _quote_span(text: str, sentence: str) -> list[int]:
    """Character offsets in ``text`` of the first and last word of ``sentence``, or [] when it is not quoted from it.

    Words are compared lowercased, so joined lines, dropped emphasis and ``(3)`` for
    ``[3]`` still match; a run of :data:`_QUOTE_WORDS` words must occur at each end.
    """
    spans = [(m.start(), m.group().lower()) for m in _WORDS.finditer(text)]
    chunk = [w for _, w in spans]
    quote = [w.lower() for w in _WORDS.findall(MARKER.sub(" ", sentence))]
    n = min(_QUOTE_WORDS, len(quote))
    if n == 0:
        return []
    found = []
    for window in (quote[:n], quote[-n:]):
        at = next((i for i in range(len(chunk) - n + 1) if chunk[i : i + n] == window), None)
        if at is None:
            return []
        found.append(spans[at][0])
    return found


def resolve(text: str, sources: Iterable[NumberedSource]) -> tuple[str, list[Citation], float]:
    """Clean the markers of ``text`` and map them onto ``sources``.

    Returns:
        (text with only valid markers, citations in order of first reference, confidence)
    """
    by_number = {s.index: s for s in sources}
    valid = set(by_number)
    cleaned = clean_markers(text, valid)
    citing: dict[int, list[str]] = {}
    for sentence in (piece for line in cleaned.splitlines() for piece in sentences(line)):
        for n in cited_numbers(sentence, valid):
            citing.setdefault(n, []).append(sentence)
    citations = [to_citation(by_number[n], citing.get(n, [])) for n in cited_numbers(cleaned, valid)]
    return cleaned, citations, confidence(cleaned, valid)
