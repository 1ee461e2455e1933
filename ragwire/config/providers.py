"""The sections of the model providers: `embeddings:` (dense model) and `llm:` (chat model).

This module is the one registry of provider names (the ``Literal`` types below) and holds
the one default of every provider key; ``ragwire.providers`` builds from these sections.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import Field, SecretStr, model_validator

from ragwire.config._base import ConfigPath, ModelName, _problem, _Section

EmbeddingProvider = Literal["fastembed", "google", "huggingface", "ollama", "onnx", "openai", "openrouter"]
LLMProvider = Literal["anthropic", "google", "groq", "ollama", "openai", "openrouter"]
EMBEDDING_PROVIDERS: tuple[str, ...] = get_args(EmbeddingProvider)
LLM_PROVIDERS: tuple[str, ...] = get_args(LLMProvider)

# One table for both: the name recorded in the collection and the model loaded.
DEFAULT_EMBEDDING_MODELS: dict[str, str] = {
    "ollama": "nomic-embed-text",
    "openai": "text-embedding-3-small",
    "openrouter": "nvidia/llama-nemotron-embed-vl-1b-v2:free",
    "google": "models/embedding-001",
    "huggingface": "sentence-transformers/all-MiniLM-L6-v2",
    "fastembed": "BAAI/bge-small-en-v1.5",
    "onnx": "sentence-transformers/all-MiniLM-L6-v2",
}
# Local runtimes name their model with `model_name` (an id or a folder), API providers with
# `model` (the spec's two spellings); fastembed also reads `model` beside a folder `model_name`.
LOCAL_EMBEDDING_PROVIDERS = frozenset({"huggingface", "onnx", "fastembed"})

# Seconds per request. Without a limit an Ollama call can hang forever; OpenAI's own is 600 s.
DEFAULT_TIMEOUT_S = 60.0


class EmbeddingsConfig(_Section):
    """`embeddings:` the dense embedding model (required)."""

    provider: EmbeddingProvider
    model: str | None = None
    model_name: ModelName | None = None
    base_url: str | None = None
    api_key: SecretStr | None = None
    num_ctx: int | None = Field(None, ge=1)
    batch_size: int | None = Field(None, ge=1)
    dimensions: int | None = Field(None, ge=1)
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    encode_kwargs: dict[str, Any] = Field(default_factory=dict)
    # where huggingface / fastembed keep downloaded models (their own default when unset)
    cache_folder: ConfigPath | None = None
    timeout: float = Field(DEFAULT_TIMEOUT_S, gt=0)

    @model_validator(mode="after")
    def _one_model_key(self) -> EmbeddingsConfig:
        # the key a provider does not read was silently ignored, and the collection then
        # recorded a model other than the one loaded
        if self.provider in LOCAL_EMBEDDING_PROVIDERS:
            if self.model is not None and (self.model_name is None or self.provider != "fastembed"):
                raise _problem(
                    "model",
                    f"provider {self.provider} reads model_name, not model (did you mean 'model_name'?)",
                )
        elif self.model_name is not None:
            raise _problem(
                "model_name", f"provider {self.provider} reads model, not model_name (did you mean 'model'?)"
            )
        return self

    @property
    def model_id(self) -> str:
        """The model the provider loads: ``model_name`` or ``model`` (by provider), else its default."""
        given = self.model_name if self.provider in LOCAL_EMBEDDING_PROVIDERS else self.model
        return given or DEFAULT_EMBEDDING_MODELS[self.provider]

    def identity(self) -> str:
        """Return the name recorded in the collection, e.g. ``"fastembed:BAAI/bge-small-en-v1.5"``.

        A sentence-transformers model is recorded as ``huggingface:<model id or folder>``
        whichever runtime runs it: its ONNX export (``provider: onnx``) is verified to give
        the same vectors when it is built, so a collection built with one opens with the other.
        """
        name = self.model_id
        provider: str = self.provider
        if provider == "onnx":
            provider, name = "huggingface", _onnx_source(name)
        if provider == "huggingface" and "/" not in name and not Path(name).exists():
            # sentence-transformers resolves bare names under its own namespace: the same model
            name = f"sentence-transformers/{name}"
        return f"{provider}:{name}"


def _onnx_source(name: str) -> str:
    """The model an ONNX export folder was made from (its manifest's ``source``), else ``name``."""
    try:
        manifest = json.loads((Path(name).expanduser() / "ragwire_onnx.json").read_text())
    except (OSError, ValueError):
        return name
    source = manifest.get("source") if isinstance(manifest, dict) else None
    return source if isinstance(source, str) and source else name


class LLMPricing(_Section):
    """`llm.pricing:` what the model costs, per million tokens (any currency; the cost is in it)."""

    input_per_million: float = Field(ge=0)
    output_per_million: float = Field(ge=0)

    def cost(self, input_tokens: int | None, output_tokens: int | None) -> float | None:
        """The price of these tokens; None when the provider reported no token counts."""
        if input_tokens is None and output_tokens is None:
            return None
        return ((input_tokens or 0) * self.input_per_million + (output_tokens or 0) * self.output_per_million) / 1e6


class LLMConfig(_Section):
    """`llm:` the chat model for metadata extraction, filters and answers."""

    provider: LLMProvider
    model: str = Field(min_length=1)
    base_url: str | None = None
    api_key: SecretStr | None = None
    num_ctx: int | None = Field(None, ge=1)
    temperature: float = Field(0.0, ge=0)
    timeout: float = Field(DEFAULT_TIMEOUT_S, gt=0)
    max_tokens: int | None = Field(None, ge=1)
    pricing: LLMPricing | None = None
