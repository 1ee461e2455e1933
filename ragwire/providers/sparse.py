"""Sparse BM25 vectors for hybrid search, computed in-process by Qdrant Edge's tokenizer.

Documents get term-frequency weights, queries one weight per unique term; the
store applies IDF (``modifier=IDF``).  Ingest and query must use the same
encoder, so its ``name`` is recorded in the collection.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple, Protocol, SupportsFloat

from ragwire.errors import MissingDependencyError


class SparseVec(NamedTuple):
    """A sparse vector: parallel lists of term ids and weights."""

    indices: list[int]
    values: list[float]


class SparseEncoder:
    """BM25 sparse encoder backed by ``qdrant_edge.Bm25``.

    Args:
        language: stopword / stemmer language understood by qdrant_edge.

    Raises:
        MissingDependencyError: qdrant-edge-py is not installed.
        ValueError: qdrant_edge does not support ``language``.
    """

    name = "bm25"

    def __init__(self, language: str = "english") -> None:
        try:
            from qdrant_edge import Bm25, Bm25Config
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] != "qdrant_edge":
                raise
            error = MissingDependencyError("sparse vectors (bm25)", "qdrant-edge-py", "")
            # qdrant-edge-py is a core dependency, so no extra brings it back;
            # ImportError prints ``msg``, so both it and ``args`` carry the fix.
            error.msg = (
                "sparse vectors (bm25) need qdrant-edge-py, a core dependency of ragwire. "
                "Install it with: pip install 'qdrant-edge-py>=0.9,<0.10'"
            )
            error.args = (error.msg,)
            raise error from exc
        self.language = language
        self._model: Any = Bm25(Bm25Config(language=language))

    def embed_documents(self, texts: Iterable[str]) -> list[SparseVec]:
        """Encode documents with BM25 term-frequency weights."""
        return [_convert(self._model.embed_document(text)) for text in texts]

    def embed_query(self, text: str) -> SparseVec:
        """Encode a query: weight 1.0 for each unique term."""
        return _convert(self._model.embed_query(text))

    def __repr__(self) -> str:
        return f"SparseEncoder(name={self.name!r}, language={self.language!r})"


class _TermWeights(Protocol):
    """A sparse vector as the BM25 model returns it (qdrant_edge's ``SparseVector``)."""

    @property
    def indices(self) -> Iterable[int]: ...

    @property
    def values(self) -> Iterable[SupportsFloat]: ...


def _convert(vector: _TermWeights) -> SparseVec:
    return SparseVec(list(vector.indices), [float(v) for v in vector.values])
