"""``provider: cohere``: Cohere's hosted rerank endpoint (``/v2/rerank``) through the ``cohere`` SDK.

The SDK's own retries are off (per request); ragwire's retry policy (``providers.retry``)
retries 5xx answers, rate limits, timeouts and refused connections.  The score
reported is Cohere's ``relevance_score``, between 0 and 1.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ragwire.config import DEFAULT_RETRIES, RerankConfig
from ragwire.errors import ConfigError, ProviderError
from ragwire.providers.retry import call_with_retries
from ragwire.rerank import SECTION, unknown_options

if TYPE_CHECKING:
    from cohere.core.api_error import ApiError

COHERE_URL = "https://api.cohere.com"
DEFAULT_TIMEOUT = 60.0
OPTIONS = frozenset({"timeout", "max_tokens_per_doc"})
_KEY_VARIABLES = ("COHERE_API_KEY", "CO_API_KEY")
_RETRYABLE_STATUS = frozenset({408, 425, 429})


class CohereReranker:
    """Scores documents with ``cohere.ClientV2.rerank``.

    Args:
        model: a Cohere rerank model, e.g. ``rerank-v3.5``.
        api_key: the Cohere API key.
        base_url: the API root; ``None`` means Cohere's own.
        retries: extra attempts after a transient failure.
        timeout: seconds to wait for one answer.
        max_tokens_per_doc: Cohere truncates each document to this many tokens (``None``: its default).
    """

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None, retries: int = DEFAULT_RETRIES,
                 timeout: float = DEFAULT_TIMEOUT, max_tokens_per_doc: int | None = None) -> None:
        self.model = model
        self.url = (base_url or COHERE_URL).rstrip("/")
        self.retries = retries
        self.timeout = timeout
        self.max_tokens_per_doc = max_tokens_per_doc
        self._api_key = api_key
        self._client: Any = None
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, config: RerankConfig, *, retries: int = DEFAULT_RETRIES) -> CohereReranker:
        """Build from ``retriever.rerank``; the key is taken from the config, else $COHERE_API_KEY / $CO_API_KEY.

        Raises:
            ConfigError: no API key anywhere, an unknown option or a bad option value.
        """
        unknown_options(config, OPTIONS)
        key = config.api_key.get_secret_value() if config.api_key is not None else None
        key = key or next((os.environ[v] for v in _KEY_VARIABLES if os.environ.get(v)), None)
        if not key:
            raise ConfigError(
                f"{SECTION}.api_key: provider cohere needs an API key: set COHERE_API_KEY or {SECTION}.api_key"
            )
        options = config.options
        return cls(
            str(config.model),
            api_key=key,
            base_url=config.base_url,
            retries=retries,
            timeout=_positive(options, "timeout", float) or DEFAULT_TIMEOUT,
            max_tokens_per_doc=_positive(options, "max_tokens_per_doc", int),
        )

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        """One relevance score per document, in the order given.

        Raises:
            ProviderError: the key was refused (at once), or the service kept failing (after retries).
        """
        if not documents:
            return []
        docs = list(documents)
        reply = call_with_retries(self._rerank, query, docs, retries=self.retries,
                                  what=f"cohere rerank at {self.url}")
        scores: list[float | None] = [None] * len(docs)
        for result in reply.results:
            if 0 <= result.index < len(docs):
                scores[result.index] = float(result.relevance_score)
        missing = sum(s is None for s in scores)
        if missing:
            raise ProviderError(
                f"cohere rerank at {self.url}: the answer scored {len(docs) - missing} of {len(docs)} documents"
            )
        return [float(s) for s in scores if s is not None]

    def _rerank(self, query: str, documents: list[str]) -> Any:
        from cohere.core.api_error import ApiError

        extra: dict[str, Any] = {}
        if self.max_tokens_per_doc is not None:
            extra["max_tokens_per_doc"] = self.max_tokens_per_doc
        try:
            return self._get_client().rerank(
                model=self.model, query=query, documents=documents, top_n=len(documents),
                request_options={"max_retries": 0}, **extra,
            )
        except ApiError as exc:
            raise self._http_error(exc) from exc

    def _http_error(self, exc: ApiError) -> ProviderError:
        status = exc.status_code
        if status in (401, 403):
            return ProviderError(
                f"cohere rerank at {self.url}: the API key was refused (HTTP {status}); "
                f"check {SECTION}.api_key or COHERE_API_KEY"
            )
        detail = _message(exc.body)
        retryable = status is None or status in _RETRYABLE_STATUS or status >= 500
        if retryable:
            # call_with_retries prefixes "cohere rerank at URL failed after N attempts"
            return ProviderError(f"HTTP {status}: {detail}", retryable=True)
        return ProviderError(f"cohere rerank at {self.url}: HTTP {status}: {detail}")

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                import cohere

                self._client = cohere.ClientV2(api_key=self._api_key, base_url=self.url, timeout=self.timeout)
            return self._client


def _message(body: object) -> str:
    if isinstance(body, dict):
        inner = body.get("message") or body.get("error")
        if isinstance(inner, dict):
            inner = inner.get("message")
        if inner:
            body = inner
    return " ".join(str(body).split())[:200] or "no details"


def _positive(options: dict[str, Any], key: str, kind: type) -> Any:
    value = options.get(key)
    if value is None:
        return None
    try:
        number = kind(value)
    except (TypeError, ValueError):
        number = 0
    if isinstance(value, bool) or number <= 0:
        raise ConfigError(f"{SECTION}.{key}: must be a positive number, got {value!r}")
    return number
