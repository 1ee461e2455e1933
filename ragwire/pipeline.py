"""RAGWire: the one place that wires config → loaders → splitters → embeddings → store → retrieval."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator, Mapping

from .config import RagwireConfig, load_config
from .errors import ConfigError
from .logs import get_logger

log = get_logger(__name__)

# Loaded embedding models, shared by every RAGWire in the process: loading one
# costs seconds and hundreds of MB, and two pipelines on one model are common.
_EMBEDDINGS: dict[str, Any] = {}

# Metadata written by ragwire itself: never offered as a filter field.
SYSTEM_FIELDS = frozenset({
    "source", "file_name", "file_type", "file_hash", "chunk_id", "chunk_index", "total_chunks",
    "content_hash", "chunk_hash", "created_at", "heading_path", "page_number", "page_total",
    "page_label", "page_end", "metadata_status", "score", "score_type", "score_max", "rerank_score", "sync_source",
})


class _LazyEmbedding:
    """Stands in for the embedding model and loads it on the first call that needs vectors."""

    def __init__(self, rag: RAGWire) -> None:
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


class RAGWire:
    """The pipeline, configured by one YAML file.

    Args:
        config_path: Path to ``config.yaml``.

    Raises:
        FileNotFoundError: the config file does not exist.
        ValueError: the config is invalid (a :class:`ragwire.errors.ConfigError`, one line per problem).
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

    def __enter__(self) -> RAGWire:
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

    # -- ingestion -----------------------------------------------------------
    def _runner(self, coll):
        from .ingest import IngestRunner, IngestSettings

        settings = IngestSettings.from_config(self.config)
        hook = None
        if self.metadata.enabled:
            # Grounding values are read once per run, here: worker threads never touch the store.
            # Only text needs grounding: "Apple Inc." vs "apple"; numbers have one spelling.
            stored = {f.name: coll.facet(f.name, 50) for f in self.metadata.schema.fields
                      if f.type in ("str", "list[str]") and coll.count()}
            hook = self.metadata.ingest_hook(stored)
            # every schema field gets its index now, typed by the schema, not by the first value seen
            samples = {"str": "x", "list[str]": ["x"], "int": 0, "list[int]": [0], "float": 0.5, "bool": False}
            coll.ensure_indexes({f.name: samples[f.type] for f in self.metadata.schema.fields if f.type in samples})
        return IngestRunner(coll, _LazyEmbedding(self), self.sparse_encoder, settings, extract_metadata=hook)

    def _ingest(self, file_paths: Any, force: bool, not_walked: list[tuple[str, str]] | None = None) -> dict[str, Any]:
        from .errors import IngestAborted, MissingDependencyError, ProviderError
        from .ingest import IngestStats

        if isinstance(file_paths, (str, Path)):
            file_paths = [file_paths]
        try:
            with contextlib.ExitStack() as stack:
                try:
                    coll = stack.enter_context(self._store(create=bool(file_paths)))
                except (ProviderError, MissingDependencyError) as exc:
                    # Creating the store needs the model, and it cannot load: the run's failure,
                    # reported like the same failure later in a run.  (A store or config
                    # problem keeps its own type: it is not about this run's files.)
                    nothing = IngestStats(total=len(file_paths), aborted=" ".join(str(exc).split()))
                    raise IngestAborted(f"ingest stopped before the first file: {nothing.aborted}",
                                        nothing.to_dict()) from exc
                stats = self._runner(coll).run(file_paths, force=force)
        except IngestAborted as exc:
            if not_walked is not None:
                exc.stats["not_walked"] = [{"file": f, "reason": r} for f, r in not_walked]
            raise
        stats.not_walked = not_walked
        return stats.to_dict()

    def ingest_documents(self, file_paths: list[str] | list[Path]) -> dict[str, Any]:
        """Ingest files; unchanged files are skipped, changed ones replaced.

        A file is also re-processed when the settings that shape its chunks changed
        since it was stored (splitter, loader, embedding options); vectors of chunk
        texts that did not change are reused.

        Returns:
            Stats: total, processed, skipped, failed, chunks_created, metadata_failed,
            replaced, embedded_chunks, reused_chunks, errors.  processed + skipped + failed == total.

        Raises:
            IngestAborted: the run itself failed (the store stayed unreachable, the model
                could not load); ``exc.stats`` holds the stats of the files done before.
        """
        return self._ingest(file_paths, force=False)

    def reingest_documents(self, file_paths: list[str] | list[Path]) -> dict[str, Any]:
        """Rewrite these files even if unchanged; the old chunks stay visible until the new ones are in."""
        return self._ingest(file_paths, force=True)

    def ingest_directory(self, directory: str | Path, recursive: bool = False,
                         extensions: list[str] | None = None, *, force: bool = False) -> dict[str, Any]:
        """Ingest every supported file under ``directory`` (safe walk: no hidden files, no escaping symlinks).

        ``force=True`` rewrites every file found, like :meth:`reingest_documents`.
        """
        from .loaders import walk_directory

        lc = self.config.loader
        exts = [e if e.startswith(".") else f".{e}" for e in (extensions or lc.extensions)]
        walk = walk_directory(
            directory,
            extensions=[e.lower() for e in exts],
            recursive=recursive or lc.recursive,
            include_hidden=lc.include_hidden,
            follow_symlinks=lc.follow_symlinks,
            max_file_bytes=int(lc.max_file_size_mb * 2**20),
            max_files=lc.max_files,
        )
        for path, reason in walk.skipped:
            log.info("%s: not ingested (%s)", path, reason)
        return self._ingest([str(p) for p in walk.files], force=force,
                            not_walked=[(str(p), r) for p, r in walk.skipped])

    def delete_document(self, file_path: str | Path) -> int:
        """Remove every chunk of a source.  Works when the file is already gone from disk.

        Returns:
            The number of chunks deleted (0 when it was never ingested).
        """
        from .ingest import source_id

        if not self.collection.exists():
            return 0
        with self._store(check=False) as coll, coll.writing():
            source = file_path if str(file_path).startswith(("s3://",)) else source_id(file_path)
            return coll.delete_source(str(source))

    def sync(self, sources: list[Any] | None = None, delete_missing: bool = True, dry_run: bool = False):
        """Reconcile the collection with its sources: new files in, changed ones replaced, removed ones out.

        Args:
            sources: ``LocalSource`` / ``S3Source`` entries; default: the config's ``sources:``.
            delete_missing: Delete documents a source no longer lists (never those ingested by
                hand, nor any of a source that failed to list or listed nothing).
            dry_run: Write, download and delete nothing; report what a real run would do.

        Returns:
            A :class:`~ragwire.sync.SyncStats`; ``to_dict()`` gives the spec's dict.

        Raises:
            ValueError: no sources are configured or passed (a ``ConfigError``).
            IngestAborted: the run itself failed (store unreachable, model not loadable); nothing was deleted.
        """
        from .sync import make_sources, reconcile

        configs = self.config.sources if sources is None else list(sources)
        if not configs:
            raise ConfigError("sources: nothing to sync; add a sources: list to config.yaml or pass sources=[...]")
        built = make_sources(configs, self.config.loader)
        if dry_run and not self.collection.exists():
            return reconcile(built, None, delete_missing=delete_missing, dry_run=True)
        with self._store(create=not dry_run) as coll:
            if dry_run:
                return reconcile(built, self._runner(coll), delete_missing=delete_missing, dry_run=True)
            # One hold of the writer lease for the ingest and the deletes: one sync at a time.
            with coll.writing():
                return reconcile(built, self._runner(coll), delete_missing=delete_missing, dry_run=False)

    # -- retrieval -----------------------------------------------------------
    @property
    def searcher(self):
        from .retrieval import Searcher

        return Searcher.from_config(self.collection, self.embedding, self.sparse_encoder, self.config.retriever,
                                    retries=self.config.ingestion.retries)

    def retrieve(self, query: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                 rerank: bool | None = None, search_type: str | None = None) -> list:
        """The most relevant chunks for ``query``, by the configured search type.

        Args:
            query: The search text.
            top_k: How many chunks (default ``retriever.top_k``).
            filters: Metadata filters: equality, a list for any-of, ``{"gte": …, "lte": …}`` for ranges.
            rerank: ``True`` requires the configured reranker, ``False`` skips it.
            search_type: Override ``retriever.search_type`` for this call.

        Returns:
            LangChain Documents, best first; ``metadata["score"]`` holds the engine's score and,
            when reranking ran, ``metadata["rerank_score"]`` the reranker's.

        Raises:
            ValueError: ``rerank=True`` without an enabled ``retriever.rerank`` (a ``ConfigError``).
            ProviderError: the reranker failed (model not loadable, service unreachable after retries).
        """
        r = self.config.retriever
        if rerank and self._reranker is None:
            raise ConfigError("retriever.rerank: rerank=True was passed but no reranker is configured")
        reranking = self._reranker is not None and rerank is not False
        filters = self._auto_filters(query, filters)
        k = r.top_k if top_k is None else top_k
        if not self.collection.exists():
            from .store import build_filter

            build_filter(filters)  # a malformed filter is an error even before the first ingest
            return []
        # A top_k below 1 goes to the search unchanged, which refuses it.
        fetch = r.rerank.effective_fetch_k(k) if reranking and k >= 1 else k
        with self._store():
            found = self.searcher.search(query, k=fetch, filters=filters, search_type=search_type or r.search_type)
        if not reranking:
            return found
        from .rerank import rerank_documents

        # Scored outside the store block: a model on CPU takes a while, and no lock is needed.
        return rerank_documents(self._reranker, query, found, k)

    def _auto_filters(self, query: str, filters: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """With ``retriever.auto_filter``, the filters the LLM reads in ``query`` when none are given.

        Returns ``{}`` rather than None once resolved, so a nested ``retrieve`` does not ask again;
        an LLM failure searches unfiltered, with a warning: a filter is a refinement, not a must.
        """
        if filters is not None or not self.config.retriever.auto_filter:
            return filters
        from .errors import ProviderError

        try:
            found = self.extract_filters(query)
        except ProviderError as exc:
            log.warning("auto_filter: no filters extracted, searching unfiltered: %s", exc)
            return {}
        if found:
            log.info("auto_filter: %s", found)
        return found or {}

    def hybrid_search(self, query: str, k: int = 5, filters: Mapping[str, Any] | None = None) -> list:
        """Dense + sparse search fused by the engine (``retriever.fusion``), whatever ``search_type`` says."""
        return self.retrieve(query, top_k=k, filters=filters, rerank=False, search_type="hybrid")

    def as_retriever(self, **retrieve_kwargs: Any):
        """A LangChain ``BaseRetriever`` that runs :meth:`retrieve` (sync and async).

        Args:
            **retrieve_kwargs: Passed to every ``retrieve`` call: ``top_k``, ``filters``,
                ``rerank``, ``search_type``.
        """
        from .retrieval.langchain_retriever import RagwireRetriever

        return RagwireRetriever(rag=self, retrieve_kwargs=dict(retrieve_kwargs))

    # -- answers ---------------------------------------------------------------
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

    def query(self, question: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
              rerank: bool | None = None):
        """Answer ``question`` from the collection, citing numbered sources, or refuse.

        Without an ``llm`` section the answer is extractive: the most relevant retrieved
        sentences, each cited.  Never raises for a question the documents cannot answer.

        Returns:
            An :class:`~ragwire.answer.Answer`; falsy when refused.

        Raises:
            ProviderError: the LLM could not be reached (after retries).
        """
        return self.answerer.query(question, top_k=top_k, filters=self._auto_filters(question, filters), rerank=rerank)

    async def aquery(self, question: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                     rerank: bool | None = None):
        """:meth:`query` with the LLM call awaited; retrieval runs synchronously."""
        return await self.answerer.aquery(question, top_k=top_k, filters=self._auto_filters(question, filters), rerank=rerank)

    def query_stream(self, question: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                     rerank: bool | None = None):
        """Yield the answer's text pieces as they arrive, then the final :class:`~ragwire.answer.Answer`."""
        return self.answerer.stream(question, top_k=top_k, filters=self._auto_filters(question, filters), rerank=rerank)

    def chat(self, messages: list, top_k: int | None = None, filters: Mapping[str, Any] | None = None):
        """Answer the last user turn of a conversation; earlier turns go to the model unchanged.

        With an LLM, a follow-up ("and how long does that take?") is first rewritten into
        a standalone question for retrieval.
        """
        return self.answerer.chat(messages, top_k=top_k, filters=filters)

    # -- inspection ----------------------------------------------------------
    def get_stats(self) -> dict[str, Any]:
        """Collection name, chunk count, vector size and indexed vector count."""
        vs = self.config.vectorstore
        if not self.collection.exists():
            return {
                "collection_name": vs.collection_name, "total_documents": 0, "vector_size": None, "indexed": 0,
                "engine": self.collection.engine.name, "location": self.collection.engine.location,
                "embedding_model": None, "sources": 0,
            }
        with self._store(check=False) as coll:
            meta = coll.meta()
            total = coll.count()
            indexed = coll.indexed_vectors()
            return {
                "collection_name": vs.collection_name,
                "total_documents": total,
                "vector_size": meta.dimension if meta else None,
                # Before the HNSW build, search is exact over every stored vector; after it,
                # Edge counts dense and sparse vectors separately, so cap at the chunk count.
                "indexed": min(indexed, total) if indexed else total,
                "engine": coll.engine.name,
                "location": coll.engine.location,
                "embedding_model": meta.embedding_model if meta else None,
                "sources": coll.source_count(),
            }

    def discover_metadata_fields(self) -> list[str]:
        """Every metadata field on a stored chunk, system fields included."""
        if not self.collection.exists():
            return []
        with self._store(check=False) as coll:
            return sorted(coll.sample_metadata())

    @property
    def filter_fields(self) -> list[str]:
        """Fields to filter on: the metadata schema's (with an LLM), then the stored file
        properties and any other metadata of your own, never ragwire's system fields."""
        stored: set[str] = set()
        if self.collection.exists():
            from .store.filters import known_fields

            with self._store(check=False) as coll:
                # the indexes name every field a document brought; one chunk shows only its own
                stored = set(known_fields(coll.indexes())) | set(coll.sample_metadata())
        schema = self.metadata.schema.names if self.metadata.enabled else []
        return list(dict.fromkeys([*schema, *sorted(f for f in stored if f not in SYSTEM_FIELDS)]))

    @property
    def metadata(self):
        """The :class:`~ragwire.metadata.service.MetadataService` of this pipeline."""
        if self._metadata is None:
            from .metadata.service import MetadataService

            self._metadata = MetadataService(self.config, lambda: self.llm,
                                             lambda fields, limit: self.get_field_values(list(fields), limit))
        return self._metadata

    def extract_metadata(self, text: str) -> dict[str, Any]:
        """The metadata schema's fields from ``text`` (LLM), grounded on the values already stored."""
        return self.metadata.extract(text)

    def extract_filters(self, query: str) -> dict[str, Any] | None:
        """Filters the query asks for (LLM), kept only where they match stored values; None if none."""
        return self.metadata.filters(query)

    def get_filter_context(self, query: str, limit: int = 50) -> str:
        """A markdown block for an agent: filterable fields, their stored values, the query's filters."""
        return self.metadata.context(query, self.filter_fields, limit)

    def get_field_values(self, fields: str | list[str], limit: int = 50):
        """Distinct stored values per field, most frequent first."""
        single = isinstance(fields, str)
        names = [fields] if single else list(fields)
        if not self.collection.exists():
            return [] if single else {n: [] for n in names}
        with self._store(check=False) as coll:
            values = {name: coll.facet(name, limit=limit) for name in names}
        return values[names[0]] if single else values
