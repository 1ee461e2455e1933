"""What ``query`` returns: an :class:`Answer` with its :class:`Citation` list and :class:`Usage`."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..retrieval.hit import format_location

Mode = Literal["generative", "extractive"]


@dataclass
class Citation:
    """A numbered source the answer actually cites.

    ``index`` is the number the source had in the prompt (and has in the answer text);
    ``text`` is what was shown of the chunk, ``snippet`` its first ~240 characters on
    one line; ``score`` is the rerank score when one exists, else the search score.
    ``page_number`` is the page of what the answer quotes from the chunk when that can
    be found in it, else the chunk's first page (with ``page_end`` its last).
    """

    index: int
    source: str
    file_name: str
    text: str
    snippet: str
    metadata: dict[str, Any]
    score: float | None = None
    page_number: int | None = None
    page_label: str | None = None
    heading_path: str | None = None
    # the last page when what is cited spans pages (None: one page, or pages unknown)
    page_end: int | None = None

    @property
    def location(self) -> str:
        """``file, page N``, ``file, pages N–M``, ``file › heading path`` or just the file name."""
        return format_location(self.file_name or self.source, heading_path=self.heading_path,
                               page_number=self.page_number, page_end=self.page_end, page_label=self.page_label)


@dataclass
class Usage:
    """Tokens when the provider reports them, and the seconds each stage took."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    retrieval_s: float = 0.0
    generation_s: float = 0.0


@dataclass
class Answer:
    """An answer that cites its sources, or a refusal.  Falsy when refused."""

    text: str
    citations: list[Citation] = field(default_factory=list)
    documents: list[Any] = field(default_factory=list)
    filters_used: dict[str, Any] | None = None
    refused: bool = False
    confidence: float = 0.0
    mode: Mode = "generative"
    # Accounting, not content: two answers saying the same from the same sources are
    # equal even when one was streamed (timings differ, a stream may lack token counts).
    usage: Usage = field(default_factory=Usage, compare=False)

    def __bool__(self) -> bool:
        return not self.refused

    @property
    def sources(self) -> list[str]:
        """Distinct files cited, in order of first citation."""
        return list(dict.fromkeys(c.source for c in self.citations))

    def source_list(self) -> str:
        """``Sources:`` then one ``[n] file, page or heading`` line per citation ("" without citations)."""
        if not self.citations:
            return ""
        return "\n".join(["Sources:", *(f"[{c.index}] {c.location}" for c in self.citations)])

    def formatted(self) -> str:
        """The answer, then a numbered list of the cited sources with page or heading."""
        sources = self.source_list()
        return f"{self.text}\n\n{sources}" if sources else self.text

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict, for logs and API responses."""
        out = {
            "text": self.text,
            "refused": self.refused,
            "mode": self.mode,
            "confidence": self.confidence,
            "citations": [asdict(c) for c in self.citations],
            "sources": self.sources,
            "filters_used": self.filters_used,
            "usage": asdict(self.usage),
            "documents": [{"text": d.page_content, "metadata": dict(d.metadata)} for d in self.documents],
        }
        # Metadata may hold values JSON cannot (dates from a custom loader): make them text.
        return json.loads(json.dumps(out, default=str))
