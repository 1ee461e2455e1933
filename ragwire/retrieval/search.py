"""Search strategies over a collection: similarity, mmr, hybrid (engine-side RRF) and keyword (BM25)."""

from __future__ import annotations

import math
from typing import Any, Mapping

from langchain_core.documents import Document

from ..errors import ConfigError
from ..store import Collection, Record, build_filter

SEARCH_TYPES = ("similarity", "mmr", "hybrid", "keyword")


def to_document(record: Record) -> Document:
    payload = record.payload
    metadata = dict(payload.get("metadata", {}))
    if record.score is not None:
        metadata["score"] = float(record.score)
    return Document(page_content=payload.get("page_content", ""), metadata=metadata, id=record.id)


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def mmr_select(query: list[float], candidates: list[Record], k: int, lambda_mult: float) -> list[Record]:
    """Maximal marginal relevance: 1.0 ranks by relevance only, 0.0 by diversity only."""
    pool = [c for c in candidates if c.dense is not None]
    relevance = [_cosine(query, c.dense) for c in pool]
    chosen: list[int] = []
    while pool and len(chosen) < min(k, len(pool)):
        best, best_score = -1, -math.inf
        for i, cand in enumerate(pool):
            if i in chosen:
                continue
            redundancy = max((_cosine(cand.dense, pool[j].dense) for j in chosen), default=0.0)
            score = lambda_mult * relevance[i] - (1 - lambda_mult) * redundancy
            if score > best_score:
                best, best_score = i, score
        chosen.append(best)
    return [pool[i] for i in chosen]


class Searcher:
    """Embeds queries and runs one of the search strategies against a collection."""

    def __init__(self, collection: Collection, embedding: Any, sparse: Any | None, *, rrf_k: int = 60,
                 fetch_k: int = 20, mmr_lambda: float = 0.5, retries: int = 2) -> None:
        self.collection = collection
        self.embedding = embedding
        self.retries = retries
        self.sparse = sparse
        self.rrf_k = rrf_k
        self.fetch_k = fetch_k
        self.mmr_lambda = mmr_lambda

    def _embed_query(self, query: str) -> list[float]:
        """Embed the query; provider outages become a retried, then one-line, ProviderError."""
        from ..providers.retry import call_with_retries

        return call_with_retries(self.embedding.embed_query, query, retries=self.retries, what="query embedding")

    def _need_sparse(self, what: str) -> Any:
        if self.sparse is None:
            raise ConfigError(
                f"retriever.search_type: {what} search needs sparse vectors; set vectorstore.use_sparse: true "
                "(with force_recreate: true once, then re-ingest) or use search_type: similarity",
            )
        return self.sparse

    def search(self, query: str, *, k: int = 5, filters: Mapping[str, Any] | None = None,
               search_type: str = "similarity", fetch_k: int | None = None,
               lambda_mult: float | None = None) -> list[Document]:
        if k < 1:
            raise ConfigError(f"top_k: must be at least 1 (got {k})", source="retrieve")
        if search_type not in SEARCH_TYPES:
            raise ConfigError(f"search_type: {search_type!r} is not one of {', '.join(SEARCH_TYPES)}")
        flt = build_filter(filters)
        with self.collection.opened():
            if search_type == "similarity":
                records = self.collection.search(dense=self._embed_query(query), flt=flt, limit=k)
            elif search_type == "keyword":
                sparse = tuple(self._need_sparse("keyword").embed_query(query))
                records = self.collection.search(sparse=sparse, flt=flt, limit=k)
            elif search_type == "hybrid":
                sparse = tuple(self._need_sparse("hybrid").embed_query(query))
                records = self.collection.search(
                    dense=self._embed_query(query), sparse=sparse, flt=flt, limit=k,
                    rrf_k=self.rrf_k, prefetch_limit=max(fetch_k or self.fetch_k, k),
                )
            else:
                dense = self._embed_query(query)
                candidates = self.collection.search(
                    dense=dense, flt=flt, limit=max(fetch_k or self.fetch_k, k), with_vectors=True
                )
                lam = self.mmr_lambda if lambda_mult is None else lambda_mult
                records = mmr_select(dense, candidates, k, lam)
                for rec in records:
                    rec.dense = rec.sparse = None
        return [to_document(r) for r in records]
