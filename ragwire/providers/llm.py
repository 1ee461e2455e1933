"""Chat models for metadata and filter extraction: one builder per ``llm.provider`` name.

Imports are lazy (a missing package raises MissingDependencyError with the
extra to install) and every client is built with its own retries off, so
ragwire's retry policy is the only one.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ragwire.config import LLM_PROVIDERS, LLMConfig, LLMProvider
from ragwire.errors import ConfigError
from ragwire.providers._config import (
    OLLAMA_URL,
    OPENROUTER_URL,
    as_section,
    provider_name,
    require,
    secret,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

logger = logging.getLogger(__name__)

SECTION = "llm"
# ChatOpenAI asks for the closing usage chunk (``stream_options.include_usage``) only for
# api.openai.com; OpenAI-compatible servers (vLLM, LM Studio, OpenRouter) send it too when
# asked, and without it a streamed answer has no token counts and no cost.
_STREAM_USAGE: dict[str, Any] = {"stream_usage": True}


def get_chat_model(config: LLMConfig | Mapping[str, Any]) -> BaseChatModel:
    """Build the chat model described by ``config``.

    Args:
        config: the ``llm`` section: an ``LLMConfig``, or a dict with ``provider``
            and ``model`` keys (validated by the same model; ``${VAR}`` references
            are expanded from the environment).

    Returns:
        A LangChain ``BaseChatModel``.

    Raises:
        ConfigError: unknown provider or key, missing model, or a bad value.
        MissingDependencyError: the provider's package is not installed.
    """
    if not isinstance(config, LLMConfig) and isinstance(config, Mapping) and not config.get("model"):
        provider = provider_name(config, SECTION, LLM_PROVIDERS)
        raise ConfigError(f"{SECTION}.model: required for provider {provider}")
    section = as_section(config, LLMConfig, SECTION, LLM_PROVIDERS)
    return _BUILDERS[section.provider](section)


def _common(cfg: LLMConfig) -> dict[str, Any]:
    """Arguments every provider takes under the same (alias) name."""
    kwargs: dict[str, Any] = {
        "model": cfg.model,
        "timeout": cfg.timeout,
        "max_retries": 0,
        "temperature": cfg.temperature,
    }
    if cfg.max_tokens is not None:
        kwargs["max_tokens"] = cfg.max_tokens
    if cfg.api_key:
        kwargs["api_key"] = secret(cfg.api_key)
    return kwargs


def _ollama(cfg: LLMConfig) -> BaseChatModel:
    module = require(
        "langchain_ollama", f"{SECTION}.provider: ollama", "langchain-ollama", "ollama"
    )
    kwargs: dict[str, Any] = {
        "model": cfg.model,
        "base_url": cfg.base_url or OLLAMA_URL,
        "client_kwargs": {"timeout": cfg.timeout},
        "temperature": cfg.temperature,
    }
    if cfg.num_ctx is not None:
        kwargs["num_ctx"] = cfg.num_ctx
    if cfg.max_tokens is not None:
        kwargs["num_predict"] = cfg.max_tokens
    return module.ChatOllama(**kwargs)


def _openai(cfg: LLMConfig) -> BaseChatModel:
    module = require(
        "langchain_openai", f"{SECTION}.provider: openai", "langchain-openai", "openai"
    )
    kwargs = _common(cfg)
    if cfg.base_url:
        kwargs["base_url"] = cfg.base_url
    if "api_key" not in kwargs and not os.environ.get("OPENAI_API_KEY"):
        if not cfg.base_url:
            raise ConfigError(
                f"{SECTION}.api_key: provider openai needs an API key: set OPENAI_API_KEY "
                f"or {SECTION}.api_key"
            )
        # OpenAI-compatible local servers (vLLM, LM Studio) accept any key.
        kwargs["api_key"] = "EMPTY"
    return module.ChatOpenAI(**kwargs, **_STREAM_USAGE)


def _openrouter(cfg: LLMConfig) -> BaseChatModel:
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
    kwargs["base_url"] = cfg.base_url or OPENROUTER_URL
    return module.ChatOpenAI(**kwargs, **_STREAM_USAGE)


def _chat_openrouter(cfg: LLMConfig, kwargs: dict[str, Any]) -> BaseChatModel | None:
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
    if cfg.base_url:
        kwargs["base_url"] = cfg.base_url
    chat = ChatOpenRouter(**kwargs)
    sdk_config = getattr(getattr(chat, "client", None), "sdk_configuration", None)
    if sdk_config is None or not hasattr(sdk_config, "retry_config"):
        logger.debug("langchain-openrouter internals changed; using the OpenAI-compatible endpoint")
        return None
    sdk_config.retry_config = RetryConfig("none", BackoffStrategy(0, 0, 1.0, 0), False)
    return chat


def _google(cfg: LLMConfig) -> BaseChatModel:
    module = require(
        "langchain_google_genai", f"{SECTION}.provider: google", "langchain-google-genai", "google"
    )
    kwargs = _common(cfg)
    if cfg.base_url:
        kwargs["base_url"] = cfg.base_url
    return module.ChatGoogleGenerativeAI(**kwargs)


def _groq(cfg: LLMConfig) -> BaseChatModel:
    module = require("langchain_groq", f"{SECTION}.provider: groq", "langchain-groq", "groq")
    kwargs = _common(cfg)
    if cfg.base_url:
        kwargs["base_url"] = cfg.base_url
    return module.ChatGroq(**kwargs)


def _anthropic(cfg: LLMConfig) -> BaseChatModel:
    module = require(
        "langchain_anthropic", f"{SECTION}.provider: anthropic", "langchain-anthropic", "anthropic"
    )
    kwargs = _common(cfg)
    if cfg.base_url:
        kwargs["base_url"] = cfg.base_url
    return module.ChatAnthropic(**kwargs)


# Keyed by the names of ``LLMProvider``, the one list of them (a unit test checks both agree).
_BUILDERS: dict[LLMProvider, Callable[[LLMConfig], BaseChatModel]] = {
    "anthropic": _anthropic,
    "google": _google,
    "groq": _groq,
    "ollama": _ollama,
    "openai": _openai,
    "openrouter": _openrouter,
}
