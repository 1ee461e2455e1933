"""Sentence-transformers models run on ONNX Runtime: the same vectors, no torch at run time.

``OnnxEmbeddings`` reads an export folder (``model.onnx``, ``tokenizer.json`` and
the sentence-transformers config files, see :mod:`ragwire.providers.onnx_export`)
and reproduces the model's own pipeline: truncation at its ``max_seq_length``,
the pooling of ``1_Pooling/config.json`` over the attention mask, and L2
normalisation when ``modules.json`` lists a Normalize module.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

from ragwire.errors import ProviderError
from ragwire.providers._config import require
from ragwire.providers._runtime import available_cpus

DEFAULT_BATCH_SIZE = 32
# sentence-transformers' Transformer module default when no config says otherwise.
_FALLBACK_MAX_LENGTH = 512
_POOLING_MODES = ("mean", "cls", "max")


class OnnxEmbeddings:
    """LangChain embeddings over an ONNX export of a sentence-transformers model.

    Not a subclass of ``langchain_core``'s ``Embeddings`` in the class statement:
    that import costs a cold ``ragwire query`` about 0.2 s, and nothing on the query
    path needs it.  Instances are registered as a virtual subclass as soon as
    LangChain is loaded (:func:`register_with_langchain`), so ``isinstance`` checks
    in LangChain code and in applications that use LangChain hold.

    Args:
        path: the export folder.
        batch_size: texts per forward pass; texts are sorted by length first so a
            batch pads little, and vectors come back in input order.
        threads: ONNX Runtime intra-op threads (``None``: the CPUs this process may use).

    Raises:
        MissingDependencyError: onnxruntime or tokenizers is not installed.
        ProviderError: the folder is not a usable export (on first use).
    """

    def __init__(self, path: str | Path, *, batch_size: int = DEFAULT_BATCH_SIZE,
                 threads: int | None = None) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        feature = "embeddings.provider: onnx"
        require("onnxruntime", feature, "onnxruntime", "onnx")
        require("tokenizers", feature, "tokenizers", "onnx")
        self.path = Path(path)
        self.batch_size = batch_size
        self.threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: list[str] = []
        self.max_length, self.pooling, self.normalize = _read_st_config(self.path)
        if "langchain_core.embeddings" in sys.modules:
            register_with_langchain()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed ``texts``; vectors come back in the order of ``texts``."""
        if not texts:
            return []
        self._load()
        encodings = self._tokenizer.encode_batch([str(t) for t in texts])
        lengths = [len(e.ids) for e in encodings]
        order = sorted(range(len(texts)), key=lengths.__getitem__)
        out: list[list[float]] = [[] for _ in texts]
        for idx in batches(order, lengths, self.batch_size):
            vectors = self._run([encodings[i] for i in idx])
            for i, vec in zip(idx, vectors, strict=True):
                out[i] = vec.tolist()
        return out

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (the same way as a document: these models are symmetric)."""
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """:meth:`embed_documents` in a worker thread, as LangChain's base class does."""
        import asyncio

        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        """:meth:`embed_query` in a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.embed_query, text)

    def _run(self, encodings: list[Any]) -> Any:
        import numpy as np

        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[row, :n] = enc.ids
            mask[row, :n] = 1
            types[row, :n] = enc.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        hidden = self._session.run(None, {k: feeds[k] for k in self._inputs})[0]
        if self.pooling == "cls":
            pooled = hidden[:, 0]
        elif self.pooling == "max":
            pooled = np.where(mask[:, :, None] > 0, hidden, -1e9).max(axis=1)
        else:
            weights = mask[:, :, None].astype(hidden.dtype)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        if self.normalize:
            pooled = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return pooled

    def load(self) -> None:
        """Open the ONNX session and tokenizer now rather than on the first call (idempotent).

        Raises:
            ProviderError: the folder is not a usable export.
        """
        self._load()

    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            try:
                tokenizer = Tokenizer.from_file(str(self.path / "tokenizer.json"))
                opts = ort.SessionOptions()
                opts.intra_op_num_threads = self.threads or available_cpus()
                opts.inter_op_num_threads = 1
                opts.log_severity_level = 3
                session = ort.InferenceSession(
                    str(self.path / "model.onnx"), opts, providers=["CPUExecutionProvider"]
                )
            except Exception as exc:  # onnxruntime raises its own untyped errors
                raise ProviderError(
                    f"embeddings: could not load the ONNX model at {self.path}: "
                    f"{' '.join(str(exc).split())[:300]}"
                ) from exc
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=self.max_length)
            self._inputs = [i.name for i in session.get_inputs()]
            self._tokenizer = tokenizer
            self._session = session


# The most padding a batch may carry, as a share of its real tokens.
MAX_PADDING = 0.2


def batches(order: list[int], lengths: list[int], size: int) -> list[list[int]]:
    """``order`` (indexes sorted by ``lengths``, shortest first) cut into batches of at most ``size``.

    A batch is padded to its longest text, so one that mixes short and long texts spends
    most of its work on padding: 27 sentences of 15 to 63 tokens in one batch are 40 %
    padding.  A batch is also cut where the next text would make padding more than
    ``MAX_PADDING`` of its tokens; texts of like length (an ingest's chunks) still fill
    whole batches.
    """
    out: list[list[int]] = []
    current: list[int] = []
    real = 0
    for i in order:
        n = lengths[i]
        if current and (len(current) >= size or n * (len(current) + 1) > (1 + MAX_PADDING) * (real + n)):
            out.append(current)
            current, real = [], 0
        current.append(i)
        real += n
    if current:
        out.append(current)
    return out


def register_with_langchain() -> None:
    """Make :class:`OnnxEmbeddings` a virtual subclass of LangChain's ``Embeddings`` (idempotent).

    Called where LangChain is imported anyway (the VectorStore and retriever adapters),
    and by the constructor when LangChain is already loaded.
    """
    from langchain_core.embeddings import Embeddings

    if not issubclass(OnnxEmbeddings, Embeddings):
        Embeddings.register(OnnxEmbeddings)


def _read_st_config(path: Path) -> tuple[int, str, bool]:
    """(max_seq_length, pooling mode, normalize) from the sentence-transformers config files."""
    max_length = _FALLBACK_MAX_LENGTH
    st_config = _json(path / "sentence_bert_config.json")
    if isinstance(st_config.get("max_seq_length"), int):
        max_length = st_config["max_seq_length"]
    pooling = "mean"
    pool_cfg = _json(path / "1_Pooling" / "config.json")
    for mode in _POOLING_MODES:
        if pool_cfg.get(f"pooling_mode_{mode}_token" if mode == "cls" else f"pooling_mode_{mode}_tokens"):
            pooling = mode
            break
    unsupported = [k for k, v in pool_cfg.items()
                   if k.startswith("pooling_mode_") and v and pooling not in k]
    if unsupported:
        raise ProviderError(f"{path}: unsupported pooling {', '.join(unsupported)} (supported: mean, cls, max)")
    modules = _json(path / "modules.json", default=[])
    normalize = any(str(m.get("type", "")).endswith(".Normalize") for m in modules if isinstance(m, dict))
    return max_length, pooling, normalize


def _json(path: Path, default: object = None) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return {} if default is None else default
    except (OSError, ValueError) as exc:
        raise ProviderError(f"{path}: unreadable ({exc})") from exc
