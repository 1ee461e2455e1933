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

    from ..store import Record


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
    def from_record(cls, record: Record, score_type: str | None = None, score_max: float | None = None) -> Hit:
        """The hit of a stored record; the score fields are set only when the engine scored it."""
        payload = record.payload
        scored = record.score is not None
        return cls(
            text=payload.get("page_content", ""),
            metadata=dict(payload.get("metadata", {})),
            score=float(record.score) if record.score is not None else None,
            score_type=(score_type or None) if scored else None,
            score_max=score_max if scored else None,
            id=record.id,
        )

    @classmethod
    def from_document(cls, document: Any) -> Hit:
        """The hit a Document from ``retrieve`` stands for (its score fields read back out of the metadata)."""
        meta = dict(document.metadata)
        scores = {name: meta.pop(name) for name in SCORE_FIELDS if name in meta}
        return cls(text=document.page_content, metadata=meta, id=getattr(document, "id", None), **scores)

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
    if page_end is not None and page_number is not None and page_end > page_number:
        pages = f"pages {page_number}–{page_end}"
    else:
        page = page_label or page_number
        pages = f"page {page}" if page not in (None, "") else ""
    where = file
    if heading_path and (heading_with_page or not pages):
        where += f" › {heading_path}"
    return f"{where}, {pages}" if pages else where
