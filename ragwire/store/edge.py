"""The embedded engine: Qdrant Edge, the real Qdrant engine in-process, one folder per collection."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from ..errors import MissingDependencyError, StoreError, StoreLockedError
from .engine import DENSE, SPARSE, Engine, PointData, Record
from .filters import Cond, Filter, translate

_LOCK_WAIT_S = 10.0


def _edge():
    try:
        import qdrant_edge
    except ImportError as exc:  # pragma: no cover - qdrant-edge-py is a core dependency
        raise MissingDependencyError("the embedded Qdrant engine", "qdrant-edge-py", "local") from exc
    return qdrant_edge


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc)
    return "WouldBlock" in text or "already accessed" in text or "lock" in text.lower()


class EdgeEngine(Engine):
    name = "edge"

    def __init__(self, folder: Path, collection: str, lock_wait_s: float = _LOCK_WAIT_S) -> None:
        self.root = Path(folder)
        self.collection = collection
        self.path = self.root / collection
        self.location = str(self.path)
        self.lock_wait_s = lock_wait_s
        self._shard = None
        self._dirty = False

    # -- lifecycle -------------------------------------------------------
    def open(self) -> None:
        if self._shard is not None or not self.exists():
            return
        q = _edge()
        deadline = time.monotonic() + self.lock_wait_s
        while True:
            try:
                self._shard = q.EdgeShard.load(str(self.path))
                return
            except Exception as exc:
                if not _is_lock_error(exc):
                    raise StoreError(
                        f"cannot open the embedded store at {self.path}: {exc}. "
                        "If the folder is damaged, move it away and re-ingest."
                    ) from exc
                if time.monotonic() >= deadline:
                    raise StoreLockedError(
                        f"the embedded store at {self.path} is in use by another process or another open "
                        "RAGWire (an MCP server, or another ingest/sync?). Stop it or wait, then retry; "
                        "for concurrent use point vectorstore.url at a Qdrant server."
                    ) from exc
                time.sleep(0.2)

    def flush(self) -> None:
        # Reads need no flush; skipping it keeps a search-only session cheap.
        if self._shard is not None and self._dirty:
            self._shard.flush()
            self._dirty = False

    def close(self) -> None:
        if self._shard is not None:
            self.flush()
            shard, self._shard = self._shard, None
            shard.close()

    @property
    def shard(self):
        if self._shard is None:
            self.open()
        if self._shard is None:
            raise StoreError(f"collection '{self.collection}' does not exist at {self.root}")
        return self._shard

    def exists(self) -> bool:
        return self._shard is not None or (self.path.is_dir() and any(self.path.iterdir()))

    def create(self, dimension: int, sparse: bool) -> None:
        q = _edge()
        self.path.mkdir(parents=True, exist_ok=True)
        config = q.EdgeConfig(
            vectors={DENSE: q.EdgeVectorParams(size=dimension, distance=q.Distance.Cosine)},
            sparse_vectors=(
                {SPARSE: q.EdgeSparseVectorParams(modifier=q.Modifier.Idf)} if sparse else None
            ),
        )
        self._shard = q.EdgeShard.create(str(self.path), config)
        self._dirty = True

    def drop(self) -> None:
        self.close()
        if self.path.exists():
            shutil.rmtree(self.path)

    # -- translation -----------------------------------------------------
    def _cond(self, cond: Cond):
        q = _edge()
        if cond.range is not None:
            return q.FieldCondition(key=cond.key, range=q.RangeFloat(**cond.range))
        if cond.any_of is not None:
            return q.FieldCondition(key=cond.key, match=q.MatchAny(list(cond.any_of)))
        return q.FieldCondition(key=cond.key, match=q.MatchValue(cond.value))

    def _filter(self, flt: Filter | None):
        return translate(flt, self._cond, _edge().Filter)

    @staticmethod
    def _sparse(vec):
        q = _edge()
        indices, values = vec
        return q.SparseVector(indices=list(indices), values=list(values))

    @staticmethod
    def _record(point, with_vectors: bool) -> Record:
        rec = Record(id=str(point.id), payload=dict(point.payload or {}))
        rec.score = getattr(point, "score", None)
        if with_vectors and point.vector:
            vectors = point.vector
            dense = vectors.get(DENSE)
            rec.dense = list(dense) if dense is not None else None
            sp = vectors.get(SPARSE)
            if sp is not None:
                rec.sparse = (list(sp.indices), list(sp.values))
        return rec

    # -- writes ----------------------------------------------------------
    def _update(self, operation) -> None:
        self._dirty = True
        self.shard.update(operation)

    def upsert(self, points: list[PointData]) -> None:
        q = _edge()
        native = []
        for p in points:
            vector: dict[str, Any] = {}
            if p.dense is not None:
                vector[DENSE] = list(p.dense)
            if p.sparse is not None and p.sparse[0]:
                vector[SPARSE] = self._sparse(p.sparse)
            native.append(q.Point(p.id, vector, p.payload))
        if native:
            self._update(q.UpdateOperation.upsert_points(native))

    def delete(self, flt: Filter) -> None:
        q = _edge()
        self._update(q.UpdateOperation.delete_points_by_filter(self._filter(flt)))

    def set_payload(self, flt: Filter, payload: dict[str, Any]) -> None:
        q = _edge()
        self._update(q.UpdateOperation.set_payload_by_filter(self._filter(flt), payload))

    # -- reads -----------------------------------------------------------
    def count(self, flt: Filter | None = None) -> int:
        q = _edge()
        return self.shard.count(q.CountRequest(filter=self._filter(flt), exact=True))

    def scroll(self, flt, limit, offset=None, with_vectors=False, fields=None):
        q = _edge()
        records, next_offset = self.shard.scroll(
            q.ScrollRequest(
                offset=offset,
                limit=limit,
                filter=self._filter(flt),
                with_payload=fields if fields else True,
                with_vector=with_vectors,
            )
        )
        return [self._record(r, with_vectors) for r in records], next_offset

    def retrieve(self, ids, with_vectors=False):
        if not ids:
            return []
        records = self.shard.retrieve(list(ids), with_payload=True, with_vector=with_vectors)
        return [self._record(r, with_vectors) for r in records]

    def search(self, *, dense=None, sparse=None, flt=None, limit=5, rrf_k=60,
               prefetch_limit=None, with_vectors=False):
        q = _edge()
        native_filter = self._filter(flt)
        if dense is not None and sparse is not None:
            depth = max(prefetch_limit or 0, limit)
            request = q.QueryRequest(
                limit=limit,
                prefetches=[
                    q.Prefetch(limit=depth, query=q.Query.Nearest(list(dense), using=DENSE), filter=native_filter),
                    q.Prefetch(limit=depth, query=q.Query.Nearest(self._sparse(sparse), using=SPARSE), filter=native_filter),
                ],
                query=q.Fusion.Rrf(k=rrf_k),
                filter=native_filter,
                with_payload=True,
                with_vector=with_vectors,
            )
        elif dense is not None:
            request = q.QueryRequest(
                limit=limit, query=q.Query.Nearest(list(dense), using=DENSE),
                filter=native_filter, with_payload=True, with_vector=with_vectors,
            )
        elif sparse is not None:
            if not sparse[0]:
                return []
            request = q.QueryRequest(
                limit=limit, query=q.Query.Nearest(self._sparse(sparse), using=SPARSE),
                filter=native_filter, with_payload=True, with_vector=with_vectors,
            )
        else:
            raise ValueError("search needs a dense or a sparse query vector")
        return [self._record(p, with_vectors) for p in self.shard.query(request)]

    def facet(self, key, limit, flt=None):
        q = _edge()
        response = self.shard.facet(q.FacetRequest(key=key, limit=limit, exact=True, filter=self._filter(flt)))
        return [(hit.value, hit.count) for hit in response.hits]

    def create_index(self, key: str, kind: str) -> None:
        q = _edge()
        schema = {
            "keyword": q.PayloadSchemaType.Keyword,
            "integer": q.PayloadSchemaType.Integer,
            "float": q.PayloadSchemaType.Float,
            "bool": q.PayloadSchemaType.Bool,
        }[kind]
        self._update(q.UpdateOperation.create_field_index(key, schema))

    def indexes(self) -> dict[str, str]:
        schema = self.shard.info().payload_schema
        return {key: str(info.data_type).rsplit(".", 1)[-1].lower() for key, info in schema.items()}

    def indexed_vectors(self) -> int:
        return self.shard.info().indexed_vectors_count

    def optimize(self) -> bool:
        self._dirty = True
        return bool(self.shard.optimize())
