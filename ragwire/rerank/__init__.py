"""Second-stage reranking: score retrieved chunks against the query and keep the best.

``get_reranker`` builds the reranker named by ``retriever.rerank.provider``
without importing its package (that happens on the first ``score``), so a
missing package, a missing key or an unknown option fails at startup.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ragwire.config import DEFAULT_RETRIES, RerankConfig
from ragwire.errors import ConfigError, MissingDependencyError, ProviderError

SECTION = "retriever.rerank"


@runtime_checkable
class Reranker(Protocol):
    """Scores documents against a query: a higher score means more relevant."""

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        """Return one score per document, in the order given."""
        ...


# provider name -> (module to look for, package to install, ragwire extra)
_PACKAGES: dict[str, tuple[str, str, str]] = {
    "cross_encoder": ("sentence_transformers", "sentence-transformers", "rerank"),
    "cohere": ("cohere", "cohere", "cohere"),
}


def get_reranker(config: RerankConfig | Mapping[str, Any], *, retries: int = DEFAULT_RETRIES) -> Reranker:
    """Build the reranker described by ``config``; nothing heavy is imported yet.

    Args:
        config: the ``retriever.rerank`` section (a RerankConfig or a plain mapping).
        retries: extra attempts for transient failures of a hosted provider.

    Returns:
        A :class:`Reranker`; its model or client is created on the first ``score`` call.

    Raises:
        MissingDependencyError: the provider's package is not installed (the message has the pip command).
        ConfigError: an unknown provider option, a bad option value, or no API key for a hosted provider.
    """
    if isinstance(config, Mapping):
        config = _validate(config)
    module, package, extra = _PACKAGES[config.provider]
    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(f"{SECTION}.provider: {config.provider}", package, extra)
    return _BUILDERS[config.provider](config, retries)


def ranked(reranker: Reranker, query: str, texts: Sequence[str], top_k: int) -> list[tuple[int, float]]:
    """``(position, score)`` of the best ``top_k`` of ``texts`` by ``reranker``, best first.

    Equal scores keep the order given (the engine's).

    Raises:
        ProviderError: the reranker returned a different number of scores than texts.
    """
    if not texts:
        return []
    scores = list(reranker.score(query, list(texts)))
    if len(scores) != len(texts):
        raise ProviderError(
            f"{SECTION}: the reranker returned {len(scores)} scores for {len(texts)} documents"
        )
    order = sorted(range(len(texts)), key=lambda i: -scores[i])  # stable: ties keep engine order
    return [(i, float(scores[i])) for i in order[:top_k]]


def _validate(raw: Mapping[str, Any]) -> RerankConfig:
    from pydantic import ValidationError

    try:
        return RerankConfig.model_validate(dict(raw))
    except ValidationError as exc:
        problems = [
            f"{SECTION}.{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        ]
        raise ConfigError(problems) from None


def _cross_encoder(config: RerankConfig, retries: int) -> Reranker:
    from ragwire.rerank.cross_encoder import CrossEncoderReranker

    return CrossEncoderReranker.from_config(config)


def _cohere(config: RerankConfig, retries: int) -> Reranker:
    from ragwire.rerank.cohere import CohereReranker

    return CohereReranker.from_config(config, retries=retries)


_BUILDERS: dict[str, Callable[[RerankConfig, int], Reranker]] = {
    "cross_encoder": _cross_encoder,
    "cohere": _cohere,
}


def unknown_options(config: RerankConfig, known: frozenset[str]) -> None:
    """Raise a ConfigError naming every provider option ``config`` has that is not in ``known``."""
    extra = sorted(set(config.options) - known)
    if extra:
        valid = ", ".join(sorted(known)) or "none"
        raise ConfigError(
            [f"{SECTION}.{key}: unknown option for provider {config.provider} (valid: {valid})" for key in extra]
        )


__all__ = ["Reranker", "get_reranker", "ranked"]
