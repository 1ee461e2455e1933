"""The server engine: qdrant-client against a Qdrant server or cluster (or its local mode, in tests).

Every failure leaves as a StoreError: unreachable, timed out or a 5xx answer is
``retryable`` (the same call may succeed later); a missing collection, a refusal
(4xx) or anything else is not.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MissingDependencyError, StoreError, StoreLockedError, one_line
from .engine import DENSE, SPARSE, DenseParams, Engine, Fusion, Offset, Point, guarded
from .filters import Cond, Filter, translate

if TYPE_CHECKING:
    from qdrant_client.http.exceptions import UnexpectedResponse


def _models():
    try:
        from qdrant_client import models
    except ImportError as exc:  # pragma: no cover - qdrant-client is a core dependency
        raise MissingDependencyError("a Qdrant server collection", "qdrant-client", "all") from exc
    return models


def _answer_text(exc: UnexpectedResponse) -> str:
    """Qdrant's own reason from an error answer (``status.error``), else the HTTP reason phrase."""
    try:
        error = exc.structured()["status"]["error"]
    except Exception:
        error = None
    return " ".join(str(error or exc.reason_phrase or "no reason given").split())[:300]


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
        self._client: Any = None

    def open(self) -> None:
        if self._client is not None:
            return
        try:
            from qdrant_client import QdrantClient
        except ImportError as exc:  # pragma: no cover
            raise MissingDependencyError("a Qdrant server collection", "qdrant-client", "all") from exc
        try:
            if self.url and self.url != ":memory:":
                # The client rounds timeouts up to whole seconds; never down to 0 (no time at all).
                # The version check would cost a request, and a warning, on every open.
                self._client = QdrantClient(url=self.url, api_key=self.api_key,
                                            timeout=max(1, math.ceil(self.timeout)), check_compatibility=False)
            elif self.path is not None:
                if self.path.parent.exists() and not self.path.parent.is_dir():
                    raise StoreError(
                        f"vectorstore.path {self.path.parent} is a file, not a folder; "
                        "point vectorstore.path at a folder (it is created if missing)"
                    )
                self._client = QdrantClient(path=str(self.path))
            else:
                self._client = QdrantClient(location=":memory:")
        except StoreError:
            raise
        except Exception as exc:
            if "already accessed" in str(exc):
                raise StoreLockedError(
                    f"the local Qdrant folder {self.path} is in use by another process; stop it and retry"
                ) from exc
            raise StoreError(f"cannot open Qdrant at {self.location}: {one_line(exc)}") from exc
        self.generation += 1

    def close(self) -> None:
        # A ":memory:" client holds the data itself; closing it would lose everything.
        if self._client is not None and self.location != ":memory:":
            client, self._client = self._client, None
            try:
                client.close()
            except Exception as exc:
                raise self._wrap("close", exc) from exc

    @property
    def client(self) -> Any:
        if self._client is None:
            self.open()
        return self._client

    @staticmethod
    def _call(fn, *args, **kwargs):
        with warnings.catch_warnings():
            # Local mode warns that payload indexes do nothing there; a server uses them.
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)

    def _wrap(self, what: str, exc: Exception) -> StoreError:
        where = f"Qdrant at {self.location}"
        from qdrant_client.http.exceptions import UnexpectedResponse

        status = getattr(exc, "status_code", None)
        if isinstance(exc, UnexpectedResponse) and status is not None:
            reason = _answer_text(exc)
            if status == 404:
                return StoreError(
                    f"{where} has no collection '{self.collection}' ({what} answered HTTP 404: {reason}). "
                    "Run `ragwire ingest` first, or check vectorstore.collection_name and vectorstore.url."
                )
            if status >= 500:
                return StoreError(f"{where} failed during {what} with HTTP {status}: {reason}. Retry later.",
                                  retryable=True)
            fix = " Check vectorstore.api_key." if status in (401, 403) else ""
            return StoreError(f"{where} refused {what} with HTTP {status}: {reason}.{fix}",
                              retryable=status in (408, 429))
        if type(exc).__name__ == "ResourceExhaustedResponse":
            return StoreError(f"{where} is rate-limiting {what}: {one_line(exc)}. Retry later.", retryable=True)
        source = getattr(exc, "source", exc)  # ResponseHandlingException wraps the transport error
        if _is_timeout(source):
            return StoreError(
                f"{where} did not answer {what} within {self.timeout:g} s. "
                "Check the server's load, or raise vectorstore.timeout.",
                retryable=True,
            )
        if _is_transport(source):
            return StoreError(
                f"{where} is unreachable during {what}: {one_line(source)}. "
                "Check vectorstore.url and that the server is running.",
                retryable=True,
            )
        if isinstance(exc, ValueError) and "not found" in str(exc).lower():
            # local mode reports a missing collection this way
            return StoreError(
                f"{where} has no collection '{self.collection}' ({what}: {one_line(exc)}). "
                "Run `ragwire ingest` first, or check vectorstore.collection_name."
            )
        return StoreError(f"{where}: {what} failed: {one_line(exc)}")

    @guarded("collection_exists")
    def exists(self) -> bool:
        return bool(self._call(self.client.collection_exists, self.collection))

    @guarded("create_collection")
    def create(self, dimension: int, sparse: bool, meta: Point, indexes: list[tuple[str, str]]) -> bool:
        """Create the collection, then its meta point and indexes.

        A server has no rename, so this is not atomic: a collection without a meta point
        and without points is what a killed creation leaves, and ensure() rebuilds it.
        """
        m = _models()
        try:
            self._call(
                self.client.create_collection,
                self.collection,
                vectors_config={DENSE: m.VectorParams(size=dimension, distance=m.Distance.COSINE)},
                sparse_vectors_config=(
                    {SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)} if sparse else None
                ),
            )
        except Exception as exc:
            if _already_exists(exc):
                return False
            raise
        self.upsert([meta])
        for key, kind in indexes:
            self.create_index(key, kind)
        return True

    @guarded("delete_collection")
    def drop(self) -> None:
        if self.exists():
            self._call(self.client.delete_collection, self.collection)
        self.generation += 1

    # -- translation -----------------------------------------------------
    def _cond(self, cond: Cond):
        m = _models()
        if cond.range is not None:
            return m.FieldCondition(key=cond.key, range=m.Range(**cond.range))
        if cond.dates is not None:
            return m.FieldCondition(key=cond.key, range=m.DatetimeRange(**cond.dates))
        if cond.any_of is not None:
            return m.FieldCondition(key=cond.key, match=m.MatchAny(any=list(cond.any_of)))
        return m.FieldCondition(key=cond.key, match=m.MatchValue(value=cond.value))

    def _filter(self, flt: Filter | None):
        return translate(flt, self._cond, _models().Filter)

    # -- writes ----------------------------------------------------------
    @guarded("upsert")
    def upsert(self, points: list[Point]) -> None:
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
            self._call(self.client.upsert, self.collection, points=native, wait=True)

    @guarded("delete")
    def delete(self, flt: Filter) -> None:
        m = _models()
        self._call(self.client.delete, self.collection,
                   points_selector=m.FilterSelector(filter=self._filter(flt)), wait=True)

    @guarded("set_payload")
    def set_payload(self, flt: Filter, payload: dict[str, Any], key: str | None = None) -> None:
        self._call(self.client.set_payload, self.collection,
                   payload=payload, points=self._filter(flt), key=key, wait=True)

    # -- reads -----------------------------------------------------------
    @guarded("count")
    def count(self, flt: Filter | None = None) -> int:
        result = self._call(self.client.count, self.collection,
                            count_filter=self._filter(flt), exact=True)
        return result.count

    @guarded("scroll")
    def scroll(self, flt: Filter | None, limit: int, offset: Offset = None, with_vectors: bool = False,
               fields: list[str] | None = None) -> tuple[list[Point], Offset]:
        records, next_offset = self._call(
            self.client.scroll, self.collection,
            scroll_filter=self._filter(flt), limit=limit, offset=offset,
            with_payload=fields if fields else True, with_vectors=with_vectors,
        )
        return [Point.read(r, with_vectors) for r in records], next_offset

    @guarded("retrieve")
    def retrieve(self, ids: list[str], with_vectors: bool = False) -> list[Point]:
        if not ids:
            return []
        records = self._call(self.client.retrieve, self.collection, ids=list(ids),
                             with_payload=True, with_vectors=with_vectors)
        return [Point.read(r, with_vectors) for r in records]

    @guarded("query")
    def search(self, *, dense: list[float] | None = None, sparse: tuple[list[int], list[float]] | None = None,
               flt: Filter | None = None, limit: int = 5, fusion: Fusion | None = None,
               dense_params: DenseParams | None = None, with_vectors: bool = False) -> list[Point]:
        m = _models()
        native_filter = self._filter(flt)
        params = None
        if dense_params is not None and (dense_params.hnsw_ef is not None or dense_params.exact):
            params = m.SearchParams(hnsw_ef=dense_params.hnsw_ef, exact=dense_params.exact)
        kwargs: dict[str, Any] = dict(limit=limit, query_filter=native_filter,
                                      with_payload=True, with_vectors=with_vectors)
        if dense is not None and sparse is not None:
            fusion = (fusion or Fusion()).at_least(limit)
            kwargs["prefetch"] = [
                m.Prefetch(query=list(dense), using=DENSE, limit=fusion.dense_limit, filter=native_filter,
                           params=params),
                m.Prefetch(query=m.SparseVector(indices=list(sparse[0]), values=list(sparse[1])),
                           using=SPARSE, limit=fusion.sparse_limit, filter=native_filter),
            ]
            if fusion.method == "dbsf":
                kwargs["query"] = m.FusionQuery(fusion=m.Fusion.DBSF)
            else:
                kwargs["query"] = m.RrfQuery(rrf=m.Rrf(k=fusion.k, weights=list(fusion.weights) if fusion.weights else None))
        elif dense is not None:
            kwargs.update(query=list(dense), using=DENSE, search_params=params)
        elif sparse is not None:
            if not sparse[0]:
                return []
            kwargs.update(query=m.SparseVector(indices=list(sparse[0]), values=list(sparse[1])), using=SPARSE)
        else:
            raise ValueError("search needs a dense or a sparse query vector")
        response = self._call(self.client.query_points, self.collection, **kwargs)
        return [Point.read(p, with_vectors) for p in response.points]

    @guarded("facet")
    def facet(self, key: str, limit: int, flt: Filter | None = None) -> list[tuple[Any, int]]:
        response = self._call(self.client.facet, self.collection, key=key, limit=limit,
                              facet_filter=self._filter(flt), exact=True)
        return [(hit.value, hit.count) for hit in response.hits]

    @guarded("create_payload_index")
    def create_index(self, key: str, kind: str) -> None:
        m = _models()
        schema = {
            "keyword": m.PayloadSchemaType.KEYWORD,
            "integer": m.PayloadSchemaType.INTEGER,
            "float": m.PayloadSchemaType.FLOAT,
            "bool": m.PayloadSchemaType.BOOL,
        }[kind]
        self._call(self.client.create_payload_index, self.collection,
                   field_name=key, field_schema=schema, wait=True)

    @guarded("get_collection")
    def indexes(self) -> dict[str, str]:
        info = self._call(self.client.get_collection, self.collection)
        out = {}
        for key, schema in (info.payload_schema or {}).items():
            data_type = getattr(schema, "data_type", schema)
            out[key] = str(getattr(data_type, "value", data_type)).lower()
        return out

    @guarded("update_collection")
    def defer_index(self) -> int | None:
        """Qdrant's bulk-load recipe: ``m=0`` while points load, then one build (:meth:`restore_index`).

        Only on a server: qdrant-client's local mode has no HNSW graph to defer.
        """
        if not (self.url and self.url != ":memory:"):
            return None
        m = _models()
        current = self._call(self.client.get_collection, self.collection).config.hnsw_config.m
        if not current:
            return None  # the collection is configured without a graph already: nothing to restore
        self._call(self.client.update_collection, self.collection, hnsw_config=m.HnswConfigDiff(m=0))
        return int(current)

    @guarded("update_collection")
    def restore_index(self, m: int) -> None:
        self._call(self.client.update_collection, self.collection, hnsw_config=_models().HnswConfigDiff(m=m))

    @guarded("get_collection")
    def indexed_vectors(self) -> int:
        info = self._call(self.client.get_collection, self.collection)
        return int(info.indexed_vectors_count or 0)


def _already_exists(exc: Exception) -> bool:
    # A server answers 409; local mode raises ValueError("Collection … already exists").
    return getattr(exc, "status_code", None) == 409 or "already exists" in str(exc)


def _is_timeout(exc: BaseException) -> bool:
    try:
        import httpx
    except ImportError:  # pragma: no cover - qdrant-client depends on httpx
        return False
    return isinstance(exc, (httpx.TimeoutException, TimeoutError))


def _is_transport(exc: BaseException) -> bool:
    try:
        import httpx
    except ImportError:  # pragma: no cover
        return False
    return isinstance(exc, (httpx.TransportError, ConnectionError))
