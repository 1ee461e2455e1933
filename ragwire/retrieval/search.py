"""Search strategies over a collection: similarity, mmr, hybrid (engine-side RRF) and keyword (BM25)."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping

from ..config import DEFAULT_RETRIES, RetrieverConfig
from ..errors import ConfigError
from ..store import Collection, DenseParams, Filter, Fusion, Point, build_filter
from ..store.filters import META_KEY, UNINDEXED_KEYS, field_name, known_fields, value_kind
from ..store.scope import scope_key
from .hit import Hit

if TYPE_CHECKING:
    from ..stages import Embedder, SparseEmbedder

SEARCH_TYPES = ("similarity", "mmr", "hybrid", "keyword")

# Looking for a filter field the indexes do not name reads chunks in pages, up to a
# limit: past it, a field not seen yet is compared as given rather than refused.
_FIELD_PAGE = 1000
_FIELD_SCAN_LIMIT = 50_000


# What ``metadata["score"]`` is, per search type: a reader (or an agent) cannot tell an
# RRF 0.03 from a weak cosine 0.03 otherwise.
SCORE_TYPES = {"similarity": "cosine", "mmr": "cosine", "keyword": "bm25"}


def hybrid_fusion(retriever: RetrieverConfig) -> Fusion:
    """The engine-side fusion a ``retriever:`` section describes."""
    r = retriever
    weights = None if (r.dense_weight, r.sparse_weight) == (1.0, 1.0) else (r.dense_weight, r.sparse_weight)
    return Fusion(r.fusion, r.rrf_k, r.dense_prefetch or r.fetch_k, r.sparse_prefetch or r.fetch_k, weights)


def fusion_score_max(fusion: Fusion) -> float:
    """The best score a hybrid hit can get: first in both branches."""
    if fusion.method == "dbsf":
        return 2.0
    weights = fusion.weights or (1.0, 1.0)
    # Both engines score a hit at rank r (from 1) in a branch of weight w as
    # 1 / (k - 1 + r / w): plain RRF's 1 / (k + r - 1) when w is 1.
    return sum(1 / (fusion.k - 1 + 1 / w) for w in weights if w > 0)


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def mmr_select(query: list[float], candidates: list[Point], k: int, lambda_mult: float) -> list[Point]:
    """Maximal marginal relevance: 1.0 ranks by relevance only, 0.0 by diversity only."""
    pool = [c for c in candidates if c.dense is not None]
    vectors = [c.dense for c in pool if c.dense is not None]
    relevance = [_cosine(query, v) for v in vectors]
    chosen: list[int] = []
    while pool and len(chosen) < min(k, len(pool)):
        best, best_score = -1, -math.inf
        for i in range(len(pool)):
            if i in chosen:
                continue
            redundancy = max((_cosine(vectors[i], vectors[j]) for j in chosen), default=0.0)
            score = lambda_mult * relevance[i] - (1 - lambda_mult) * redundancy
            if score > best_score:
                best, best_score = i, score
        chosen.append(best)
    return [pool[i] for i in chosen]


def stored_fields(collection: Collection, names: set[str]) -> tuple[dict[str, frozenset[str]], bool]:
    """Read stored chunks for fields the indexes do not name (call with the collection open).

    A field gets its index from the first chunk of a write that has it, ragwire's own
    page and bookkeeping fields get none, and qdrant-client's local mode keeps no
    indexes at all, so an unindexed field may still be stored.  Returns the fields seen
    with their kinds, and whether the answer is complete (every chunk read, or every
    name found).
    """
    found: dict[str, set[str]] = {}
    offset, read = None, 0
    while True:
        records, offset = collection.scroll(limit=_FIELD_PAGE, offset=offset, fields=[META_KEY])
        for record in records:
            # every field seen is kept: the did-you-mean of a refused name draws on them
            for name, value in (record.payload.get(META_KEY) or {}).items():
                kind = value_kind(value)
                found.setdefault(name, set()).update([kind] if kind else [])
        read += len(records)
        done = offset is None or not records or names <= found.keys()
        if done or read >= _FIELD_SCAN_LIMIT:
            return {name: frozenset(k) for name, k in found.items()}, done


# The config model's defaults (one home): a Searcher built by hand (QdrantStore.get_store)
# searches as one built from a config with an empty ``retriever:`` section.
_FETCH_K: int = RetrieverConfig.model_fields["fetch_k"].default
_MMR_LAMBDA: float = RetrieverConfig.model_fields["mmr_lambda"].default


class Searcher:
    """Embeds queries and runs one of the search strategies against a collection."""

    def __init__(self, collection: Collection, embedding: Embedder, sparse: SparseEmbedder | None, *,
                 fusion: Fusion | None = None, dense_params: DenseParams | None = None, fetch_k: int = _FETCH_K,
                 mmr_lambda: float = _MMR_LAMBDA, retries: int = DEFAULT_RETRIES) -> None:
        self.collection = collection
        self.embedding = embedding
        self.retries = retries
        self.sparse = sparse
        self.fusion = fusion or Fusion(dense_limit=fetch_k, sparse_limit=fetch_k)
        self.dense_params = dense_params
        self.fetch_k = fetch_k
        self.mmr_lambda = mmr_lambda

    @classmethod
    def from_config(cls, collection: Collection, embedding: Embedder, sparse: SparseEmbedder | None,
                    retriever: RetrieverConfig, *,
                    retries: int = DEFAULT_RETRIES) -> Searcher:
        """A searcher with the ``retriever:`` section's search settings."""
        return cls(collection, embedding, sparse, fusion=hybrid_fusion(retriever),
                   dense_params=DenseParams(retriever.hnsw_ef, retriever.exact), fetch_k=retriever.fetch_k,
                   mmr_lambda=retriever.mmr_lambda, retries=retries)

    def prepare(self, search_type: str) -> None:
        """Start loading the embedding model, when ``search_type`` needs it and it loads
        locally, so it loads while the caller opens the store."""
        if search_type != "keyword":
            soon = getattr(self.embedding, "load_soon", None)
            if callable(soon):
                soon()

    def _embed_query(self, query: str) -> list[float]:
        """Embed the query; provider outages become a retried, then one-line, ProviderError."""
        import ragwire.telemetry as telemetry

        from ..providers.retry import call_with_retries

        model = _model_name(self.embedding)
        attributes, remote = telemetry.embedding_attributes(self.embedding, model)
        with telemetry.span(f"embeddings {model}", attributes, client=remote):
            return call_with_retries(self.embedding.embed_query, query, retries=self.retries, what="query embedding")

    def _need_sparse(self, what: str) -> Any:
        if self.sparse is None:
            raise ConfigError(
                f"retriever.search_type: {what} search needs sparse vectors; set vectorstore.use_sparse: true "
                "(with force_recreate: true once, then re-ingest) or use search_type: similarity",
            )
        return self.sparse

    def _build_filter(self, filters: Mapping[str, Any] | None) -> Filter | None:
        """The engine filter, checked against the fields stored chunks have (call with the collection open)."""
        flt = build_filter(filters)  # shape problems first: they need no store round trip
        if flt is None or self.collection.count() == 0:
            # nothing stored: there are no fields to check against, and no result either way
            return flt
        # The indexes name every field any document brought; a restricted reader may learn
        # only the fields of what it may read, so its filter is checked against those chunks.
        fields = dict(known_fields(self.collection.indexes())) if scope_key() is None else {}
        missing = {field_name(key) for key in filters or {}} - fields.keys() - set(UNINDEXED_KEYS)
        complete = True
        if missing:
            found, complete = stored_fields(self.collection, missing)
            fields = {name: fields.get(name, frozenset()) | found.get(name, frozenset())
                      for name in {*fields, *found}}
        return build_filter(filters, fields, all_fields=complete)

    def search(self, query: str, *, k: int = 5, filters: Mapping[str, Any] | None = None,
               search_type: str = "similarity", fetch_k: int | None = None,
               lambda_mult: float | None = None) -> list[Hit]:
        """Run one search; the hits come best first.

        Raises:
            ConfigError: a bad ``k`` or ``search_type``; a filter of a bad shape, on a field no
                stored chunk has, or with a value the field's type cannot hold.
        """
        if k < 1:
            raise ConfigError(f"top_k: must be at least 1 (got {k})", source="retrieve")
        if search_type not in SEARCH_TYPES:
            raise ConfigError(f"search_type: {search_type!r} is not one of {', '.join(SEARCH_TYPES)}")
        with self.collection.opened():
            flt = self._build_filter(filters)
            if search_type == "similarity":
                records = self.collection.search(dense=self._embed_query(query), flt=flt, limit=k,
                                                 dense_params=self.dense_params)
            elif search_type == "keyword":
                sparse = tuple(self._need_sparse("keyword").embed_query(query))
                records = self.collection.search(sparse=sparse, flt=flt, limit=k)
            elif search_type == "hybrid":
                sparse = tuple(self._need_sparse("hybrid").embed_query(query))
                fusion = self.fusion
                if fetch_k is not None:  # a per-call fetch_k sizes both branches
                    fusion = replace(fusion, dense_limit=fetch_k, sparse_limit=fetch_k)
                records = self.collection.search(
                    dense=self._embed_query(query), sparse=sparse, flt=flt, limit=k, fusion=fusion.at_least(k),
                    dense_params=self.dense_params,
                )
            else:
                dense = self._embed_query(query)
                candidates = self.collection.search(
                    dense=dense, flt=flt, limit=max(fetch_k or self.fetch_k, k), with_vectors=True,
                    dense_params=self.dense_params,
                )
                lam = self.mmr_lambda if lambda_mult is None else lambda_mult
                records = mmr_select(dense, candidates, k, lam)
                for rec in records:
                    rec.dense = rec.sparse = None
        if search_type == "hybrid":
            return [Hit.from_point(r, fusion.method, fusion_score_max(fusion)) for r in records]
        return [Hit.from_point(r, SCORE_TYPES[search_type]) for r in records]


def _model_name(embedding: object) -> str:
    """The embedding model's name, for its span (a lazy wrapper names the model it will load)."""
    for attribute in ("model_id", "model_name", "model", "name"):
        value = getattr(embedding, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(embedding).__name__
