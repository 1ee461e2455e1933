"""The context budget: which retrieved chunks are shown to the model, numbered, and how much of each.

Only numbered sources can be cited.  Chunks enter in rank order until
``max_context_chars`` is spent; the chunk crossing the limit is truncated, and
one that would be left with fewer than ``MIN_SOURCE_CHARS`` characters is
dropped and gets no number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# A truncated remainder shorter than this says too little to be worth a source number.
MIN_SOURCE_CHARS = 200


@dataclass(frozen=True)
class NumberedSource:
    """One chunk as shown to the model: ``[index]`` then ``text`` (possibly truncated)."""

    index: int
    text: str
    document: Any  # the LangChain Document retrieve() returned
    truncated: bool = False

    @property
    def metadata(self) -> dict[str, Any]:
        return dict(self.document.metadata)


def build_context(documents: list[Any], max_chars: int) -> list[NumberedSource]:
    """Number the chunks that fit the budget, in rank order (1-based).

    Args:
        documents: Retrieved LangChain Documents, best first.
        max_chars: The total characters of chunk text that may be shown.

    Returns:
        The numbered sources; a chunk that does not fit is left out, and every chunk
        after the one that crossed the limit is left out too.
    """
    sources: list[NumberedSource] = []
    left = max_chars
    for doc in documents:
        text = doc.page_content
        if len(text) <= left:
            sources.append(NumberedSource(len(sources) + 1, text, doc))
            left -= len(text)
            continue
        if left >= MIN_SOURCE_CHARS:
            sources.append(NumberedSource(len(sources) + 1, text[:left], doc, truncated=True))
        break
    return sources


def source_label(source: NumberedSource) -> str:
    """Where a source comes from, for the prompt and the source list: file, then page or heading."""
    meta = source.document.metadata
    label = str(meta.get("file_name") or meta.get("source") or "unknown")
    page = meta.get("page_label") or meta.get("page_number")
    if page not in (None, ""):
        label += f", page {page}"
    elif meta.get("heading_path"):
        label += f" › {meta['heading_path']}"
    return label
