"""What ``query`` returns: an :class:`Answer` with its :class:`Citation` list and :class:`Usage`."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..providers.usage import Usage  # one accounting for every LLM call; re-exported for Answer.usage
from ..retrieval.hit import format_location

__all__ = ["Answer", "Citation", "Marker", "Mode", "TraceStep", "Usage"]

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
    # the answer's sentences that cite this source, markers removed: what the page highlights
    quotes: list[str] = field(default_factory=list)

    @property
    def location(self) -> str:
        """``file, page N``, ``file, pages N–M``, ``file › heading path`` or just the file name."""
        return format_location(self.file_name or self.source, heading_path=self.heading_path,
                               page_number=self.page_number, page_end=self.page_end, page_label=self.page_label)


@dataclass
class Marker:
    """A citation marker in :attr:`Answer.text`: ``text[start:end]`` is ``[2]`` (or ``[1, 3]``), citing ``sources``.

    Renderings (the web page, API clients) place citations by these spans; the marker
    grammar lives only in :mod:`ragwire.answer.citations`.
    """

    start: int
    end: int
    sources: list[int]


@dataclass
class TraceStep:
    """One step of how an answer came about.

    ``step`` is ``classify``, ``plan``, ``retrieve``, ``judge``, ``warning``, ``answer`` or ``refuse``;
    ``iteration`` the retrieval round it belongs to (1-based, 0 before the first);
    ``data`` what the step saw or decided (``query``, ``filters`` and ``chunks`` for
    a retrieval; ``decision``, ``missing`` and the follow-up searches ``dropped`` for a
    judgement; ``kind`` for a classification; ``queries`` and ``dropped`` for a plan;
    ``of``, ``problem`` and ``fallback`` for a model reply that could not be used).
    """

    step: str
    iteration: int = 0
    data: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """One readable line: ``[1] retrieve  'E-17 meaning' → 5 chunks``."""
        d = self.data
        head = f"[{self.iteration}] {self.step:<9}"
        if self.step == "retrieve":
            filters = f" filters={json.dumps(d['filters'])}" if d.get("filters") else ""
            return f"{head} {d.get('query')!r}{filters} → {d.get('chunks', 0)} chunks"
        dropped = "; ".join(str(q) for q in d.get("dropped") or [])
        dropped = f" (dropped: {dropped})" if dropped else ""
        if self.step == "judge":
            missing = "; ".join(str(m) for m in d.get("missing") or [])
            return f"{head} {d.get('decision')}" + (f" (missing: {missing})" if missing else "") + dropped
        if self.step == "classify":
            return f"{head} {d.get('kind')} (by {d.get('by', 'router')})"
        if self.step == "plan":
            return f"{head} " + " | ".join(repr(q) for q in d.get("queries") or []) + dropped
        if self.step == "warning":
            return f"{head} {d.get('of')} reply: {d.get('problem')} → {d.get('fallback')}"
        rest = ", ".join(f"{k}={v}" for k, v in d.items())
        return f"{head} {rest}".rstrip()


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
    # How it came about: the steps, the retrieval rounds, and an id to find it in logs and traces
    # (the OpenTelemetry trace id when a tracer recorded the query).
    trace: list[TraceStep] = field(default_factory=list, compare=False)
    iterations: int = field(default=1, compare=False)
    trace_id: str = field(default="", compare=False)
    # where the citation markers are in ``text`` (empty for a refusal)
    markers: list[Marker] = field(default_factory=list, compare=False)

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

    def trace_lines(self) -> str:
        """The trace, one step a line, then the id, rounds and tokens (for ``ragwire query --trace``)."""
        u = self.usage
        tokens = "tokens unknown" if u.total_tokens is None else f"{u.total_tokens} tokens"
        cost = "" if u.cost is None else f", cost {u.cost:.6f}"
        footer = (f"trace {self.trace_id}: {self.iterations} iteration{'s' if self.iterations != 1 else ''}, "
                  f"{u.llm_calls} LLM call{'s' if u.llm_calls != 1 else ''}, {tokens}{cost}")
        return "\n".join([*(s.describe() for s in self.trace), footer])

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
            "markers": [asdict(m) for m in self.markers],
            "sources": self.sources,
            "filters_used": self.filters_used,
            "usage": {**asdict(self.usage), "total_tokens": self.usage.total_tokens},
            "trace_id": self.trace_id,
            "iterations": self.iterations,
            "trace": [asdict(step) for step in self.trace],
            "documents": [{"text": d.page_content, "metadata": dict(d.metadata)} for d in self.documents],
        }
        # Metadata may hold values JSON cannot (dates from a custom loader): make them text.
        return json.loads(json.dumps(out, default=str))
