"""RAGWire: the one place that wires config → loaders → splitters → embeddings → store → retrieval.

The parts themselves are composed in :mod:`ragwire.components` (:func:`~ragwire.components.build`);
this module is the public API, and each method hands its call to a part.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, TypeVar

import ragwire.pacing as pacing
import ragwire.runs as runs

from .components import Parts, build
from .config import LoaderConfig, RagwireConfig, load_config
from .fields import SYSTEM_FIELDS
from .logs import get_logger

if TYPE_CHECKING:
    from langchain_core.documents import Document
    from typing_extensions import Unpack

    from .access.principal import Principal, Role
    from .access.view import PrincipalView
    from .answer import Answer
    from .answer.answerer import Answerer
    from .metadata.service import MetadataService
    from .providers.sparse import SparseEncoder
    from .retrieval import RetrieveKwargs, Retriever, Searcher
    from .retrieval.inventory import DocumentInfo
    from .retrieval.langchain_retriever import RagwireRetriever
    from .stages import ChatModel, Embedder
    from .store import Collection
    from .store.migrate import MigrateStats
    from .sync import Source, SyncStats

T = TypeVar("T")

log = get_logger(__name__)


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
        self.parts: Parts = build(self.config)

    # -- the parts (built on first use) ----------------------------------------
    @property
    def collection(self) -> Collection:
        return self.parts.collection

    @property
    def embedding(self) -> Embedder:
        return self.parts.embedding

    @property
    def sparse_encoder(self) -> SparseEncoder | None:
        return self.parts.sparse_encoder

    @property
    def llm(self) -> ChatModel | None:
        """The chat model of the ``llm`` section; None without one."""
        return self.parts.llm

    @property
    def searcher(self) -> Searcher:
        return self.parts.searcher

    @property
    def retriever(self) -> Retriever:
        """The retrieval stage (:class:`~ragwire.retrieval.Retriever`)."""
        return self.parts.retriever

    @property
    def answerer(self) -> Answerer:
        return self.parts.answerer

    @property
    def metadata(self) -> MetadataService:
        """The :class:`~ragwire.metadata.service.MetadataService` of this pipeline."""
        return self.parts.metadata

    def __enter__(self) -> RAGWire:
        """Keep the store open across calls (e.g. a long-running server)."""
        self.parts.hold()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the store now (the embedded engine's folder lock included)."""
        self.parts.close()

    # -- ingestion -----------------------------------------------------------
    def _ingest(self, file_paths: str | Path | list[str] | list[Path], force: bool, not_walked: list[tuple[str, str]] | None = None,
                access: list[str] | str | None = None, on_file: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
        labels = access.split(",") if isinstance(access, str) else access
        return runs.ingest(self.parts, file_paths, force=force, not_walked=not_walked, access=labels, on_file=on_file)

    def ingest_documents(self, file_paths: list[str] | list[Path], *, access: list[str] | str | None = None,
                         on_file: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
        """Ingest files; unchanged files are skipped, changed ones replaced.

        ``access`` labels them (``["hr"]``, docs/security.md; an unchanged file is relabelled without
        re-embedding); None keeps stored labels and gives new files ``access.default``.  ``on_file`` is
        called with each file's outcome as the run records it (``file``, ``status``, ``chunks``; ``error``
        when failed): one run for many files, progress per file (docs/ingestion.md).

        A file is also re-processed when the settings that shape its chunks changed (splitter,
        loader, embedding options); vectors of unchanged chunk texts are reused.

        Returns:
            Stats: total, processed, skipped, failed, chunks_created, metadata_failed,
            replaced, embedded_chunks, reused_chunks, errors, metadata_usage (LLM calls, tokens and
            cost of metadata extraction).  processed + skipped + failed == total.

        Raises:
            IngestAborted: the run itself failed (the store stayed unreachable, the model
                could not load); ``exc.stats`` holds the stats of the files done before.
        """
        return self._ingest(file_paths, force=False, access=access, on_file=on_file)

    def reingest_documents(self, file_paths: list[str] | list[Path], *,
                           access: list[str] | str | None = None) -> dict[str, Any]:
        """Rewrite these files even if unchanged; the old chunks stay visible until the new ones are in."""
        return self._ingest(file_paths, force=True, access=access)

    def ingest_directory(self, directory: str | Path, recursive: bool = False,
                         extensions: list[str] | None = None, *, force: bool = False,
                         access: list[str] | str | None = None) -> dict[str, Any]:
        """Ingest every supported file under ``directory`` (safe walk: no hidden files, no escaping symlinks).

        ``force=True`` rewrites every file found, like :meth:`reingest_documents`."""
        from .loaders import walk_directory
        from .loaders.walk import left_out_line

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
        not_walked = [(str(p), r) for p, r in walk.skipped]
        left_out = left_out_line(walk.left_out, _ocr_hint(lc))
        if left_out:
            not_walked.append((str(directory), left_out))
        return self._ingest([str(p) for p in walk.files], force=force, not_walked=not_walked, access=access)

    def delete_document(self, file_path: str | Path) -> int:
        """Remove every chunk of a source.  Works when the file is already gone from disk.

        Returns:
            The number of chunks deleted (0 when it was never ingested).
        """
        return runs.delete(self.parts, file_path)

    def sync(self, sources: list[Source] | None = None, delete_missing: bool = True, dry_run: bool = False) -> SyncStats:
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
        return runs.sync(self.parts, self.config_path.name, sources, delete_missing=delete_missing, dry_run=dry_run)

    def migrate(self, to_config: str | Path, *, batch_size: int = 256, restart: bool = False,
                verify_queries: int = 10, progress: bool = False) -> MigrateStats:
        """Copy this collection, as stored, to the one ``to_config`` names; never embeds, resumes
        when re-run; ``ok`` False when the check differs (:func:`ragwire.store.migrate.migrate_collection`)."""
        from .store import open_collection
        from .store.migrate import migrate_collection

        target = load_config(Path(to_config))
        return migrate_collection(self.collection, open_collection(target.vectorstore), batch_size=batch_size,
                                  restart=restart, verify_queries=verify_queries, progress=progress,
                                  target_model=target.embeddings.identity())

    # -- retrieval -----------------------------------------------------------
    def retrieve(self, query: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                 rerank: bool | None = None, search_type: str | None = None) -> list[Document]:
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
        from .retrieval import RetrieveOptions

        options = RetrieveOptions(top_k=top_k, filters=filters, rerank=rerank, search_type=search_type)
        with pacing.reading():
            return [hit.to_document() for hit in self.retriever.retrieve(query, options)]

    def hybrid_search(self, query: str, k: int = 5, filters: Mapping[str, Any] | None = None) -> list[Document]:
        """Dense + sparse search fused by the engine (``retriever.fusion``), whatever ``search_type`` says."""
        return self.retrieve(query, top_k=k, filters=filters, rerank=False, search_type="hybrid")

    def as_retriever(self, **retrieve_kwargs: Unpack[RetrieveKwargs]) -> RagwireRetriever:
        """A LangChain ``BaseRetriever`` that runs :meth:`retrieve` (sync and async).

        Args:
            **retrieve_kwargs: Passed to every ``retrieve`` call: ``top_k``, ``filters``,
                ``rerank``, ``search_type``.
        """
        from .retrieval.langchain_retriever import RagwireRetriever

        return RagwireRetriever(retriever=self.retriever, retrieve_kwargs=dict(retrieve_kwargs))

    # -- who reads -------------------------------------------------------------
    def as_principal(self, principal: Principal | None = None, *, name: str = "api", groups: list[str] | str = "",
                     role: Role = "reader") -> PrincipalView:
        """A view of this pipeline whose every read sees only what a principal (``principal``, or
        ``name``/``groups``/``role``) may read; writes need the writer role (docs/security.md)."""
        from .access import Principal
        from .access.view import PrincipalView

        return PrincipalView(self, principal or Principal.of(name, groups, role))

    # -- answers ---------------------------------------------------------------
    def query(self, question: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
              rerank: bool | None = None, *, refine: bool | None = None, max_iterations: int | None = None,
              callbacks: list[Any] | None = None) -> Answer:
        """Answer ``question`` from the collection, citing numbered sources, or refuse.

        Without an ``llm`` section the answer is extractive: the most relevant retrieved
        sentences, each cited.  Never raises for a question the documents cannot answer.

        Args:
            refine: Search each part of a multi-part question, judge what is covered and
                search again for what is missing (default ``generation.refine``); a plain
                factual question stays single-shot.
            max_iterations: The most retrieval rounds when refining, 1 to 10 (default ``generation.max_iterations``).
            callbacks: LangChain callback handlers for this query's LLM calls (added to :attr:`callbacks`).

        Returns:
            An :class:`~ragwire.answer.Answer` (with its ``trace``, ``trace_id`` and ``usage``); falsy when refused.

        Raises:
            ProviderError: the LLM could not be reached (after retries).
            ConfigError: ``max_iterations`` is outside 1 to 10.
        """
        with pacing.reading():
            return self.answerer.query(question, top_k=top_k, filters=filters, rerank=rerank, refine=refine,
                                       max_iterations=max_iterations, callbacks=callbacks)

    async def aquery(self, question: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                     rerank: bool | None = None, *, refine: bool | None = None, max_iterations: int | None = None,
                     callbacks: list[Any] | None = None) -> Answer:
        """:meth:`query` with the LLM call awaited; retrieval runs synchronously."""
        with pacing.reading():
            return await self.answerer.aquery(question, top_k=top_k, filters=filters, rerank=rerank,
                                              refine=refine, max_iterations=max_iterations, callbacks=callbacks)

    def query_stream(self, question: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                     rerank: bool | None = None, *, refine: bool | None = None, max_iterations: int | None = None,
                     callbacks: list[Any] | None = None) -> Iterator[str | Answer]:
        """Yield the answer's text pieces as they arrive, then the final :class:`~ragwire.answer.Answer`
        (a refined answer, see :meth:`query`, comes as one piece)."""
        return _read_while_iterated(self.answerer.stream(question, top_k=top_k, filters=filters, rerank=rerank,
                                                         refine=refine, max_iterations=max_iterations,
                                                         callbacks=callbacks))

    def chat(self, messages: list, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
             *, callbacks: list[Any] | None = None) -> Answer:
        """Answer the last user turn of a conversation; earlier turns go to the model unchanged.

        With an LLM, a follow-up ("and how long does that take?") is first rewritten into
        a standalone question for retrieval.
        """
        with pacing.reading():
            return self.answerer.chat(messages, top_k=top_k, filters=filters, callbacks=callbacks)

    def chat_stream(self, messages: list, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                    *, callbacks: list[Any] | None = None) -> Iterator[str | Answer]:
        """:meth:`chat` yielding the answer's text pieces as they arrive, then the final Answer."""
        return _read_while_iterated(self.answerer.chat_stream(messages, top_k=top_k, filters=filters,
                                                              callbacks=callbacks))

    @property
    def callbacks(self) -> list[Any]:
        """LangChain callback handlers given to every LLM call of ``query``/``chat`` (Langfuse, LangSmith).

        Append to it (``rag.callbacks.append(handler)``) or assign a list.
        """
        return self.answerer.callbacks

    @callbacks.setter
    def callbacks(self, handlers: list[Any]) -> None:
        self.answerer.callbacks = list(handlers)

    # -- inspection ----------------------------------------------------------
    def get_stats(self) -> dict[str, Any]:
        """Collection name, chunk count, vector size and indexed vector count."""
        from .store.summary import collection_summary

        return collection_summary(self.collection, lambda: self.parts.store.opened(check=False),
                                  self.config.vectorstore.collection_name)

    def _read_stored(self, read: Callable[[Collection], T], empty: T) -> T:
        """``read(collection)`` through the checked reader; ``empty`` before the collection exists."""
        if not self.collection.exists():
            return empty
        with self.parts.store.opened(check=False) as coll:
            return read(coll)

    def list_documents(self) -> list[DocumentInfo]:
        """Every stored source (:class:`~ragwire.retrieval.inventory.DocumentInfo`; ``to_dict()`` gives JSON)."""
        from .retrieval.inventory import list_documents

        return self._read_stored(list_documents, [])

    def document_chunks(self, source: str) -> list[dict[str, Any]]:
        """``{"id", "text", "metadata"}`` per stored chunk of ``source``, in reading order (empty if not stored)."""
        from .retrieval.inventory import document_chunks

        return self._read_stored(lambda coll: document_chunks(coll, str(source)), [])

    def discover_metadata_fields(self) -> list[str]:
        """Every metadata field on a stored chunk, system fields included."""
        return self._read_stored(lambda coll: sorted(coll.sample_metadata()), [])

    @property
    def filter_fields(self) -> list[str]:
        """Fields to filter on: the metadata schema's (with an LLM), then the stored file
        properties and any other metadata of your own, never ragwire's system fields."""
        from .retrieval.inventory import field_names

        # the indexes name every field a document brought; one chunk shows only its own
        stored: set[str] = self._read_stored(field_names, set())
        schema = self.metadata.schema.names if self.metadata.enabled else []
        return list(dict.fromkeys([*schema, *sorted(f for f in stored if f not in SYSTEM_FIELDS)]))

    def extract_metadata(self, text: str) -> dict[str, Any]:
        """The metadata schema's fields from ``text`` (LLM), grounded on the values already stored."""
        return self.metadata.extract(text)

    def extract_filters(self, query: str) -> dict[str, Any] | None:
        """Filters the query asks for (LLM), kept only where they match stored values; None if none."""
        return self.metadata.filters(query)

    def get_filter_context(self, query: str, limit: int = 50) -> str:
        """A markdown block for an agent: filterable fields, their stored values, the query's filters."""
        return self.metadata.context(query, self.filter_fields, limit)

    def get_field_values(self, fields: str | list[str], limit: int = 50) -> list[Any] | dict[str, list[Any]]:
        """Distinct stored values per field, most frequent first (a list for one field name)."""
        names = [fields] if isinstance(fields, str) else list(fields)
        values = self.parts.field_values.field_values(names, limit)
        return values[names[0]] if isinstance(fields, str) else values


def _ocr_hint(loader: LoaderConfig) -> str | None:
    """How to get an OCR engine, or None when one is installed."""
    ocr = loader.ocr_settings()
    return None if ocr.engine is not None else ocr.missing_hint()


def _read_while_iterated(pieces: Iterator[str | Answer]) -> Iterator[str | Answer]:
    """A streamed answer is a read until its last piece (see :mod:`ragwire.pacing`)."""
    with pacing.reading():
        yield from pieces
