"""A retrieved chunk as a typed value: :class:`Hit`, and the one formatter for where a chunk is.

Stages below the public API pass Hits; a LangChain ``Document`` (scores inside its
metadata, as the spec's ``retrieve`` returns them) is made only at that boundary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..fields import SCORE_FIELDS

if TYPE_CHECKING:
    from langchain_core.documents import Document

    from ..store import Point


@dataclass
class Hit:
    """One retrieved chunk: its text, its stored metadata and how it scored.

    ``metadata`` is the chunk's own metadata, without the score fields; ``score`` is
    the engine's (``score_type`` says of what kind: cosine, bm25, rrf, dbsf; ``score_max``
    the best a hybrid hit can get), ``rerank_score`` the reranker's when it ran.
    """

    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    score: float | None = None
    score_type: str | None = None
    score_max: float | None = None
    rerank_score: float | None = None
    id: str | None = None

    @classmethod
    def from_point(cls, point: Point, score_type: str | None = None, score_max: float | None = None) -> Hit:
        """The hit of a point the engine returned; the score fields are set only when the engine scored it."""
        from ..store.records import payload_metadata, payload_text

        scored = point.score is not None
        return cls(
            text=payload_text(point.payload),
            metadata=payload_metadata(point.payload),
            score=float(point.score) if point.score is not None else None,
            score_type=(score_type or None) if scored else None,
            score_max=score_max if scored else None,
            id=point.id,
        )

    @classmethod
    def from_document(cls, document: Document) -> Hit:
        """The hit a Document from ``retrieve`` stands for (its score fields read back out of the metadata)."""
        return cls.from_metadata(document.metadata, document.page_content, getattr(document, "id", None))

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any], text: str = "", id: str | None = None) -> Hit:
        """The hit of a scored metadata dict (as the public API's Documents carry it)."""
        meta = dict(metadata)
        scores = {name: meta.pop(name) for name in SCORE_FIELDS if name in meta}
        return cls(text=text, metadata=meta, id=id, **scores)

    def to_document(self) -> Document:
        """The LangChain Document of the public API: the score fields are added to the metadata."""
        from langchain_core.documents import Document

        return Document(page_content=self.text, metadata=self.scored_metadata(), id=self.id)

    def scored_metadata(self) -> dict[str, Any]:
        """The metadata with the score fields set, as the public API's Documents carry it."""
        metadata = dict(self.metadata)
        if self.score is not None:
            metadata["score"] = self.score
            if self.score_type:
                metadata["score_type"] = self.score_type
            if self.score_max is not None:
                metadata["score_max"] = self.score_max
        if self.rerank_score is not None:
            metadata["rerank_score"] = self.rerank_score
        return metadata

    # -- where the chunk is --------------------------------------------------------
    @property
    def source(self) -> str:
        return str(self.metadata.get("source") or "")

    @property
    def file_name(self) -> str:
        return str(self.metadata.get("file_name") or "")

    @property
    def heading_path(self) -> str | None:
        return self.metadata.get("heading_path")

    @property
    def page_number(self) -> int | None:
        return self.metadata.get("page_number")

    @property
    def page_end(self) -> int | None:
        return self.metadata.get("page_end")

    @property
    def page_label(self) -> str | None:
        return self.metadata.get("page_label")

    @property
    def page_starts(self) -> list[int] | None:
        return self.metadata.get("page_starts")

    @property
    def best_score(self) -> float | None:
        """The rerank score when reranking ran, else the engine's."""
        return self.rerank_score if self.rerank_score is not None else self.score

    def location(self) -> str:
        """``file › heading path, page 3``: where the chunk is, for a listing of results."""
        return format_location(self.file_name or self.source or "?", heading_path=self.heading_path,
                               page_number=self.page_number, page_end=self.page_end, page_label=self.page_label,
                               heading_with_page=True)

    def score_label(self) -> str:
        """A compact score a person can read (``ragwire retrieve``): fused scores as a share of the best possible."""
        if self.rerank_score is not None:
            return f"rerank={float(self.rerank_score):.3f}"
        score = float(self.score or 0.0)
        kind = self.score_type
        if kind in ("rrf", "dbsf") and self.score_max:
            # an RRF 0.03 can be a perfect hit; the share says how close to "first in both lists"
            return f"fused {score / float(self.score_max):.0%} ({kind}={score:.4f})"
        if kind:
            return f"{kind}={score:.3f}"
        return f"score={score:.4f}"

    def score_text(self) -> str:
        """``rerank score 0.912``, ``cosine score 0.710`` or "" when unscored."""
        if self.rerank_score is not None:
            return f"rerank score {float(self.rerank_score):.3f}"
        if self.score is None:
            return ""
        return f"{self.score_type or 'score'} score {float(self.score):.3f}"


def format_location(file: str, *, heading_path: str | None = None, page_number: int | None = None,
                    page_end: int | None = None, page_label: str | None = None,
                    heading_with_page: bool = False) -> str:
    """Where a chunk is, for a reader: ``file, page 3``, ``file, pages 3–5``, ``file › Heading``.

    Args:
        file: The file name (or source) to start with.
        heading_path: The chunk's heading path; shown when there is no page, or always
            with ``heading_with_page`` (``file › Heading, page 3``).
        page_number: The first page; with ``page_end`` past it, the range is shown.
        page_end: The last page of what is cited.
        page_label: The page's printed label, shown instead of its number.
        heading_with_page: Show the heading path before the page too.
    """
    pages = page_text(page_number, page_end, page_label)
    where = file
    if heading_path and (heading_with_page or not pages):
        where += f" › {heading_path}"
    return f"{where}, {pages}" if pages else where


def page_text(page_number: int | None, page_end: int | None = None, page_label: str | None = None) -> str:
    """``page iv`` (the printed label when there is one), ``pages 3–4``, or "" without a page."""
    if page_end is not None and page_number is not None and page_end > page_number:
        return f"pages {page_number}–{page_end}"
    page = page_label or page_number
    return f"page {page}" if page not in (None, "") else ""
