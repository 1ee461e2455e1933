"""The sections of the model providers: `embeddings:` (dense model) and `llm:` (chat model)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr

from ragwire.config._base import ModelName, _Section

DEFAULT_EMBEDDING_MODELS = {
    "ollama": "nomic-embed-text",
    "openai": "text-embedding-3-small",
    "openrouter": "nvidia/llama-nemotron-embed-vl-1b-v2:free",
    "google": "models/embedding-001",
    "huggingface": "sentence-transformers/all-MiniLM-L6-v2",
    "fastembed": "BAAI/bge-small-en-v1.5",
    "onnx": "sentence-transformers/all-MiniLM-L6-v2",
}


class EmbeddingsConfig(_Section):
    """`embeddings:` the dense embedding model (required)."""

    provider: Literal["ollama", "openai", "openrouter", "google", "huggingface", "fastembed", "onnx"]
    model: str | None = None
    model_name: ModelName | None = None
    base_url: str | None = None
    api_key: SecretStr | None = None
    num_ctx: int | None = Field(None, ge=1)
    batch_size: int | None = Field(None, ge=1)
    dimensions: int | None = Field(None, ge=1)
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    encode_kwargs: dict[str, Any] = Field(default_factory=dict)
    timeout: float = Field(60, gt=0)

    def identity(self) -> str:
        """Return the name recorded in the collection, e.g. ``"fastembed:BAAI/bge-small-en-v1.5"``.

        A sentence-transformers model is recorded as ``huggingface:<model id or folder>``
        whichever runtime runs it: its ONNX export (``provider: onnx``) is verified to give
        the same vectors when it is built, so a collection built with one opens with the other.
        """
        name = self.model_name or self.model or DEFAULT_EMBEDDING_MODELS[self.provider]
        provider = self.provider
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


class LLMConfig(_Section):
    """`llm:` the chat model for metadata extraction, filters and answers."""

    provider: Literal["ollama", "openai", "openrouter", "google", "groq", "anthropic"]
    model: str = Field(min_length=1)
    base_url: str | None = None
    api_key: SecretStr | None = None
    num_ctx: int | None = Field(None, ge=1)
    temperature: float = Field(0.0, ge=0)
    timeout: float = Field(60, gt=0)
    max_tokens: int | None = Field(None, ge=1)
