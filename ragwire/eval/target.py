"""What evaluation needs of a pipeline: :class:`Pipeline`, a slice of ``RAGWire``'s public API.

Eval is built on the public API only (``retrieve`` returns the spec's Documents), so a
fake with these methods evaluates as well as a real pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class Pipeline(Protocol):
    """The public methods ``evaluate`` and ``sweep`` call."""

    @property
    def filter_fields(self) -> list[str]:
        ...

    def retrieve(self, query: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                 rerank: bool | None = None, search_type: str | None = None) -> list[Any]:
        ...

    def query(self, question: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
              rerank: bool | None = None) -> Any:
        ...

    def get_stats(self) -> dict[str, Any]:
        ...

    def discover_metadata_fields(self) -> list[str]:
        ...

    def get_field_values(self, fields: str | list[str], limit: int = 50) -> Any:
        ...
