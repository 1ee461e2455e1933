"""The parts a :class:`~ragwire.pipeline.RAGWire` is made of, composed by :func:`build`, each made on first use.

The embedding model (shared by every pipeline in the process), the BM25 encoder, the
collection and the checked opening of it for one operation, the retrieval stage, the
chat model, the answerer, the reranker, the metadata service and the reader of stored
field values.  Each part gets the others it needs as typed parts, never a call back
into the facade, so any of them can be built and tested alone.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .config import RagwireConfig

if TYPE_CHECKING:
    from .answer.answerer import Answerer
    from .config import EmbeddingsConfig
    from .metadata.service import MetadataService
    from .metadata.values import StoredValues
    from .providers.sparse import SparseEncoder
    from .retrieval import Retriever, Searcher
    from .stages import ChatModel, Embedder
    from .store import Collection

log = logging.getLogger(__name__)

# Loaded embedding models, shared by every RAGWire in the process: loading one
# costs seconds and hundreds of MB, and two pipelines on one model are common.
_EMBEDDINGS: dict[str, Embedder] = {}
# Held while a model is built, so a background load and a caller never build one twice.
_BUILDING = threading.Lock()


def _load_quietly(load: Callable[[], None]) -> None:
    try:
        load()
    except Exception as exc:  # noqa: BLE001 - the first real use raises it again, typed, to its caller
        log.debug("embedding model: background load failed (the first use will retry): %s", exc)


def _shared_embedding(section: EmbeddingsConfig) -> Embedder:
    key = _embedding_key(section)
    with _BUILDING:
        if key not in _EMBEDDINGS:
            from .providers import get_embedding

            _EMBEDDINGS[key] = get_embedding(section)
        return _EMBEDDINGS[key]


class _LazyEmbedding:
    """Stands in for the embedding model and loads it on the first call that needs vectors."""

    def __init__(self, parts: Parts) -> None:
        self._parts = parts

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._parts.embedding.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self._parts.embedding.embed_query(text)

    @property
    def model_id(self) -> str:
        """The configured model, named without loading it (for the embeddings span)."""
        return self._parts.config.embeddings.model_id

    @property
    def provider(self) -> str:
        """The configured provider (``onnx``, ``openai``, …), for the embeddings span."""
        return self._parts.config.embeddings.provider

    def load(self) -> None:
        """Load the model now (an ingest does it before its first batch)."""
        self._parts.embedding  # noqa: B018 - the property loads it

    def load_soon(self) -> None:
        """Start loading a local model in a thread (see :meth:`Parts.load_embedding_soon`)."""
        self._parts.load_embedding_soon()


def _embedding_key(embeddings: EmbeddingsConfig) -> str:
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


class CheckedStore:
    """The collection opened for one operation, its model record first checked against the config.

    Args:
        collection: The collection.
        config: The pipeline's config (``vectorstore`` and ``embeddings`` are read).
        probe: Loads the embedding model and returns its dimension (called only when needed).
    """

    def __init__(self, collection: Collection, config: RagwireConfig, probe: Callable[[], int]) -> None:
        self.collection = collection
        self.config = config
        self._probe = probe
        self._dimension: int | None = None
        # The collection instance whose model record was checked against this config;
        # a collection recreated by another process is checked again.
        self._ensured: str | None = None

    def dimension(self) -> int:
        """The embedding dimension: the stored one when the model matches, else measured (loads the model)."""
        if self._dimension is None:
            self._dimension = self._probe()
        return self._dimension

    def exists(self) -> bool:
        return self.collection.exists()

    @contextlib.contextmanager
    def opened(self, create: bool = False, check: bool = True) -> Iterator[Any]:
        """Open the collection for one operation (the embedded engine locks its folder).

        ``check`` compares the stored model with the config, which needs the model
        loaded; inspection calls skip it.
        """
        with self.collection.opened() as coll:
            exists = check and coll.exists()
            meta = coll.meta() if exists else None
            if exists:
                from .store.migrate import unfinished_migration

                # A half-copied migration target answers, but every read says it may miss documents.
                unfinished = unfinished_migration(coll)
                if unfinished is not None:
                    log.warning("%s", unfinished)
            if check and (meta is None or self._ensured != meta.instance_id):
                # Recreated by another process, or gone (its folder deleted while a server
                # runs): checked, and created when this operation writes, again.
                self._ensured = None
            if check and self._ensured is None and (exists or create):
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
                    dimension=None if known and self._dimension is None else self.dimension(),
                    sparse=vs.use_sparse,
                    force_recreate=recreate,
                )
                ensured = coll.meta()
                self._ensured = ensured.instance_id if ensured is not None else None
            yield coll


class Parts:
    """The lazily built parts of one pipeline; :func:`build` makes it, ``RAGWire`` holds it.

    The reranker is built at once: a missing package or API key is a startup error.
    """

    def __init__(self, config: RagwireConfig) -> None:
        self.config = config
        rerank = config.retriever.rerank
        self.reranker = None
        if rerank is not None and rerank.enabled:
            from .rerank import get_reranker

            # Checked now, not on the first query: a missing package or API key, an unknown option.
            # The model itself loads on first use.
            self.reranker = get_reranker(rerank, retries=self.query_retries)
        self._embedding: Embedder | None = None
        self._loading: threading.Thread | None = None
        self._bulk: Embedder | None = None
        self._llm: ChatModel | None = None
        self._metadata: MetadataService | None = None
        self._answerer: Answerer | None = None
        self._retriever: Retriever | None = None
        self._values: StoredValues | None = None
        self._sparse: SparseEncoder | None = None
        self._collection: Collection | None = None
        self._store: CheckedStore | None = None
        self._held: contextlib.ExitStack | None = None

    # -- models and the store ------------------------------------------------------
    @property
    def embedding(self) -> Embedder:
        loading = self._loading
        if loading is not None:
            loading.join()
            self._loading = None
        if self._embedding is None:
            self._embedding = _shared_embedding(self.config.embeddings)
        return self._embedding

    def load_embedding_soon(self) -> None:
        """Build the ONNX embedder now and open its session in a thread, beside the store's opening.

        A cold query spends about 0.1 s creating the ONNX Runtime session (its weights
        mapped from their own file) and as much opening the embedded store; both run in
        native code that releases the GIL, so on two cores they overlap.  The embedder itself (its imports: onnxruntime, numpy,
        tokenizers) is built here, first: imports hold the GIL, and run beside the
        caller's own imports they would only take turns with them.  The thread runs
        nothing but the session's creation; :attr:`embedding` waits for it.  A failure,
        building or loading, is left for the first real use to raise, typed.

        Only the ``onnx`` provider loads early: the torch and fastembed providers load
        in their constructors, which would then block here, and remote providers have
        nothing worth loading early.
        """
        if self._embedding is not None or self._loading is not None or self.config.embeddings.provider != "onnx":
            return
        if not self.collection.exists():  # nothing to search: a query returns before it embeds
            return
        try:
            model = self.embedding
        except Exception as exc:  # noqa: BLE001 - the first real use raises it again, typed, to its caller
            log.debug("embedding model: early build failed (the first use will retry): %s", exc)
            return
        load = getattr(model, "load", None)
        if callable(load):
            # Not a daemon: the process waits for a load it started rather than
            # tearing down the interpreter under a thread inside ONNX Runtime.
            self._loading = threading.Thread(target=_load_quietly, args=(load,), name="ragwire-embedding-load")
            self._loading.start()

    @property
    def lazy_embedding(self) -> _LazyEmbedding:
        """The embedding model, loaded on the first call that needs vectors."""
        return _LazyEmbedding(self)

    @property
    def bulk_embedding(self) -> Embedder:
        """The embedder of an ingest or sync: the query model, or the faster runtime of the
        same model on this machine (see :mod:`ragwire.providers.bulk`)."""
        if self._bulk is None:
            from .providers.bulk import bulk_embedder

            self._bulk = bulk_embedder(self.config.embeddings, self.lazy_embedding)
        return self._bulk

    @property
    def sparse_encoder(self) -> SparseEncoder | None:
        if self._sparse is None and self.config.vectorstore.use_sparse:
            from .providers import SparseEncoder

            self._sparse = SparseEncoder()
        return self._sparse

    @property
    def collection(self) -> Collection:
        if self._collection is None:
            from .store import open_collection

            self._collection = open_collection(self.config.vectorstore)
        return self._collection

    @property
    def store(self) -> CheckedStore:
        """The collection, opened per operation with its model record checked."""
        if self._store is None:
            self._store = CheckedStore(self.collection, self.config, self._probe)
        return self._store

    def _probe(self) -> int:
        from .providers import embedding_dimension

        return embedding_dimension(self.embedding)

    def dimension(self) -> int:
        """The embedding dimension (see :meth:`CheckedStore.dimension`)."""
        return self.store.dimension()

    def hold(self) -> None:
        """Keep the store open across calls (e.g. a long-running server)."""
        self._held = contextlib.ExitStack()
        self._held.enter_context(self.collection.opened())

    def close(self) -> None:
        """Release the store now (the embedded engine's folder lock included)."""
        if self._held is not None:
            held, self._held = self._held, None
            held.close()
        if self._collection is not None:
            self._collection.close()

    # -- stages ----------------------------------------------------------------------
    @property
    def query_retries(self) -> int:
        """Extra attempts of a query's provider calls: ``retriever.retries``, else ``ingestion.retries``."""
        retries = self.config.retriever.retries
        return self.config.ingestion.retries if retries is None else retries

    @property
    def searcher(self) -> Searcher:
        from .retrieval import Searcher

        return Searcher.from_config(self.collection, self.lazy_embedding, self.sparse_encoder,
                                    self.config.retriever, retries=self.query_retries)

    @property
    def retriever(self) -> Retriever:
        """The retrieval stage: search, filters, reranking (see :mod:`ragwire.retrieval.retriever`)."""
        if self._retriever is None:
            # The model loads while the retrieval modules import and the store opens.
            if self.config.retriever.search_type != "keyword":
                self.load_embedding_soon()
            from .retrieval import Retriever

            auto = self.config.retriever.auto_filter  # the metadata service is built only when it reads filters
            self._retriever = Retriever(self.searcher, self.config.retriever, store=self.store,
                                        reranker=self.reranker, filter_extractor=self.metadata if auto else None)
        return self._retriever

    @property
    def llm(self) -> ChatModel | None:
        """The chat model of the ``llm`` section, built on first use; None without one."""
        if self._llm is None and self.config.llm is not None:
            from .providers import get_chat_model

            self._llm = get_chat_model(self.config.llm)
        return self._llm

    def get_llm(self) -> ChatModel | None:
        """:attr:`llm`, as a factory for parts that need the model only sometimes."""
        return self.llm

    @property
    def answerer(self) -> Answerer:
        """Answers questions from this collection (see :mod:`ragwire.answer`)."""
        if self._answerer is None:
            # An answer embeds its query (unless the search is keyword-only) and, without an
            # LLM, its candidate sentences: the model loads while the answer modules import
            # and the store opens.
            if self.config.llm is None or self.config.retriever.search_type != "keyword":
                self.load_embedding_soon()
            from .answer.answerer import Answerer
            from .answer.extractive import ExtractiveAnswerer
            from .providers.remembered import RememberedEmbedding
            from .retrieval.vocabulary import CollectionVocabulary

            # The offline answerer embeds the same words and masked questions many times over.
            embedding = RememberedEmbedding(self.lazy_embedding)
            self._answerer = Answerer(
                self.retriever,
                llm=self.llm,
                generation=self.config.generation,
                extractive=ExtractiveAnswerer(embedding, CollectionVocabulary(self.collection, self.sparse_encoder)),
                retries=self.query_retries,
                pricing=self.config.llm.pricing if self.config.llm is not None else None,
                embedding=embedding,
                collection=self.config.vectorstore.collection_name,
            )
        return self._answerer

    @property
    def field_values(self) -> StoredValues:
        """Distinct stored values per field, read from the collection."""
        if self._values is None:
            from .metadata.values import StoredValues

            self._values = StoredValues(self.collection)
        return self._values

    @property
    def metadata(self) -> MetadataService:
        """The :class:`~ragwire.metadata.service.MetadataService` of this pipeline."""
        if self._metadata is None:
            from .metadata.service import MetadataService

            self._metadata = MetadataService(self.config, self.get_llm, self.field_values)
        return self._metadata


def build(config: RagwireConfig) -> Parts:
    """The parts of a pipeline for ``config``; each is built on first use (the reranker at once)."""
    return Parts(config)
