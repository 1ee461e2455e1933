"""The server engine: qdrant-client against a Qdrant server or cluster (or its local mode, in tests)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from ..errors import MissingDependencyError, StoreError, StoreLockedError
from .engine import DENSE, SPARSE, Engine, PointData, Record
from .filters import Cond, Filter, translate


def _models():
    try:
        from qdrant_client import models
    except ImportError as exc:  # pragma: no cover - qdrant-client is a core dependency
        raise MissingDependencyError("a Qdrant server collection", "qdrant-client", "all") from exc
    return models


class ServerEngine(Engine):
    """``url`` is ``http(s)://…`` for a server, ``":memory:"`` or ``path`` for qdrant-client's local mode."""

    name = "qdrant"

    def __init__(
        self,
        collection: str,
        *,
        url: str | None = None,
        path: Path | None = None,
        api_key: str | None = None,
        timeout: float = 30,
    ) -> None:
        self.collection = collection
        self.url = url
        self.path = path
        self.api_key = api_key
        self.timeout = timeout
        self.location = url if url and url != ":memory:" else (str(path) if path else ":memory:")
        self._client = None

    def open(self) -> None:
        if self._client is not None:
            return
        try:
            from qdrant_client import QdrantClient
        except ImportError as exc:  # pragma: no cover
            raise MissingDependencyError("a Qdrant server collection", "qdrant-client", "all") from exc
        try:
            if self.url and self.url != ":memory:":
                self._client = QdrantClient(url=self.url, api_key=self.api_key, timeout=int(self.timeout))
            elif self.path is not None:
                self._client = QdrantClient(path=str(self.path))
            else:
                self._client = QdrantClient(location=":memory:")
        except RuntimeError as exc:
            if "already accessed" in str(exc):
                raise StoreLockedError(
                    f"the local Qdrant folder {self.path} is in use by another process; stop it and retry"
                ) from exc
            raise StoreError(f"cannot open Qdrant at {self.location}: {exc}") from exc

    def close(self) -> None:
        # A ":memory:" client holds the data itself; closing it would lose everything.
        if self._client is not None and self.location != ":memory:":
            client, self._client = self._client, None
            client.close()

    @property
    def client(self):
        if self._client is None:
            self.open()
        return self._client

    def _call(self, what: str, fn, *args, **kwargs):
        try:
            with warnings.catch_warnings():
                # Local mode warns that payload indexes do nothing there; a server uses them.
                warnings.simplefilter("ignore")
                return fn(*args, **kwargs)
        except StoreError:
            raise
        except Exception as exc:
            name = type(exc).__name__
            if name in {"ResponseHandlingException", "ConnectError", "ConnectTimeout", "ReadTimeout"}:
                raise StoreError(
                    f"Qdrant at {self.location} is unreachable during {what}: {exc}. "
                    "Check vectorstore.url and that the server is running.",
                    retryable=True,
                ) from exc
            if name == "UnexpectedResponse":
                raise StoreError(f"Qdrant at {self.location} refused {what}: {exc}") from exc
            raise

    def exists(self) -> bool:
        return bool(self._call("collection_exists", self.client.collection_exists, self.collection))

    def create(self, dimension: int, sparse: bool) -> None:
        m = _models()
        self._call(
            "create_collection",
            self.client.create_collection,
            self.collection,
            vectors_config={DENSE: m.VectorParams(size=dimension, distance=m.Distance.COSINE)},
            sparse_vectors_config=({SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)} if sparse else None),
        )

    def drop(self) -> None:
        if self.exists():
            self._call("delete_collection", self.client.delete_collection, self.collection)

    # -- translation -----------------------------------------------------
    def _cond(self, cond: Cond):
        m = _models()
        if cond.range is not None:
            return m.FieldCondition(key=cond.key, range=m.Range(**cond.range))
        if cond.any_of is not None:
            return m.FieldCondition(key=cond.key, match=m.MatchAny(any=list(cond.any_of)))
        return m.FieldCondition(key=cond.key, match=m.MatchValue(value=cond.value))

    def _filter(self, flt: Filter | None):
        return translate(flt, self._cond, _models().Filter)

    @staticmethod
    def _record(point, with_vectors: bool) -> Record:
        rec = Record(id=str(point.id), payload=dict(point.payload or {}))
        rec.score = getattr(point, "score", None)
        if with_vectors and isinstance(point.vector, dict):
            dense = point.vector.get(DENSE)
            rec.dense = list(dense) if dense is not None else None
            sp = point.vector.get(SPARSE)
            if sp is not None:
                rec.sparse = (list(sp.indices), list(sp.values))
        return rec

    # -- writes ----------------------------------------------------------
    def upsert(self, points: list[PointData]) -> None:
        m = _models()
        native = []
        for p in points:
            vector: dict[str, Any] = {}
            if p.dense is not None:
                vector[DENSE] = list(p.dense)
            if p.sparse is not None and p.sparse[0]:
                vector[SPARSE] = m.SparseVector(indices=list(p.sparse[0]), values=list(p.sparse[1]))
            native.append(m.PointStruct(id=p.id, vector=vector, payload=p.payload))
        if native:
            self._call("upsert", self.client.upsert, self.collection, points=native, wait=True)

    def delete(self, flt: Filter) -> None:
        m = _models()
        self._call(
            "delete", self.client.delete, self.collection,
            points_selector=m.FilterSelector(filter=self._filter(flt)), wait=True,
        )

    def set_payload(self, flt: Filter, payload: dict[str, Any]) -> None:
        self._call("set_payload", self.client.set_payload, self.collection,
                   payload=payload, points=self._filter(flt), wait=True)

    # -- reads -----------------------------------------------------------
    def count(self, flt: Filter | None = None) -> int:
        result = self._call("count", self.client.count, self.collection,
                            count_filter=self._filter(flt), exact=True)
        return result.count

    def scroll(self, flt, limit, offset=None, with_vectors=False, fields=None):
        records, next_offset = self._call(
            "scroll", self.client.scroll, self.collection,
            scroll_filter=self._filter(flt), limit=limit, offset=offset,
            with_payload=fields if fields else True, with_vectors=with_vectors,
        )
        return [self._record(r, with_vectors) for r in records], next_offset

    def retrieve(self, ids, with_vectors=False):
        if not ids:
            return []
        records = self._call("retrieve", self.client.retrieve, self.collection, ids=list(ids),
                             with_payload=True, with_vectors=with_vectors)
        return [self._record(r, with_vectors) for r in records]

    def search(self, *, dense=None, sparse=None, flt=None, limit=5, rrf_k=60,
               prefetch_limit=None, with_vectors=False):
        m = _models()
        native_filter = self._filter(flt)
        kwargs: dict[str, Any] = dict(limit=limit, query_filter=native_filter,
                                      with_payload=True, with_vectors=with_vectors)
        if dense is not None and sparse is not None:
            depth = max(prefetch_limit or 0, limit)
            kwargs["prefetch"] = [
                m.Prefetch(query=list(dense), using=DENSE, limit=depth, filter=native_filter),
                m.Prefetch(query=m.SparseVector(indices=list(sparse[0]), values=list(sparse[1])),
                           using=SPARSE, limit=depth, filter=native_filter),
            ]
            kwargs["query"] = m.RrfQuery(rrf=m.Rrf(k=rrf_k))
        elif dense is not None:
            kwargs.update(query=list(dense), using=DENSE)
        elif sparse is not None:
            if not sparse[0]:
                return []
            kwargs.update(query=m.SparseVector(indices=list(sparse[0]), values=list(sparse[1])), using=SPARSE)
        else:
            raise ValueError("search needs a dense or a sparse query vector")
        response = self._call("query", self.client.query_points, self.collection, **kwargs)
        return [self._record(p, with_vectors) for p in response.points]

    def facet(self, key, limit, flt=None):
        response = self._call("facet", self.client.facet, self.collection, key=key, limit=limit,
                              facet_filter=self._filter(flt), exact=True)
        return [(hit.value, hit.count) for hit in response.hits]

    def create_index(self, key: str, kind: str) -> None:
        m = _models()
        schema = {
            "keyword": m.PayloadSchemaType.KEYWORD,
            "integer": m.PayloadSchemaType.INTEGER,
            "float": m.PayloadSchemaType.FLOAT,
            "bool": m.PayloadSchemaType.BOOL,
        }[kind]
        self._call("create_payload_index", self.client.create_payload_index, self.collection,
                   field_name=key, field_schema=schema, wait=True)

    def indexes(self) -> dict[str, str]:
        info = self._call("get_collection", self.client.get_collection, self.collection)
        out = {}
        for key, schema in (info.payload_schema or {}).items():
            data_type = getattr(schema, "data_type", schema)
            out[key] = str(getattr(data_type, "value", data_type)).lower()
        return out

    def indexed_vectors(self) -> int:
        info = self._call("get_collection", self.client.get_collection, self.collection)
        return int(info.indexed_vectors_count or 0)
