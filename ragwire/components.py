"""The parts a :class:`~ragwire.pipeline.RAGWire` is built from, each made on first use.

The config, the embedding model (shared by every pipeline in the process), the BM25
encoder, the collection and the opening of it for one operation, the searcher, the
chat model, the answerer, the reranker and the metadata service.  ``RAGWire`` adds
the public methods; this keeps the wiring and the API in two modules of readable size.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator

from .config import RagwireConfig, load_config

# Loaded embedding models, shared by every RAGWire in the process: loading one
# costs seconds and hundreds of MB, and two pipelines on one model are common.
_EMBEDDINGS: dict[str, Any] = {}


class _LazyEmbedding:
    """Stands in for the embedding model and loads it on the first call that needs vectors."""

    def __init__(self, rag: Components) -> None:
        self._rag = rag

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._rag.embedding.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self._rag.embedding.embed_query(text)

    def load(self) -> None:
        """Load the model now (an ingest does it before its first batch)."""
        self._rag.embedding  # noqa: B018 - the property loads it


def _embedding_key(embeddings: Any) -> str:
    """Everything that changes an embedding client's behaviour, secrets included.

    The masked dump would make two configs that differ only in ``api_key`` share one
    client; secret values enter the key as hashes, never in clear.
    """
    import hashlib
    import json

    data = embeddings.model_dump(mode="json")
    for name, value in embeddings:
        if hasattr(value, "get_secret_value"):
            data[name] = "sha256:" + hashlib.sha256(value.get_secret_value().encode("utf-8")).hexdigest()
    return json.dumps(data, sort_keys=True, default=str)


class Components:
    """Lazily built parts of a pipeline; see :class:`~ragwire.pipeline.RAGWire` for the API.

    The answerer and the metadata service call back into ``retrieve`` and
    ``get_field_values``, which ``RAGWire`` defines.
    """

    def __init__(self, config_path: str | Path = "config.yaml") -> None:
        self.config_path = Path(config_path)
        self.config: RagwireConfig = load_config(self.config_path)
        rerank = self.config.retriever.rerank
        self._reranker = None
        if rerank is not None and rerank.enabled:
            from .rerank import get_reranker

            # Checked now, not on the first query: a missing package or API key, an unknown option.
            # The model itself loads on first use.
            self._reranker = get_reranker(rerank, retries=self.config.ingestion.retries)
        self._embedding = None
        self._llm = None
        self._metadata = None
        self._answerer = None
        self._sparse = None
        self._dimension: int | None = None
        self._collection = None
        self._held: contextlib.ExitStack | None = None
        # The collection instance whose model record was checked against this config;
        # a collection recreated by another process is checked again.
        self._ensured: str | None = None

    # -- components, built on first use ---------------------------------------
    @property
    def embedding(self):
        if self._embedding is None:
            from .providers import get_embedding

            key = _embedding_key(self.config.embeddings)
            if key not in _EMBEDDINGS:
                _EMBEDDINGS[key] = get_embedding(self.config.embeddings)
            self._embedding = _EMBEDDINGS[key]
        return self._embedding

    @property
    def sparse_encoder(self):
        if self._sparse is None and self.config.vectorstore.use_sparse:
            from .providers import SparseEncoder

            self._sparse = SparseEncoder()
        return self._sparse

    @property
    def collection(self):
        if self._collection is None:
            from .store import open_collection

            self._collection = open_collection(self.config.vectorstore)
        return self._collection

    def _dim(self) -> int:
        if self._dimension is None:
            from .providers import embedding_dimension

            self._dimension = embedding_dimension(self.embedding)
        return self._dimension

    @contextlib.contextmanager
    def _store(self, create: bool = False, check: bool = True) -> Iterator[Any]:
        """Open the collection for one operation (the embedded engine locks its folder).

        ``check`` compares the stored model with the config, which needs the model
        loaded; inspection calls skip it.
        """
        with self.collection.opened() as coll:
            exists = check and coll.exists()
            meta = coll.meta() if exists else None
            if meta is not None and self._ensured != meta.instance_id:
                self._ensured = None
            if check and self._ensured is None:
                if exists or create:
                    vs = self.config.vectorstore
                    identity = self.config.embeddings.identity()
                    if meta is not None and meta.embedding_model == identity:
                        # Same model as recorded: trust its dimension, so a run with nothing
                        # to embed (an unchanged re-sync) never loads the model at all.
                        self._dimension = self._dimension or meta.dimension
                    recreate = vs.force_recreate and create
                    # Another model is refused by name before anything is loaded.
                    known = meta is not None and meta.embedding_model != identity and not recreate
                    coll.ensure(
                        embedding_model=identity,
                        dimension=None if known and self._dimension is None else self._dim(),
                        sparse=vs.use_sparse,
                        force_recreate=recreate,
                    )
                    ensured = coll.meta()
                    self._ensured = ensured.instance_id if ensured is not None else None
            yield coll

    def __enter__(self) -> Any:
        """Keep the store open across calls (e.g. a long-running server)."""
        self._held = contextlib.ExitStack()
        self._held.enter_context(self.collection.opened())
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Release the store now (the embedded engine's folder lock included)."""
        if self._held is not None:
            held, self._held = self._held, None
            held.close()
        if self._collection is not None:
            self._collection.close()

    # -- parts used by retrieval and answers -------------------------------------
    @property
    def searcher(self):
        from .retrieval import Searcher

        return Searcher.from_config(self.collection, self.embedding, self.sparse_encoder, self.config.retriever,
                                    retries=self.config.ingestion.retries)

    @property
    def llm(self):
        """The chat model of the ``llm`` section, built on first use; None without one."""
        if self._llm is None and self.config.llm is not None:
            from .providers import get_chat_model

            self._llm = get_chat_model(self.config.llm)
        return self._llm

    @property
    def answerer(self):
        """Answers questions from this collection (see :mod:`ragwire.answer`)."""
        if self._answerer is None:
            import functools

            from .answer.answerer import Answerer
            from .answer.extractive import extractive_answer

            self._answerer = Answerer(
                retrieve=lambda q, top_k=None, filters=None, rerank=None: self.retrieve(
                    q, top_k=top_k, filters=filters, rerank=rerank),
                llm=self.llm,
                generation=self.config.generation,
                extractive=functools.partial(extractive_answer, embedding=_LazyEmbedding(self)),
                retries=self.config.ingestion.retries,
            )
        return self._answerer

    @property
    def metadata(self):
        """The :class:`~ragwire.metadata.service.MetadataService` of this pipeline."""
        if self._metadata is None:
            from .metadata.service import MetadataService

            self._metadata = MetadataService(self.config, lambda: self.llm,
                                             lambda fields, limit: self.get_field_values(list(fields), limit))
        return self._metadata

