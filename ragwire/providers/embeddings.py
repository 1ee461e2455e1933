"""Dense embedding models: one builder per ``embeddings.provider`` name.

Every third-party import happens inside its builder, so importing this module
costs nothing; a missing package raises MissingDependencyError with the extra
to install.  HTTP clients are built with their own retries off: ragwire's
retry policy (``ragwire.providers.retry``) is the only one.
"""

from __future__ import annotations

import functools
import logging
import os
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ragwire.config import DEFAULT_EMBEDDING_MODELS, EMBEDDING_PROVIDERS, EmbeddingProvider, EmbeddingsConfig
from ragwire.errors import ConfigError, ProviderError
from ragwire.providers._config import OLLAMA_URL, OPENROUTER_URL, as_section, require, secret
from ragwire.providers._runtime import limit_torch_threads, packaged_minilm
from ragwire.providers.retry import call_with_retries

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

    from ragwire.stages import Embedder

logger = logging.getLogger(__name__)

SECTION = "embeddings"
OPENROUTER_BATCH_SIZE = 100
FASTEMBED_BATCH_SIZE = 256

# id(embeddings) -> (weak reference, dimension); entries vanish with their object.
_DIMENSIONS: dict[int, tuple[weakref.ref[Any], int]] = {}


def _forget_dimension(key: int, _ref: object) -> None:
    _DIMENSIONS.pop(key, None)


def get_embedding(config: EmbeddingsConfig | Mapping[str, Any]) -> Embeddings:
    """Build the embedding model described by ``config``.

    Args:
        config: the ``embeddings`` section: an ``EmbeddingsConfig``, or a dict with
            a ``provider`` key (validated by the same model; ``${VAR}`` references
            are expanded from the environment).

    Returns:
        A LangChain ``Embeddings`` with ``embed_documents`` and ``embed_query``.

    Raises:
        ConfigError: unknown provider or key, a bad value, or a missing API key.
        MissingDependencyError: the provider's package is not installed.
        ProviderError: a local model could not be loaded.
    """
    section = as_section(config, EmbeddingsConfig, SECTION, EMBEDDING_PROVIDERS)
    return _BUILDERS[section.provider](section)


def embedding_dimension(emb: Embedder) -> int:
    """Return the vector size of ``emb``, embedding a short probe the first time.

    Raises:
        ProviderError: the probe call failed.
    """
    key = id(emb)
    cached = _DIMENSIONS.get(key)
    if cached is not None and cached[0]() is emb:
        return cached[1]
    vector = call_with_retries(
        emb.embed_query, "dimension probe", retries=0, what="embedding dimension probe"
    )
    dim = len(vector)
    if dim == 0:
        raise ProviderError(
            f"embedding dimension probe: {type(emb).__name__} returned an empty vector"
        )
    try:
        ref = weakref.ref(emb, functools.partial(_forget_dimension, key))
    except TypeError:
        return dim  # not weak-referenceable: do not pin it in memory
    _DIMENSIONS[key] = (ref, dim)
    return dim


def _huggingface(cfg: EmbeddingsConfig) -> Embeddings:
    feature = f"{SECTION}.provider: huggingface"
    require("sentence_transformers", feature, "sentence-transformers", "local")
    module = require("langchain_huggingface", feature, "langchain-huggingface", "local")
    name = cfg.model_id
    source = packaged_minilm(name) or name
    limit_torch_threads()
    try:
        from transformers.utils import logging as hf_logging

        # A weight-loading progress bar on every CLI call is noise, not progress.
        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - transformers comes with sentence-transformers
        pass
    kwargs: dict[str, Any] = {
        "model_name": source,
        "model_kwargs": dict(cfg.model_kwargs or {"device": "cpu"}),
        "encode_kwargs": dict(cfg.encode_kwargs),
    }
    if cfg.cache_folder:
        kwargs["cache_folder"] = str(cfg.cache_folder)
    try:
        return module.HuggingFaceEmbeddings(**kwargs)
    except OSError as exc:
        offline = (
            " (HF_HUB_OFFLINE is set: use a local folder or a cached model)"
            if _hf_offline()
            else ""
        )
        raise ProviderError(
            f"{SECTION}.model_name: could not load huggingface model {name!r}{offline}: "
            f"{' '.join(str(exc).split())[:300]}"
        ) from exc


def _fastembed(cfg: EmbeddingsConfig) -> Embeddings:
    require("fastembed", f"{SECTION}.provider: fastembed", "fastembed", "fastembed")
    from ragwire.providers._fastembed import FastEmbedEmbeddings

    name = cfg.model_id
    path: str | None = None
    if Path(name).expanduser().is_dir():
        # fastembed still needs the registry name to know the architecture.
        path = str(Path(name).expanduser())
        name = cfg.model if cfg.model and cfg.model != cfg.model_name else DEFAULT_EMBEDDING_MODELS["fastembed"]
    return FastEmbedEmbeddings(
        model_name=name,
        specific_model_path=path,
        batch_size=cfg.batch_size or FASTEMBED_BATCH_SIZE,
        cache_dir=str(cfg.cache_folder) if cfg.cache_folder else None,
    )


def _onnx(cfg: EmbeddingsConfig) -> Embeddings:
    feature = f"{SECTION}.provider: onnx"
    require("onnxruntime", feature, "onnxruntime", "onnx")
    require("tokenizers", feature, "tokenizers", "onnx")
    from ragwire.providers import onnx_export
    from ragwire.providers.onnx import DEFAULT_BATCH_SIZE, OnnxEmbeddings

    name = cfg.model_id
    folder = Path(name).expanduser()
    # A folder holding model.onnx is used as it is; a model name or source folder maps to its cached export.
    if (folder / onnx_export.ONNX_FILE).is_file():
        held = onnx_export.read_manifest(folder).get("quantize")
        if cfg.quantize and held != cfg.quantize:
            raise ConfigError(
                f"{SECTION}.quantize: {name} is a ready ONNX model ({held or 'full precision'}), not a "
                f"{cfg.quantize} one; set model_name to the model it was exported from"
            )
        path = folder
    elif cfg.quantize:
        from ragwire.providers import onnx_quantize

        path = onnx_quantize.cached_variant(name, cfg.quantize)
    else:
        path = onnx_export.cached_export(name)
    # An Embeddings by registration, not by inheritance (see OnnxEmbeddings' docstring).
    return cast("Embeddings", OnnxEmbeddings(path, batch_size=cfg.batch_size or DEFAULT_BATCH_SIZE))


def _ollama(cfg: EmbeddingsConfig) -> Embeddings:
    module = require(
        "langchain_ollama", f"{SECTION}.provider: ollama", "langchain-ollama", "ollama"
    )
    kwargs: dict[str, Any] = {
        "model": cfg.model_id,
        "base_url": cfg.base_url or OLLAMA_URL,
        "client_kwargs": {"timeout": cfg.timeout},
    }
    if cfg.num_ctx is not None:
        kwargs["num_ctx"] = cfg.num_ctx
    if cfg.dimensions is not None:
        kwargs["dimensions"] = cfg.dimensions
    return module.OllamaEmbeddings(**kwargs)


def _openai(cfg: EmbeddingsConfig) -> Embeddings:
    module = require(
        "langchain_openai", f"{SECTION}.provider: openai", "langchain-openai", "openai"
    )
    api_key = secret(cfg.api_key) or os.environ.get("OPENAI_API_KEY")
    if not api_key:
        if not cfg.base_url:
            raise ConfigError(
                f"{SECTION}.api_key: provider openai needs an API key: set OPENAI_API_KEY "
                f"or {SECTION}.api_key"
            )
        # OpenAI-compatible local servers (vLLM, LM Studio) accept any key.
        api_key = "EMPTY"
    return module.OpenAIEmbeddings(**_openai_kwargs(cfg, cfg.base_url, api_key, None))


def _openrouter(cfg: EmbeddingsConfig) -> Embeddings:
    module = require(
        "langchain_openai", f"{SECTION}.provider: openrouter", "langchain-openai", "openrouter"
    )
    api_key = secret(cfg.api_key) or os.environ.get("OPENROUTER_API_KEY")
    if not api_key:
        raise ConfigError(
            f"{SECTION}.api_key: provider openrouter needs an API key: set OPENROUTER_API_KEY "
            f"or {SECTION}.api_key"
        )
    base_url = cfg.base_url or OPENROUTER_URL
    return module.OpenAIEmbeddings(**_openai_kwargs(cfg, base_url, api_key, OPENROUTER_BATCH_SIZE))


def _openai_kwargs(
    cfg: EmbeddingsConfig, base_url: str | None, api_key: str, batch_size: int | None
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "model": cfg.model_id,
        "api_key": api_key,
        # Send raw text: the token-length check downloads tiktoken files (fails
        # offline) and OpenAI-compatible servers tokenize with their own vocab.
        "check_embedding_ctx_length": False,
        "max_retries": 0,
        "timeout": cfg.timeout,
    }
    if base_url:
        kwargs["base_url"] = base_url
    size = cfg.batch_size or batch_size
    if size is not None:
        kwargs["chunk_size"] = size
    if cfg.dimensions is not None:
        kwargs["dimensions"] = cfg.dimensions
    return kwargs


def _google(cfg: EmbeddingsConfig) -> Embeddings:
    module = require(
        "langchain_google_genai", f"{SECTION}.provider: google", "langchain-google-genai", "google"
    )
    kwargs: dict[str, Any] = {"model": cfg.model_id}
    if cfg.api_key:
        kwargs["google_api_key"] = secret(cfg.api_key)
    if cfg.base_url:
        kwargs["base_url"] = cfg.base_url
    if cfg.dimensions is not None:
        kwargs["output_dimensionality"] = cfg.dimensions
    return module.GoogleGenerativeAIEmbeddings(**kwargs)


# Keyed by the names of ``EmbeddingProvider``, the one list of them (a unit test checks both agree).
_BUILDERS: dict[EmbeddingProvider, Callable[[EmbeddingsConfig], Embeddings]] = {
    "fastembed": _fastembed,
    "google": _google,
    "huggingface": _huggingface,
    "ollama": _ollama,
    "onnx": _onnx,
    "openai": _openai,
    "openrouter": _openrouter,
}


def _hf_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes", "on"}
