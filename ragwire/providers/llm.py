"""Chat models for metadata and filter extraction: one builder per ``llm.provider`` name.

Imports are lazy (a missing package raises MissingDependencyError with the
extra to install) and every client is built with its own retries off, so
ragwire's retry policy is the only one.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ragwire.errors import ConfigError
from ragwire.providers._config import (
    normalise,
    positive_float,
    positive_int,
    provider_name,
    require,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

logger = logging.getLogger(__name__)

SECTION = "llm"

OLLAMA_URL = "http://localhost:11434"
OPENROUTER_URL = "https://openrouter.ai/api/v1"
# Without a limit an Ollama call can hang forever; OpenAI's own default is 600 s.
DEFAULT_TIMEOUT = 300.0

KNOWN_KEYS = frozenset(
    {"provider", "model", "base_url", "num_ctx", "api_key", "temperature", "timeout", "max_tokens"}
)


def get_chat_model(config: Any) -> BaseChatModel:
    """Build the chat model described by ``config``.

    Args:
        config: the ``llm`` section, as a dict with ``provider`` and ``model``
            keys (``${VAR}`` references are expanded from the environment) or
            as a validated config object with ``model_dump()``.

    Returns:
        A LangChain ``BaseChatModel``.

    Raises:
        ConfigError: unknown provider or key, missing model, or a bad value.
        MissingDependencyError: the provider's package is not installed.
    """
    cfg = normalise(config, SECTION, KNOWN_KEYS)
    provider = provider_name(cfg, SECTION, sorted(_BUILDERS))
    if not cfg.get("model"):
        raise ConfigError(f"{SECTION}.model: required for provider {provider}")
    return _BUILDERS[provider](cfg)


def _common(cfg: dict[str, Any]) -> dict[str, Any]:
    """Arguments every provider takes under the same (alias) name."""
    kwargs: dict[str, Any] = {
        "model": str(cfg["model"]),
        "timeout": positive_float(cfg, "timeout", SECTION) or DEFAULT_TIMEOUT,
        "max_retries": 0,
    }
    temperature = _temperature(cfg)
    if temperature is not None:
        kwargs["temperature"] = temperature
    max_tokens = positive_int(cfg, "max_tokens", SECTION)
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    if cfg.get("api_key"):
        kwargs["api_key"] = cfg["api_key"]
    return kwargs


def _ollama(cfg: dict[str, Any]) -> BaseChatModel:
    module = require(
        "langchain_ollama", f"{SECTION}.provider: ollama", "langchain-ollama", "ollama"
    )
    kwargs: dict[str, Any] = {
        "model": str(cfg["model"]),
        "base_url": str(cfg.get("base_url") or OLLAMA_URL),
        "client_kwargs": {"timeout": positive_float(cfg, "timeout", SECTION) or DEFAULT_TIMEOUT},
    }
    temperature = _temperature(cfg)
    if temperature is not None:
        kwargs["temperature"] = temperature
    num_ctx = positive_int(cfg, "num_ctx", SECTION)
    if num_ctx is not None:
        kwargs["num_ctx"] = num_ctx
    max_tokens = positive_int(cfg, "max_tokens", SECTION)
    if max_tokens is not None:
        kwargs["num_predict"] = max_tokens
    return module.ChatOllama(**kwargs)


def _openai(cfg: dict[str, Any]) -> BaseChatModel:
    module = require(
        "langchain_openai", f"{SECTION}.provider: openai", "langchain-openai", "openai"
    )
    kwargs = _common(cfg)
    base_url = cfg.get("base_url")
    if base_url:
        kwargs["base_url"] = str(base_url)
    if "api_key" not in kwargs and not os.environ.get("OPENAI_API_KEY"):
        if not base_url:
            raise ConfigError(
                f"{SECTION}.api_key: provider openai needs an API key: set OPENAI_API_KEY "
                f"or {SECTION}.api_key"
            )
        # OpenAI-compatible local servers (vLLM, LM Studio) accept any key.
        kwargs["api_key"] = "EMPTY"
    return module.ChatOpenAI(**kwargs)


def _openrouter(cfg: dict[str, Any]) -> BaseChatModel:
    feature = f"{SECTION}.provider: openrouter"
    kwargs = _common(cfg)
    if "api_key" not in kwargs:
        key = os.environ.get("OPENROUTER_API_KEY")
        if not key:
            raise ConfigError(
                f"{SECTION}.api_key: provider openrouter needs an API key: set OPENROUTER_API_KEY "
                f"or {SECTION}.api_key"
            )
        kwargs["api_key"] = key
    dedicated = _chat_openrouter(cfg, dict(kwargs))
    if dedicated is not None:
        return dedicated
    module = require("langchain_openai", feature, "langchain-openai", "openrouter")
    kwargs["base_url"] = str(cfg.get("base_url") or OPENROUTER_URL)
    return module.ChatOpenAI(**kwargs)


def _chat_openrouter(cfg: dict[str, Any], kwargs: dict[str, Any]) -> BaseChatModel | None:
    """ChatOpenRouter with its SDK's retries off, or None to use the OpenAI-compatible route.

    With ``max_retries=0`` langchain-openrouter leaves the openrouter SDK on its
    default policy (retry 5xx for up to an hour), which would hide failures from
    ragwire's retry policy, so the SDK's retry config is replaced by "none".  If
    that cannot be done (package missing or internals changed), None is returned.
    """
    try:
        from langchain_openrouter import ChatOpenRouter
        from openrouter.utils import BackoffStrategy, RetryConfig
    except ImportError:
        return None
    # ChatOpenRouter's timeout is whole milliseconds (the SDK's ``timeout_ms``).
    kwargs["timeout"] = math.ceil(kwargs["timeout"] * 1000)
    if cfg.get("base_url"):
        kwargs["base_url"] = str(cfg["base_url"])
    chat = ChatOpenRouter(**kwargs)
    sdk_config = getattr(getattr(chat, "client", None), "sdk_configuration", None)
    if sdk_config is None or not hasattr(sdk_config, "retry_config"):
        logger.debug("langchain-openrouter internals changed; using the OpenAI-compatible endpoint")
        return None
    sdk_config.retry_config = RetryConfig("none", BackoffStrategy(0, 0, 1.0, 0), False)
    return chat


def _google(cfg: dict[str, Any]) -> BaseChatModel:
    module = require(
        "langchain_google_genai", f"{SECTION}.provider: google", "langchain-google-genai", "google"
    )
    kwargs = _common(cfg)
    if cfg.get("base_url"):
        kwargs["base_url"] = str(cfg["base_url"])
    return module.ChatGoogleGenerativeAI(**kwargs)


def _groq(cfg: dict[str, Any]) -> BaseChatModel:
    module = require("langchain_groq", f"{SECTION}.provider: groq", "langchain-groq", "groq")
    kwargs = _common(cfg)
    if cfg.get("base_url"):
        kwargs["base_url"] = str(cfg["base_url"])
    return module.ChatGroq(**kwargs)


def _anthropic(cfg: dict[str, Any]) -> BaseChatModel:
    module = require(
        "langchain_anthropic", f"{SECTION}.provider: anthropic", "langchain-anthropic", "anthropic"
    )
    kwargs = _common(cfg)
    if cfg.get("base_url"):
        kwargs["base_url"] = str(cfg["base_url"])
    return module.ChatAnthropic(**kwargs)


def _temperature(cfg: dict[str, Any]) -> float | None:
    value = cfg.get("temperature")
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{SECTION}.temperature: must be a number >= 0, got {value!r}") from None
    if isinstance(value, bool) or number < 0:
        raise ConfigError(f"{SECTION}.temperature: must be a number >= 0, got {value!r}")
    return number


_BUILDERS: dict[str, Callable[[dict[str, Any]], BaseChatModel]] = {
    "anthropic": _anthropic,
    "google": _google,
    "groq": _groq,
    "ollama": _ollama,
    "openai": _openai,
    "openrouter": _openrouter,
}
