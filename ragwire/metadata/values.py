"""Reading the values already stored per field: what grounds extraction and fills the filter context.

:class:`FieldValues` is the role the metadata service needs; :class:`StoredValues` plays it
over a collection (any object with ``exists``, ``opened`` and ``facet``).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class FieldValues(Protocol):
    """Distinct stored values per field, most frequent first."""

    def field_values(self, fields: Sequence[str], limit: int = 50) -> dict[str, list[Any]]:
        ...


class _Facets(Protocol):
    """An open collection: the distinct stored values of a field, most frequent first."""

    def facet(self, field: str, limit: int = 50) -> list[Any]: ...


class ValueSource(Protocol):
    """A collection (:class:`~ragwire.store.Collection`) as :class:`StoredValues` reads it."""

    def exists(self) -> bool: ...

    def opened(self) -> AbstractContextManager[_Facets]: ...


class StoredValues:
    """:class:`FieldValues` read from a collection; every field is empty before the first ingest."""

    def __init__(self, collection: ValueSource) -> None:
        self.collection = collection

    def field_values(self, fields: Sequence[str], limit: int = 50) -> dict[str, list[Any]]:
        names = list(fields)
        if not self.collection.exists():
            return {name: [] for name in names}
        with self.collection.opened() as coll:
            return {name: coll.facet(name, limit=limit) for name in names}
