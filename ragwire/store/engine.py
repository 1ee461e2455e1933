"""The interface both Qdrant engines implement, and the records they return."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from .filters import Filter

DENSE = "dense"
SPARSE = "sparse"


@dataclass
class PointData:
    """A point to write.  ``sparse`` is ``(indices, values)``."""

    id: str
    payload: dict[str, Any]
    dense: list[float] | None = None
    sparse: tuple[list[int], list[float]] | None = None


@dataclass
class Record:
    id: str
    payload: dict[str, Any] = field(default_factory=dict)
    score: float | None = None
    dense: list[float] | None = None
    sparse: tuple[list[int], list[float]] | None = None


class Engine(ABC):
    """One collection in one Qdrant engine.  Every call may assume :meth:`open` ran."""

    name: str = "engine"
    location: str = ""

    @abstractmethod
    def open(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    def flush(self) -> None:
        """Make every write so far durable.  Engines that persist each write need nothing."""

    @abstractmethod
    def exists(self) -> bool: ...

    @abstractmethod
    def create(self, dimension: int, sparse: bool) -> None: ...

    @abstractmethod
    def drop(self) -> None: ...

    @abstractmethod
    def upsert(self, points: list[PointData]) -> None: ...

    @abstractmethod
    def delete(self, flt: Filter) -> None: ...

    @abstractmethod
    def set_payload(self, flt: Filter, payload: dict[str, Any]) -> None: ...

    @abstractmethod
    def count(self, flt: Filter | None = None) -> int: ...

    @abstractmethod
    def scroll(
        self,
        flt: Filter | None,
        limit: int,
        offset: Any = None,
        with_vectors: bool = False,
        fields: list[str] | None = None,
    ) -> tuple[list[Record], Any]: ...

    @abstractmethod
    def retrieve(self, ids: list[str], with_vectors: bool = False) -> list[Record]: ...

    @abstractmethod
    def search(
        self,
        *,
        dense: list[float] | None = None,
        sparse: tuple[list[int], list[float]] | None = None,
        flt: Filter | None = None,
        limit: int = 5,
        rrf_k: int = 60,
        prefetch_limit: int | None = None,
        with_vectors: bool = False,
    ) -> list[Record]:
        """Nearest points by ``dense`` or ``sparse``; both given → the engine fuses them with RRF."""

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
