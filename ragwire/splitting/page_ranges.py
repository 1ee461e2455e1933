"""Page ranges for chunks cut from text without page breaks (MarkItDown's PDF and PPTX markdown).

The chunks come from one text and the pages from another parse of the same file
(pypdf page texts, python-pptx slide texts), so the two differ in whitespace,
hyphenation, ligatures and markdown punctuation.  Both are reduced to lowercase
words; a chunk is placed where a run of :data:`SHINGLE` consecutive words from its
start (and from its end) occurs in the page words, preferring the first occurrence
at or after the previous chunk's start, since chunks come in document order.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

# Words per shingle: long enough to be distinctive on a page, short enough to survive
# a hyphenated or reordered word nearby.
SHINGLE = 4
# How many shingle positions to try from each end of a chunk before giving up on that end.
_TRIES = 12
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Lowercase words of ``text`` after Unicode compatibility folding (``ﬁ`` → ``fi``)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).lower())


class PageIndex:
    """Where each word shingle of a document's pages occurs.

    Args:
        pages: ``{"page_number", "page_label", "text"}`` dicts in document order.
    """

    def __init__(self, pages: Sequence[Mapping[str, Any]]) -> None:
        self.numbers: list[int] = []
        self.labels: dict[int, str] = {}
        self.total = 0
        self._page_starts: list[int] = []  # word offset where each page begins
        stream: list[str] = []
        for index, page in enumerate(pages, 1):
            number = int(page.get("page_number") or index)
            self.total = max(self.total, number)
            if page.get("page_label"):
                self.labels[number] = str(page["page_label"])
            self._page_starts.append(len(stream))
            self.numbers.append(number)
            stream.extend(words(str(page.get("text") or "")))
        self._positions: dict[tuple[str, ...], list[int]] = {}
        for i in range(len(stream) - SHINGLE + 1):
            self._positions.setdefault(tuple(stream[i : i + SHINGLE]), []).append(i)

    def page_at(self, position: int) -> int:
        """The page number holding the word at ``position``."""
        return self.numbers[bisect.bisect_right(self._page_starts, position) - 1]

    def locate(self, chunk_words: list[str], cursor: int, *, from_end: bool) -> int | None:
        """The word position of the chunk's first (or last) word in the pages, or ``None``.

        Shingles that occur once in the document are trusted first; a repeated one
        (a running header, boilerplate) is placed at its first occurrence from ``cursor``.
        """
        count = len(chunk_words) - SHINGLE + 1
        fallback: int | None = None
        for k in range(min(_TRIES, count)):
            offset = count - 1 - k if from_end else k
            positions = self._positions.get(tuple(chunk_words[offset : offset + SHINGLE]))
            if not positions:
                continue
            if len(positions) == 1:
                return self._shift(positions[0], offset, len(chunk_words), from_end)
            if fallback is None:
                i = bisect.bisect_left(positions, cursor)
                found = positions[i] if i < len(positions) else positions[-1]
                fallback = self._shift(found, offset, len(chunk_words), from_end)
        return fallback

    @staticmethod
    def _shift(found: int, offset: int, length: int, from_end: bool) -> int:
        # From the shingle's position to where the chunk's first (or last) word would be.
        return found + (length - offset - 1) if from_end else max(found - offset, 0)


def page_ranges(chunks: Sequence[str], pages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Page metadata for each chunk: ``page_number`` (first page), ``page_end`` (last page),
    ``page_total``, when the first page has one, ``page_label``, and for a chunk spanning
    pages, ``page_starts`` (see :func:`page_starts`), so a quote can name its own page.

    A chunk that cannot be placed gets ``{}``.  Never raises for odd pages: no pages,
    or pages without words, give ``{}`` for every chunk.
    """
    if not pages:
        return [{} for _ in chunks]
    index = PageIndex(pages)
    out: list[dict[str, Any]] = []
    cursor = 0
    for chunk in chunks:
        chunk_words = words(chunk)
        start = index.locate(chunk_words, cursor, from_end=False)
        end = index.locate(chunk_words, start if start is not None else cursor, from_end=True)
        if start is None and end is None:
            out.append({})
            continue
        if start is None:
            start = end
        assert start is not None  # one of the two was found
        if end is None or end < start:
            end = start
        cursor = start + 1  # the next chunk starts later (overlap never reaches back this far)
        first, last = index.page_at(start), index.page_at(end)
        meta: dict[str, Any] = {"page_number": first, "page_end": max(first, last), "page_total": index.total}
        if first in index.labels:
            meta["page_label"] = index.labels[first]
        if last > first:
            starts = page_starts(chunk, index, start, first, last)
            if starts is not None:
                meta["page_starts"] = starts
        out.append(meta)
    return out


def page_starts(chunk: str, index: PageIndex, start: int, first: int, last: int) -> list[int] | None:
    """Where each page of a chunk spanning ``first``..``last`` begins, as character offsets in ``chunk``.

    ``page_starts[i]`` is the offset of page ``first + i`` (the first is 0); a quote at
    offset ``o`` is on the last page whose start is ``<= o``.  The chunk's k-th word is
    taken to be the k-th page word from ``start``.  None when the chunk's words do not
    line up with its own text (Unicode folding changed the word count).
    """
    spans = [m.start() for m in _WORD.finditer(chunk)]
    if len(spans) != len(words(chunk)):
        return None
    offsets = [0]
    k = 0
    for page in range(first + 1, last + 1):
        while k < len(spans) and index.page_at(start + k) < page:
            k += 1
        offsets.append(spans[k] if k < len(spans) else len(chunk))
    return offsets

