"""The context budget: which retrieved chunks are shown to the model, numbered, and how much of each.

Only numbered sources can be cited.  Chunks enter in rank order until
``max_context_chars`` is spent; the chunk crossing the limit is truncated, and
one that would be left with fewer than ``MIN_SOURCE_CHARS`` characters is
dropped and gets no number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..retrieval.hit import Hit, format_location

# A truncated remainder shorter than this says too little to be worth a source number.
MIN_SOURCE_CHARS = 200


@dataclass(frozen=True)
class NumberedSource:
    """A view of a retrieved :class:`Hit` as shown to the model: ``[index]`` then ``text``.

    Not a form of the chunk of its own: it holds the hit itself, and ``text`` is the hit's
    text or, ``truncated``, the prefix the budget left; metadata and scores are read
    through ``hit``, never copied.
    """

    index: int
    text: str
    hit: Hit
    truncated: bool = False


def build_context(documents: Sequence[Hit | Any], max_chars: int) -> list[NumberedSource]:
    """Number the chunks that fit the budget, in rank order (1-based).

    Args:
        documents: Retrieved hits, best first; a LangChain Document from the public
            ``retrieve`` is read as the hit it stands for.
        max_chars: The total characters of chunk text that may be shown.

    Returns:
        The numbered sources; a chunk that does not fit is left out, and every chunk
        after the one that crossed the limit is left out too.
    """
    sources: list[NumberedSource] = []
    left = max_chars
    for doc in documents:
        hit = doc if isinstance(doc, Hit) else Hit.from_document(doc)
        text = hit.text
        if len(text) <= left:
            sources.append(NumberedSource(len(sources) + 1, text, hit))
            left -= len(text)
            continue
        if left >= MIN_SOURCE_CHARS:
            sources.append(NumberedSource(len(sources) + 1, text[:left], hit, truncated=True))
        break
    return sources


def source_label(source: NumberedSource) -> str:
    """Where a source comes from, for the prompt and the source list: file, then page or heading."""
    hit = source.hit
    return format_location(hit.file_name or hit.source or "unknown", heading_path=hit.heading_path,
                           page_number=hit.page_number, page_label=hit.page_label)


def source_path(source: NumberedSource) -> str:
    """The path of the file ``source`` was cut from, as stored ("" when the store has none)."""
    return str(source.hit.metadata.get("source") or "")


def file_words(source: NumberedSource) -> str:
    """The words of the source's file name ("green-leaf_garden_rules.txt": green leaf garden rules)."""
    name = source_path(source).replace("\\", "/").rsplit("/", 1)[-1]
    return re.sub(r"[\W_]+", " ", name.rsplit(".", 1)[0])
