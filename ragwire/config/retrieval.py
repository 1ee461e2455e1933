"""The `retriever:` section and its `rerank:` subsection."""

from __future__ import annotations

import difflib
from typing import Any, Literal

from pydantic import ConfigDict, Field, SecretStr, model_validator
from pydantic_core import PydanticCustomError

from ragwire.config._base import ModelName, _Section

DEFAULT_RERANK_MODELS = {"cross_encoder": "BAAI/bge-reranker-base", "cohere": "rerank-v3.5"}


class RerankConfig(_Section):
    """`retriever.rerank:` second-stage reranking; other keys pass through to the provider."""

    # unknown keys are the provider's own options (batch_size, device, ...), so they are kept
    model_config = ConfigDict(extra="allow")

    provider: Literal["cross_encoder", "cohere"] = "cross_encoder"
    model: ModelName | None = None
    fetch_k: int | None = Field(None, ge=1)
    enabled: bool = True
    api_key: SecretStr | None = None
    base_url: str | None = None

    @model_validator(mode="after")
    def _fill_model(self) -> RerankConfig:
        for key in self.model_extra or {}:
            # a near-miss of a known key is a typo, not a provider option
            close = difflib.get_close_matches(key, type(self).model_fields, n=1, cutoff=0.85)
            if close:
                raise PydanticCustomError("unknown_key", "unknown key", {"key": key})
        if self.model is None:
            self.model = DEFAULT_RERANK_MODELS[self.provider]
        return self

    @property
    def options(self) -> dict[str, Any]:
        """The extra keys, passed through to the provider."""
        return dict(self.model_extra or {})

    def effective_fetch_k(self, top_k: int) -> int:
        """Return how many candidates to fetch before reranking down to ``top_k``."""
        return max(self.fetch_k or max(4 * top_k, 20), top_k)


class RetrieverConfig(_Section):
    """`retriever:` how ``retrieve()`` searches."""

    search_type: Literal["similarity", "mmr", "hybrid", "keyword"] = "hybrid"
    top_k: int = Field(5, ge=1)
    auto_filter: bool = False
    # mmr: candidates MMR picks from; hybrid: each branch's candidates unless set below
    fetch_k: int = Field(30, ge=1)
    mmr_lambda: float = Field(0.5, ge=0, le=1)
    # dbsf beat rrf on both measured golden sets (docs/evaluation.md)
    fusion: Literal["rrf", "dbsf"] = "dbsf"
    rrf_k: int = Field(60, ge=1)
    dense_prefetch: int | None = Field(None, ge=1)
    sparse_prefetch: int | None = Field(None, ge=1)
    dense_weight: float = Field(1.0, ge=0)
    sparse_weight: float = Field(1.0, ge=0)
    # the dense (HNSW) search: candidates explored per query, or an exact scan
    hnsw_ef: int | None = Field(128, ge=1)
    exact: bool = False
    rerank: RerankConfig | None = None
    # Extra attempts of a query's provider calls (query embedding, reranker, answer LLM);
    # unset, they follow ingestion.retries, as they did before this key.
    retries: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _weights_need_rrf(self) -> RetrieverConfig:
        if self.fusion == "dbsf" and (self.dense_weight, self.sparse_weight) != (1.0, 1.0):
            # the engines take branch weights for RRF only; ignoring them would mislead
            raise PydanticCustomError(
                "weights_need_rrf",
                "dense_weight and sparse_weight apply to fusion: rrf only (the engine's dbsf takes no weights)",
            )
        if self.dense_weight == 0 and self.sparse_weight == 0:
            raise PydanticCustomError("weights_zero", "dense_weight and sparse_weight cannot both be 0")
        return self
