"""The interface both Qdrant engines implement, and the one point type they write and return (:class:`Point`)."""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, TypeVar
from uuid import UUID

from ..config.retrieval import RetrieverConfig
from ..errors import RagwireError, StoreError, one_line
from .filters import Filter

# Where a scroll's next page starts, a point id (Edge hands out UUIDs, Qdrant ints or strings); None: the last page.
Offset = int | str | UUID | None

_RETRIEVER = RetrieverConfig.model_fields

DENSE = "dense"
SPARSE = "sparse"


F = TypeVar("F", bound=Callable[..., Any])


def guarded(what: str) -> Callable[[F], F]:
    """Wrap an engine method so that nothing but ragwire's own errors leave it.

    Third-party failures become the engine's :meth:`Engine._wrap` of them, once, here
    at the engine boundary; callers above only ever see the StoreError tree.
    """

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def inner(self: Engine, *args: object, **kwargs: object) -> Any:
            try:
                return fn(self, *args, **kwargs)
            except RagwireError:
                raise
            except Exception as exc:
                raise self._wrap(what, exc) from exc

        return inner  # type: ignore[return-value]

    return wrap


class NativePoint(Protocol):
    """What both engines' own points (Qdrant Edge's, qdrant-client's) have in common."""

    @property
    def id(self) -> object: ...

    @property
    def payload(self) -> Mapping[str, Any] | None: ...

    @property
    def vector(self) -> object: ...


@dataclass
class Point:
    """A point in an engine: the one an engine writes and the one it reads back.

    ``sparse`` is ``(indices, values)``; the vectors are read back only when asked for,
    and ``score`` is set only by a search.
    """

    id: str
    payload: dict[str, Any] = field(default_factory=dict)
    dense: list[float] | None = None
    sparse: tuple[list[int], list[float]] | None = None
    score: float | None = None

    @classmethod
    def read(cls, native: NativePoint, with_vectors: bool) -> Point:
        """The point an engine's own point (scored or not) stands for."""
        point = cls(id=str(native.id), payload=dict(native.payload or {}), score=getattr(native, "score", None))
        vectors = native.vector if with_vectors and isinstance(native.vector, dict) else {}
        dense = vectors.get(DENSE)
        point.dense = list(dense) if dense is not None else None
        sp = vectors.get(SPARSE)
        if sp is not None:
            point.sparse = (list(sp.indices), list(sp.values))
        return point


@dataclass(frozen=True)
class Fusion:
    """How a hybrid search fuses its dense and sparse branches.

    ``method`` is ``rrf`` (reciprocal rank fusion: each branch adds
    ``weight / (k + rank)``) or ``dbsf`` (distribution-based score fusion: each
    branch's scores are scaled by their mean ± 3 standard deviations, then summed).
    ``dense_limit`` and ``sparse_limit`` are how many candidates each branch
    contributes; ``weights`` (dense, sparse) apply to ``rrf`` only.
    """

    # The ``retriever:`` section's defaults (one home: ragwire.config.RetrieverConfig).
    method: str = _RETRIEVER["fusion"].default
    k: int = _RETRIEVER["rrf_k"].default
    dense_limit: int = _RETRIEVER["fetch_k"].default
    sparse_limit: int = _RETRIEVER["fetch_k"].default
    weights: tuple[float, float] | None = None

    def at_least(self, limit: int) -> Fusion:
        """The same fusion with each branch fetching at least ``limit`` candidates."""
        return Fusion(self.method, self.k, max(self.dense_limit, limit), max(self.sparse_limit, limit), self.weights)


@dataclass(frozen=True)
class DenseParams:
    """How hard the dense (HNSW) search looks: ``hnsw_ef`` candidates explored, or ``exact``."""

    hnsw_ef: int | None = None
    exact: bool = False


class Engine(ABC):
    """One collection in one Qdrant engine.  Every call may assume :meth:`open` ran.

    ``generation`` grows whenever what the engine shows may have changed under its
    caller: each real (re)open and each drop.  Caches of stored state key on it.
    """

    name: str = "engine"
    location: str = ""
    generation: int = 0
    # True when one process at a time can open the store (it is locked while open),
    # so no other process can write while this one has it open.
    exclusive: bool = False
    # Seconds an open waits for another process to let go of the store (engines that lock a folder).
    lock_wait_s: float = 0.0

    def _wrap(self, what: str, exc: Exception) -> StoreError:
        """The StoreError a third-party failure during ``what`` becomes."""
        return StoreError(f"{self.name} store at {self.location}: {what} failed: {one_line(exc)}")

    @abstractmethod
    def open(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    def flush(self) -> None:  # noqa: B027 - a hook: engines that buffer writes override it
        """Make every write so far durable.  Engines that persist each write need nothing."""

    @abstractmethod
    def exists(self) -> bool: ...

    @abstractmethod
    def create(self, dimension: int, sparse: bool, meta: Point, indexes: list[tuple[str, str]]) -> bool:
        """Create the collection with its ``meta`` point and payload ``indexes`` (key, kind), then open it.

        Either all of it exists afterwards or, after a crash, nothing a later run
        would mistake for a collection.  Returns False, creating nothing, when the
        collection exists already (another process created it first).
        """

    @abstractmethod
    def drop(self) -> None: ...

    @abstractmethod
    def upsert(self, points: list[Point]) -> None: ...

    @abstractmethod
    def delete(self, flt: Filter) -> None: ...

    @abstractmethod
    def set_payload(self, flt: Filter, payload: dict[str, Any], key: str | None = None) -> None:
        """Merge ``payload`` into the matching points' payload (into the object at ``key`` when given)."""

    @abstractmethod
    def count(self, flt: Filter | None = None) -> int: ...

    @abstractmethod
    def scroll(
        self,
        flt: Filter | None,
        limit: int,
        offset: Offset = None,
        with_vectors: bool = False,
        fields: list[str] | None = None,
    ) -> tuple[list[Point], Offset]: ...

    @abstractmethod
    def retrieve(self, ids: list[str], with_vectors: bool = False) -> list[Point]: ...

    @abstractmethod
    def search(
        self,
        *,
        dense: list[float] | None = None,
        sparse: tuple[list[int], list[float]] | None = None,
        flt: Filter | None = None,
        limit: int = 5,
        fusion: Fusion | None = None,
        dense_params: DenseParams | None = None,
        with_vectors: bool = False,
    ) -> list[Point]:
        """Nearest points by ``dense`` or ``sparse``; both given → the engine fuses them by ``fusion``."""

    @abstractmethod
    def facet(self, key: str, limit: int, flt: Filter | None = None) -> list[tuple[Any, int]]: ...

    @abstractmethod
    def create_index(self, key: str, kind: str) -> None:
        """``kind`` is keyword | integer | float | bool."""

    @abstractmethod
    def indexes(self) -> dict[str, str]: ...

    @abstractmethod
    def indexed_vectors(self) -> int: ...

    def optimize(self) -> bool:
        """Build indexes now.  Engines that index in the background return False."""
        return False

    def defer_index(self) -> int | None:
        """Stop building the dense HNSW graph while a bulk load runs; returns the ``m`` to restore.

        None when the engine has nothing to defer (the embedded engine indexes only in :meth:`optimize`).
        """
        return None

    def restore_index(self, m: int) -> None:  # noqa: B027 - a hook: only the server engine defers
        """Build the HNSW graph again with ``m`` links per node, after :meth:`defer_index`."""
