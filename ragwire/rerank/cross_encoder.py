"""``provider: cross_encoder``: a local sentence-transformers CrossEncoder, loaded on first use.

A cross-encoder reads the query and one chunk together and outputs one
relevance logit.  The score reported is what ``CrossEncoder.predict`` returns
with the model's own activation: for single-output rerankers (bge-reranker,
ms-marco MiniLM) that is the sigmoid of the logit, between 0 and 1.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragwire.config import RerankConfig
from ragwire.errors import ConfigError, ProviderError, one_line
from ragwire.rerank import SECTION, unknown_options

logger = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 32

# Options that are ragwire's own (batch_size, device) or passed to CrossEncoder(...) unchanged.
_PASSED_THROUGH = frozenset({
    "max_length", "cache_folder", "revision", "trust_remote_code", "local_files_only",
    "model_kwargs", "config_kwargs", "processor_kwargs", "backend",
})
OPTIONS = frozenset({"batch_size", "device"}) | _PASSED_THROUGH


class CrossEncoderReranker:
    """Scores (query, chunk) pairs with a CrossEncoder.

    Args:
        model: a Hugging Face hub name (must be in the local cache when offline) or a local folder.
        batch_size: pairs per forward pass.
        device: ``"cpu"``, ``"cuda"``, ``"mps"``…; ``None`` lets sentence-transformers choose.
        model_options: further keyword arguments for ``CrossEncoder(...)``.
    """

    def __init__(self, model: str, *, batch_size: int = DEFAULT_BATCH_SIZE, device: str | None = None,
                 model_options: dict[str, Any] | None = None) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"{SECTION}.batch_size: must be a positive integer, got {batch_size!r}")
        self.model_name = model
        self.batch_size = batch_size
        self.device = device
        self.model_options = dict(model_options or {})
        self._model: Any = None
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, config: RerankConfig) -> CrossEncoderReranker:
        """Build from ``retriever.rerank``; unknown options are refused here, not on the first query."""
        unknown_options(config, OPTIONS)
        options = config.options
        device = options.pop("device", None)
        return cls(
            str(config.model),
            batch_size=options.pop("batch_size", DEFAULT_BATCH_SIZE),
            device=None if device is None else str(device),
            model_options=options,
        )

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        """One score per document; the model loads on the first call."""
        if not documents:
            return []
        model = self._load()
        scores = model.predict(
            [(query, doc) for doc in documents],
            batch_size=self.batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        if getattr(scores, "ndim", 1) != 1:
            raise ProviderError(
                f"{SECTION}.model: {self.model_name!r} gives {scores.shape[-1]} outputs per pair; "
                "a reranker gives one (use a cross-encoder trained for reranking)"
            )
        return [float(s) for s in scores]

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = self._build()
            return self._model

    def _build(self) -> Any:
        from sentence_transformers import CrossEncoder

        from ragwire.providers._runtime import limit_torch_threads

        limit_torch_threads()
        try:
            from transformers.utils import logging as hf_logging

            # A weight-loading progress bar on the first query of every CLI call is noise.
            hf_logging.disable_progress_bar()
        except ImportError:  # pragma: no cover - transformers comes with sentence-transformers
            pass
        name = self.model_name
        folder = Path(name).expanduser()
        # Hub names look like relative paths ("BAAI/bge-reranker-base"): only explicit paths are folders,
        # as for embeddings.model_name.
        local = name.startswith(("./", "../", "~")) or folder.is_absolute()
        if local and not folder.is_dir():
            raise ProviderError(f"{SECTION}.model: folder {name!r} does not exist")
        try:
            model = CrossEncoder(str(folder) if local else name, device=self.device, **self.model_options)
        except OSError as exc:
            if local:
                raise ProviderError(
                    f"{SECTION}.model: could not load a cross-encoder from {name!r}: {one_line(exc)}"
                ) from exc
            if _hf_offline():
                raise ProviderError(
                    f"{SECTION}.model: {name!r} is not in the local Hugging Face cache and HF_HUB_OFFLINE "
                    "is set: download it once with network access, or set model to a local folder path"
                ) from exc
            raise ProviderError(
                f"{SECTION}.model: could not load cross-encoder {name!r} ({one_line(exc)}); download it once "
                "with network access, or set model to a local folder path"
            ) from exc
        logger.info("cross-encoder %s loaded", name)
        return model


def _hf_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes", "on"}
