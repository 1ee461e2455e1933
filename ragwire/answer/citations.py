"""Citation markers in answer text: parse ``[1]``, ``[1, 3]``, ``[1][3]`` and ``[1-3]``, keep only real sources.

A number the model invents (not one of the numbered sources) is removed from the
text, with the space before it, and never mapped to anything else.  Bracketed
numbers that belong to a document (``"an internal study [3]"``) are shown as
``(3)`` wherever document text reaches an answer or a prompt (:func:`neutralise`),
so they can never be read as citations.  Confidence is the share of sentences that
carry at least one valid citation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .context import NumberedSource
from .types import Citation

# Any number of digits: an invented [12345] is a marker to drop, not prose to show.
_ITEM = r"\s*\d+\s*(?:[-–]\s*\d+\s*)?"
MARKER = re.compile(rf"\[({_ITEM}(?:,{_ITEM})*)\]")
# A sentence ends at . ! ? followed by space, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
# A dropped marker takes the spaces before it along: "claim [9] and" reads "claim and".
_SPACED_MARKER = re.compile(rf"([ \t]*)({MARKER.pattern})")
_ONLY_MARKERS = re.compile(rf"^(?:\s*\[{_ITEM}(?:,{_ITEM})*\]\s*[.,;]?)+$")

SNIPPET_CHARS = 240


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


def to_citation(source: NumberedSource) -> Citation:
    meta = dict(source.document.metadata)
    score = meta.get("rerank_score", meta.get("score"))
    snippet = " ".join(source.text.split())
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[: SNIPPET_CHARS - 1] + "…"
    return Citation(
        index=source.index,
        source=str(meta.get("source", "")),
        file_name=str(meta.get("file_name", "")),
        text=source.text,
        snippet=snippet,
        metadata=meta,
        score=float(score) if score is not None else None,
        page_number=meta.get("page_number"),
        page_label=meta.get("page_label"),
        heading_path=meta.get("heading_path"),
    )


def resolve(text: str, sources: Iterable[NumberedSource]) -> tuple[str, list[Citation], float]:
    """Clean the markers of ``text`` and map them onto ``sources``.

    Returns:
        (text with only valid markers, citations in order of first reference, confidence)
    """
    by_number = {s.index: s for s in sources}
    valid = set(by_number)
    cleaned = clean_markers(text, valid)
    citations = [to_citation(by_number[n]) for n in cited_numbers(cleaned, valid)]
    return cleaned, citations, confidence(cleaned, valid)
