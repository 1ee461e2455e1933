"""A pipeline as one principal sees it (``RAGWire(config).as_principal(...)``): every read runs inside
:func:`ragwire.access.gate.acting_as`, so the store filters it; writes need the writer role."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Iterator

from ..errors import ConfigError
from .gate import acting_as
from .principal import Principal

# The public reads of RAGWire; each call (a property's read too) runs as the principal.
READS = frozenset({
    "retrieve", "hybrid_search", "query", "aquery", "query_stream", "chat", "chat_stream", "get_stats", "list_documents",
    "document_chunks", "discover_metadata_fields", "filter_fields", "extract_filters", "get_filter_context",
    "get_field_values",
})
# Writes: a writer's run as is (a write is not a read of what the principal may see).
WRITES = frozenset({"ingest_documents", "reingest_documents", "ingest_directory", "delete_document", "sync"})
# Plain settings, no data.
PLAIN = frozenset({"config", "config_path", "callbacks", "extract_metadata", "close", "__enter__", "__exit__"})


def _scoped_iterator(items: Iterator[Any], principal: Principal) -> Iterator[Any]:
    # each step runs in the scope and leaves it before handing the item out: a generator
    # holding a scope open across yields would lend it to whatever the caller runs between
    while True:
        with acting_as(principal):
            try:
                item = next(items)
            except StopIteration:
                return
        yield item


class PrincipalView:
    """The reads of a :class:`~ragwire.RAGWire`, each made as ``principal``.

    Anything else of the pipeline (its collection, retriever, parts) is not reachable
    from here: those would read without the principal's filter.
    """

    def __init__(self, rag: Any, principal: Principal) -> None:
        self._rag = rag
        self.principal = principal

    def __getattr__(self, name: str) -> Any:
        if name in WRITES:
            if not self.principal.can_write:
                raise ConfigError(f"{name}: {self.principal.name} is a reader; writes need the writer role",
                                  source="access")
            return getattr(self._rag, name)
        if name in PLAIN:
            return getattr(self._rag, name)
        if name not in READS:
            raise AttributeError(f"{name}: not available as a principal (docs/security.md lists what is)")
        with acting_as(self.principal):
            found = getattr(self._rag, name)  # a property is read here, in the scope
        if not callable(found):
            return found
        return self._scoped(found)

    def _scoped(self, method: Callable[..., Any]) -> Callable[..., Any]:
        principal = self.principal
        if inspect.iscoroutinefunction(method):
            @functools.wraps(method)
            async def run_async(*args: object, **kwargs: object) -> Any:
                with acting_as(principal):
                    return await method(*args, **kwargs)
            return run_async

        @functools.wraps(method)
        def run(*args: object, **kwargs: object) -> Any:
            with acting_as(principal):
                result = method(*args, **kwargs)
            if inspect.isgenerator(result) or (hasattr(result, "__next__") and hasattr(result, "__iter__")):
                return _scoped_iterator(iter(result), principal)
            return result
        return run

    def as_retriever(self, **retrieve_kwargs: object) -> Any:
        """A LangChain retriever whose every search is made as the principal."""
        retriever = self._rag.as_retriever(**retrieve_kwargs)
        retriever.retriever = _ScopedStage(retriever.retriever, self.principal)
        return retriever

    def __repr__(self) -> str:
        return f"<{type(self._rag).__name__} as {self.principal.name} {sorted(self.principal.groups)}>"


class _ScopedStage:
    """A retrieval stage whose ``retrieve`` runs as the principal (the LangChain retriever's, sync or async)."""

    def __init__(self, stage: Any, principal: Principal) -> None:
        self._stage = stage
        self._principal = principal

    def retrieve(self, query: str, options: object = None) -> Any:
        with acting_as(self._principal):
            return self._stage.retrieve(query, options)
