"""LangChain-facing pieces: a VectorStore over a ragwire collection, a retriever, QdrantStore, and
the low-level ``hybrid_search`` / ``mmr_search`` / ``get_retriever`` helpers."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Iterable, Mapping

from langchain_core.documents import Document
from langchain_core.vectorstores import VectorStore
from pydantic import ValidationError

from ..chunk import Chunk
from ..errors import ConfigError, StoreError
from ..hashing import sha256_text
from ..providers.onnx import register_with_langchain
from ..stages import Embedder
from ..store import Collection, open_collection
from ..store.filters import Cond, Filter, meta_path
from .hit import Hit
from .langchain_retriever import RagwireRetriever
from .retriever import RetrieveOptions
from .search import SEARCH_TYPES, Searcher

# LangChain is loaded from here on: the packaged ONNX embedder counts as its Embeddings.
register_with_langchain()


class RagwireVectorStore(VectorStore):
    """A LangChain ``VectorStore`` backed by a ragwire collection on either engine."""

    def __init__(self, searcher: Searcher) -> None:
        self.searcher = searcher

    @property
    def embeddings(self) -> Any:
        return self.searcher.embedding

    @property
    def collection(self) -> Collection:
        return self.searcher.collection

    def search_by_type(self, query: str, *, k: int = 5, filters: Mapping[str, Any] | None = None,
                       search_type: str = "similarity", fetch_k: int | None = None,
                       lambda_mult: float | None = None) -> list[Document]:
        hits = self.searcher.search(query, k=k, filters=filters, search_type=search_type, fetch_k=fetch_k,
                                    lambda_mult=lambda_mult)
        return [hit.to_document() for hit in hits]  # the LangChain boundary

    def similarity_search(self, query: str, k: int = 4, filter: Mapping[str, Any] | None = None,
                          **kwargs: object) -> list[Document]:
        return self.search_by_type(query, k=k, filters=filter, search_type="similarity")

    def similarity_search_with_score(self, query: str, k: int = 4, filter: Mapping[str, Any] | None = None,
                                     **kwargs: object) -> list[tuple[Document, float]]:
        docs = self.similarity_search(query, k=k, filter=filter)
        return [(d, d.metadata.get("score", 0.0)) for d in docs]

    def max_marginal_relevance_search(self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5,
                                      filter: Mapping[str, Any] | None = None, **kwargs: object) -> list[Document]:
        return self.search_by_type(query, k=k, filters=filter, search_type="mmr",
                                   fetch_k=fetch_k, lambda_mult=lambda_mult)

    def add_texts(self, texts: Iterable[str], metadatas: list[dict] | None = None,
                  ids: list[str] | None = None, **kwargs: object) -> list[str]:
        """Write texts as visible chunks.  For files, prefer ``RAGWire.ingest_documents``."""
        texts = list(texts)
        metadatas = list(metadatas or [{} for _ in texts])
        ids = list(ids or [str(uuid.uuid4()) for _ in texts])
        dense = self.embeddings.embed_documents(texts)
        sparse = (
            [(v[0], v[1]) for v in self.searcher.sparse.embed_documents(texts)]
            if self.searcher.sparse is not None else [None] * len(texts)
        )
        run = uuid.uuid4().hex
        by_source: dict[str, list[Chunk]] = {}
        for i, text in enumerate(texts):
            meta = {"source": "langchain", **metadatas[i], "content_hash": sha256_text(text)}
            meta["source"] = str(meta["source"])  # the commit finds its chunks by source name
            by_source.setdefault(meta["source"], []).append(
                Chunk.from_metadata(text, meta).placed(ids[i], dense[i], sparse[i]))
        # One commit per source, like a file's: the texts are added beside what is stored.
        for source, records in by_source.items():
            with self.collection.commit(source, run) as txn:
                txn.write(records)
        return ids

    @classmethod
    def from_texts(cls, texts, embedding, metadatas=None, **kwargs) -> Any:
        raise NotImplementedError(
            "create the collection with QdrantStore(...).create_collection() and call get_store().add_texts()"
        )


class _StoreSearch:
    """A bare store's retrieval stage for :func:`get_retriever`: one search, no reranker, no auto-filter."""

    def __init__(self, vectorstore: RagwireVectorStore) -> None:
        self.vectorstore = vectorstore

    def retrieve(self, query: str, options: RetrieveOptions | None = None) -> list[Hit]:
        opts = options or RetrieveOptions()
        if opts.rerank:
            raise ConfigError("rerank=True needs a reranker: use RAGWire(...).as_retriever()", source="get_retriever")
        return self.vectorstore.searcher.search(query, k=5 if opts.top_k is None else opts.top_k,
                                                filters=opts.filters, search_type=opts.search_type or "similarity")


def get_retriever(vectorstore: RagwireVectorStore, top_k: int = 5, search_type: str = "similarity") -> RagwireRetriever:
    """A retriever with ``.invoke(query)`` for ``similarity``, ``mmr``, ``hybrid`` or ``keyword``.

    The same class as ``RAGWire.as_retriever()`` returns; its ``retrieve_kwargs`` hold
    ``top_k`` and ``search_type`` (add ``filters`` there to filter every call).
    """
    if search_type not in SEARCH_TYPES:
        raise ConfigError(f"search_type: {search_type!r} is not one of {', '.join(SEARCH_TYPES)}", source="get_retriever")
    return RagwireRetriever(retriever=_StoreSearch(vectorstore),
                            retrieve_kwargs={"top_k": top_k, "search_type": search_type})


def hybrid_search(vectorstore: RagwireVectorStore, query: str, k: int = 5,
                  filters: Mapping[str, Any] | None = None) -> list[Document]:
    """Dense + sparse, fused by the engine (``retriever.fusion``'s default, dbsf).  Raises instead of falling back when sparse is off."""
    return vectorstore.search_by_type(query, k=k, filters=filters, search_type="hybrid")


def mmr_search(vectorstore: RagwireVectorStore, query: str, k: int = 5, fetch_k: int = 20,
               lambda_mult: float = 0.5, filters: Mapping[str, Any] | None = None) -> list[Document]:
    """Diverse results: ``lambda_mult`` 1.0 is pure relevance, 0.0 pure diversity."""
    return vectorstore.max_marginal_relevance_search(query, k=k, fetch_k=fetch_k, lambda_mult=lambda_mult, filter=filters)


def _embedding_identity(embedding: object) -> str:
    name = getattr(embedding, "model_name", None) or getattr(embedding, "model", None) or ""
    return f"{type(embedding).__name__}:{name}"


class QdrantStore:
    """Direct management of one collection, outside :class:`ragwire.RAGWire`.

    Args:
        config: The ``vectorstore`` keys (``url``, ``api_key``, ``path``, ``engine``, ``use_sparse``…);
            ``embedding_model`` may name the model recorded in the collection.
        embedding: A LangChain ``Embeddings``.
        collection_name: Overrides ``config["collection_name"]``.
    """

    def __init__(self, config: Mapping[str, Any], embedding: Embedder, collection_name: str | None = None) -> None:
        from ..config import VectorstoreConfig

        options = dict(config)
        self._identity = options.pop("embedding_model", None)
        if collection_name:
            options["collection_name"] = collection_name
        try:
            self.config = VectorstoreConfig.model_validate(options, context={"base_dir": Path.cwd()})
        except ValidationError as exc:
            raise ConfigError(
                [f"vectorstore.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()], source="QdrantStore"
            ) from None
        self.embedding = embedding
        self._collection: Collection | None = None
        self._sparse: Any = None

    @property
    def collection(self) -> Collection:
        if self._collection is None:
            self._collection = open_collection(self.config)
        return self._collection

    @property
    def collection_name(self) -> str:
        return self.config.collection_name

    def set_collection(self, name: str) -> None:
        self.config = self.config.model_copy(update={"collection_name": name})
        self._collection = None

    def _sparse_encoder(self, use_sparse: bool):
        if not use_sparse:
            return None
        if self._sparse is None:
            from ..providers import SparseEncoder

            self._sparse = SparseEncoder()
        return self._sparse

    def create_collection(self, use_sparse: bool = True) -> None:
        from ..providers import embedding_dimension

        dim = embedding_dimension(self.embedding)
        with self.collection.opened() as coll:
            if coll.exists() and self._identity is None:
                meta = coll.meta()
                identity = meta.embedding_model if meta else _embedding_identity(self.embedding)
            else:
                identity = self._identity or _embedding_identity(self.embedding)
            coll.ensure(embedding_model=identity, dimension=dim, sparse=use_sparse)

    def delete_collection(self) -> None:
        self.collection.drop()

    def collection_exists(self) -> bool:
        return self.collection.exists()

    def file_hash_exists(self, file_hash: str) -> bool:
        if not self.collection.exists():
            return False
        with self.collection.opened() as coll:
            return coll.count(Filter(must=[Cond(meta_path("file_hash"), value=file_hash)])) > 0

    def get_collection_info(self) -> dict[str, Any]:
        if not self.collection.exists():
            raise StoreError(f"collection '{self.collection_name}' does not exist; call create_collection() first")
        with self.collection.opened() as coll:
            meta = coll.meta()
            return {
                "name": self.collection_name,
                "engine": coll.engine_name,
                "location": coll.location,
                "points_count": coll.count(),
                "indexed_vectors_count": coll.indexed_vectors(),
                "vector_size": meta.dimension if meta else None,
                "embedding_model": meta.embedding_model if meta else None,
                "sparse": bool(meta and meta.sparse),
                "payload_indexes": dict(coll.indexes()),
            }

    def get_metadata_keys(self) -> list[str]:
        if not self.collection.exists():
            return []
        with self.collection.opened() as coll:
            return sorted(coll.sample_metadata())

    def get_field_values(self, fields: list[str], limit: int = 50) -> dict[str, list]:
        if not self.collection.exists():
            return {f: [] for f in fields}
        with self.collection.opened() as coll:
            return {f: coll.facet(f, limit=limit) for f in fields}

    def create_payload_indexes(self, fields: list[str]) -> None:
        """Index ``fields`` (ragwire's own unindexed fields too), each typed as its stored values are."""
        from .search import stored_fields

        examples = {"integer": 0, "float": 0.0, "bool": False}
        with self.collection.opened() as coll:
            kinds, _ = stored_fields(coll, set(fields))
            sample = {f: next((examples[k] for k in examples if k in kinds.get(f, ())), "") for f in fields}
            coll.ensure_indexes(sample, every_field=True)

    def get_store(self, use_sparse: bool = True) -> RagwireVectorStore:
        searcher = Searcher(self.collection, self.embedding, self._sparse_encoder(use_sparse))
        return RagwireVectorStore(searcher)
