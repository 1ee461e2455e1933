"""Translation between ragwire's engine-neutral types and Qdrant Edge's native ones."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import MissingDependencyError
from .engine import DENSE, SPARSE, DenseParams, Fusion, Point
from .filters import Cond, Filter, translate


def edge_module() -> Any:
    try:
        import qdrant_edge
    except ImportError as exc:  # pragma: no cover - qdrant-edge-py is a core dependency
        raise MissingDependencyError("the embedded Qdrant engine", "qdrant-edge-py", "local") from exc
    return qdrant_edge


def native_cond(cond: Cond) -> Any:
    q = edge_module()
    if cond.range is not None:
        return q.FieldCondition(key=cond.key, range=q.RangeFloat(**cond.range))
    if cond.dates is not None:
        return q.FieldCondition(key=cond.key, range=q.RangeDateTime(**cond.dates))
    if cond.any_of is not None:
        return q.FieldCondition(key=cond.key, match=q.MatchAny(list(cond.any_of)))
    return q.FieldCondition(key=cond.key, match=q.MatchValue(_match_value(cond.value)))


def _match_value(value: object) -> Any:
    # qdrant-edge-py 0.9 reads a Python bool as the integer 1 or 0 (bool is an int subclass),
    # so a bool filter never matched; numpy's bool is not an int and arrives as a bool.
    if isinstance(value, bool):
        import numpy

        return numpy.bool_(value)
    return value


def native_filter(flt: Filter | None) -> Any:
    return translate(flt, native_cond, edge_module().Filter)


def sparse_vector(vec: tuple[list[int], list[float]]) -> Any:
    indices, values = vec
    return edge_module().SparseVector(indices=list(indices), values=list(values))


def native_points(points: list[Point]) -> list:
    q = edge_module()
    native = []
    for p in points:
        vector: dict[str, Any] = {}
        if p.dense is not None:
            vector[DENSE] = list(p.dense)
        if p.sparse is not None and p.sparse[0]:
            vector[SPARSE] = sparse_vector(p.sparse)
        native.append(q.Point(p.id, vector, p.payload))
    return native


def index_operation(key: str, kind: str) -> Any:
    q = edge_module()
    schema = {
        "keyword": q.PayloadSchemaType.Keyword,
        "integer": q.PayloadSchemaType.Integer,
        "float": q.PayloadSchemaType.Float,
        "bool": q.PayloadSchemaType.Bool,
    }[kind]
    return q.UpdateOperation.create_field_index(key, schema)


def search_params(dense: DenseParams | None) -> Any:
    if dense is None or (dense.hnsw_ef is None and not dense.exact):
        return None
    return edge_module().SearchParams(hnsw_ef=dense.hnsw_ef, exact=dense.exact)


def query_request(*, dense: list[float] | None, sparse: tuple[list[int], list[float]] | None, flt: Filter | None,
                  limit: int, fusion: Fusion | None, dense_params: DenseParams | None, with_vectors: bool) -> Any:
    """The QueryRequest of a dense, sparse or hybrid (fused prefetch) search."""
    q = edge_module()
    native = native_filter(flt)
    params = search_params(dense_params)
    if dense is not None and sparse is not None:
        fusion = (fusion or Fusion()).at_least(limit)
        if fusion.method == "dbsf":
            fuse = q.Fusion.Dbsf()
        else:
            fuse = q.Fusion.Rrf(k=fusion.k, weights=list(fusion.weights) if fusion.weights else None)
        return q.QueryRequest(
            limit=limit,
            prefetches=[
                q.Prefetch(limit=fusion.dense_limit, query=q.Query.Nearest(list(dense), using=DENSE),
                           filter=native, params=params),
                q.Prefetch(limit=fusion.sparse_limit, query=q.Query.Nearest(sparse_vector(sparse), using=SPARSE),
                           filter=native),
            ],
            query=fuse,
            filter=native,
            with_payload=True,
            with_vector=with_vectors,
        )
    if dense is not None:
        return q.QueryRequest(
            limit=limit, query=q.Query.Nearest(list(dense), using=DENSE), params=params,
            filter=native, with_payload=True, with_vector=with_vectors,
        )
    if sparse is not None:
        return q.QueryRequest(
            limit=limit, query=q.Query.Nearest(sparse_vector(sparse), using=SPARSE),
            filter=native, with_payload=True, with_vector=with_vectors,
        )
    raise ValueError("search needs a dense or a sparse query vector")


def build_shard(folder: Path, dimension: int, sparse: bool, meta_points: list, indexes: list[tuple[str, str]]) -> None:
    """Create a shard in ``folder`` with its meta point and initial indexes, flushed and closed."""
    q = edge_module()
    config = q.EdgeConfig(
        vectors={DENSE: q.EdgeVectorParams(size=dimension, distance=q.Distance.Cosine)},
        sparse_vectors=({SPARSE: q.EdgeSparseVectorParams(modifier=q.Modifier.Idf)} if sparse else None),
    )
    shard = q.EdgeShard.create(str(folder), config)
    try:
        shard.update(q.UpdateOperation.upsert_points(meta_points))
        for key, kind in indexes:
            shard.update(index_operation(key, kind))
        shard.flush()
    finally:
        shard.close()
