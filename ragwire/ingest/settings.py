"""Ingest settings, derived from the config model, and the fingerprints that make setting changes take effect.

Every ingest setting is defined once, in :mod:`ragwire.config`; this module
only holds the config sections an ingest needs and what follows from them.
Each stored chunk records two fingerprints:

* ``settings`` — everything that shapes a document's chunks (which loader, the
  splitter, chunk dedup, the embedding model and its encode options, the metadata
  schema and its LLM).  A document whose metadata extraction failed is stored with
  a fingerprint that never matches, so the next ingest tries again.  A stored
  document whose fingerprint differs from the current one is re-processed by the
  next ingest, as if its file had changed.
* ``vectors`` — everything that shapes a chunk's vectors (the embedding model,
  its encode options, sparse on/off).  Stored vectors are reused for an
  unchanged chunk text only when this one matches.

A document that needed OCR (a page without a text layer, or an image) records
``settings`` plus ``+ocr:`` and the OCR fingerprint (engine, languages, dpi; or
"no engine"): turning OCR on, or changing it, re-processes exactly those documents,
never the ones whose every page had text.  A file that failed for lack of text is
not stored at all, so the next ingest tries it again anyway.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..config import IngestionConfig, LoaderConfig, RagwireConfig, SplitterConfig
from ..config.providers import LOCAL_EMBEDDING_PROVIDERS

if TYPE_CHECKING:
    from ..store import SourceState

# Bump when a loader or splitter change alters the chunks of unchanged files, so
# that the next ingest re-processes them (reusing every vector whose text is unchanged).
PIPELINE_VERSION = 2

# Options that change where or how fast a model runs, never its vectors.
_RUNTIME_ONLY = frozenset({"device", "batch_size", "show_progress_bar", "num_workers", "trust_remote_code"})


def _digest(data: object) -> str:
    text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def vectors_fingerprint(config: RagwireConfig) -> str:
    """The fingerprint of everything that shapes a chunk's vectors."""
    emb = config.embeddings
    return _digest({
        # The model, not the runtime: an ONNX export is checked against sentence-transformers
        # (cosine >= 0.9999) when it is built, so switching runtime does not re-embed.
        "model": emb.identity(),
        "dimensions": emb.dimensions,
        "encode": {k: v for k, v in emb.encode_kwargs.items() if k not in _RUNTIME_ONLY},
        "model_kwargs": {k: v for k, v in emb.model_kwargs.items() if k not in _RUNTIME_ONLY},
        "sparse": "bm25" if config.vectorstore.use_sparse else None,
    })


def settings_fingerprint(config: RagwireConfig) -> str:
    """The fingerprint of everything that shapes a document's chunks."""
    sp = config.splitter
    return _digest({
        "version": PIPELINE_VERSION,
        # The page strategy reads files with the page-aware loader; the others with markitdown.
        "loader": "page" if sp.strategy == "page" else "markitdown",
        "splitter": sp.model_dump(mode="json"),
        "dedup_chunks": config.ingestion.dedup_chunks,
        "vectors": vectors_fingerprint(config),
        # the metadata schema and model: a change re-extracts, reusing every vector
        "metadata": metadata_fingerprint(config),
    })


def ocr_fingerprint(config: RagwireConfig) -> str:
    """The fingerprint of what shapes OCR'd text: the engine this machine runs, its languages, the dpi."""
    return _digest(config.loader.ocr_settings().identity())


def metadata_fingerprint(config: RagwireConfig) -> str:
    from ..metadata.service import metadata_fingerprint as fingerprint

    return fingerprint(config)


@dataclass(frozen=True)
class IngestSettings:
    """What one ingest run needs, taken from the config (see :meth:`from_config`)."""

    loader: LoaderConfig
    splitter: SplitterConfig
    ingestion: IngestionConfig
    optimize_after_points: int = 1000
    # Embedding batches in flight at once: 1 for a local model (it already uses every
    # core), ``workers`` for a provider over HTTP, where requests wait on the network.
    embed_concurrency: int = 1
    fingerprint: str = ""
    vectors_fingerprint: str = ""
    ocr_fingerprint: str = ""
    # What a document nobody labelled is stored with (access.default); labels shape no chunk,
    # so they are in no fingerprint: a relabel rewrites only the payload.
    default_labels: tuple[str, ...] = ()

    def shaped_by(self, ocr_shaped: bool) -> str:
        """The settings fingerprint a document records; ``ocr_shaped``: OCR read (or would read) a page of it."""
        return f"{self.fingerprint}+ocr:{self.ocr_fingerprint}" if ocr_shaped else self.fingerprint

    def is_current(self, state: SourceState, file_hash: str) -> bool:
        """Whether ``state`` (a store SourceState) holds this content complete, shaped by these settings."""
        return any(state.is_current(file_hash, self.shaped_by(ocr)) for ocr in (False, True))

    @classmethod
    def from_config(cls, config: RagwireConfig) -> IngestSettings:
        ing = config.ingestion
        return cls(
            loader=config.loader,
            splitter=config.splitter,
            ingestion=ing,
            optimize_after_points=config.vectorstore.optimize_after_points,
            embed_concurrency=1 if config.embeddings.provider in LOCAL_EMBEDDING_PROVIDERS else ing.workers,
            fingerprint=settings_fingerprint(config),
            vectors_fingerprint=vectors_fingerprint(config),
            ocr_fingerprint=ocr_fingerprint(config),
            default_labels=tuple(config.access.default_labels()),
        )
