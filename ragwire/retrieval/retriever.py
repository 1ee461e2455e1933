"""The retrieval stage: one query in, the best :class:`~ragwire.retrieval.hit.Hit` list out.

:class:`Retriever` holds the policy around a search: filters read from the query
(``auto_filter``), the checks a filter must pass before any search, the answer for a
collection that does not exist yet, how many candidates reranking needs and the
reranking itself.  It is built from parts (a searcher, a store to open, a reranker, a
filter extractor, the ``retriever:`` settings) and needs no pipeline around it.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Protocol, TypedDict, runtime_checkable

from ..errors import ConfigError, ProviderError
from .hit import Hit

if TYPE_CHECKING:
    from ..config import RetrieverConfig
    from ..providers.usage import Usage
    from ..rerank import Reranker
    from .search import Searcher

log = logging.getLogger(__name__)


class RetrieveKwargs(TypedDict, total=False):
    """``retrieve``'s keywords as a LangChain retriever passes them on (the fields of :class:`RetrieveOptions`)."""

    top_k: int | None
    filters: Mapping[str, Any] | None
    rerank: bool | None
    search_type: str | None


@dataclass(frozen=True)
class RetrieveOptions:
    """The per-call settings of ``retrieve``; None takes the ``retriever:`` section's value.

    ``rerank=True`` requires the configured reranker, ``False`` skips it.
    """

    top_k: int | None = None
    filters: Mapping[str, Any] | None = None
    rerank: bool | None = None
    search_type: str | None = None


@runtime_checkable
class SupportsRetrieve(Protocol):
    """What answers, the LangChain retriever and eval need from retrieval."""

    def retrieve(self, query: str, options: RetrieveOptions | None = None) -> list[Hit]:
        """The best hits for ``query``, best first."""
        ...


class FilterExtractor(Protocol):
    """Reads metadata filters from a query (the metadata service, with an LLM)."""

    def filters(self, query: str, usage: Usage | None = None) -> dict[str, Any] | None:
        ...


class Store(Protocol):
    """The collection as retrieval opens it: a plain ``Collection``, or one that checks its model first."""

    def exists(self) -> bool:
        ...

    def opened(self) -> contextlib.AbstractContextManager[Any]:
        ...


class Retriever:
    """Searches, with the ``retriever:`` section's policy around the search.

    Args:
        searcher: Runs one search against the collection.
        settings: The ``retriever:`` config section.
        store: What to open for a search; default the searcher's collection.
        reranker: The configured reranker, or None.
        filter_extractor: Reads filters from a query, for ``auto_filter``; None without one.
    """

    def __init__(self, searcher: Searcher, settings: RetrieverConfig, *, store: Store | None = None,
                 reranker: Reranker | None = None, filter_extractor: FilterExtractor | None = None) -> None:
        self.searcher = searcher
        self.settings = settings
        self.store: Store = store if store is not None else searcher.collection
        self.reranker = reranker
        self.filter_extractor = filter_extractor

    def retrieve(self, query: str, options: RetrieveOptions | None = None) -> list[Hit]:
        """The most relevant chunks for ``query``, best first.

        Raises:
            ConfigError: ``rerank=True`` without a reranker; a bad ``top_k`` or ``search_type``;
                a filter of a bad shape, with a null or out-of-range value, or on a field no
                stored chunk has.
            ProviderError: the query embedding or the reranker failed (after retries).
        """
        import ragwire.telemetry as telemetry

        opts = options or RetrieveOptions()
        k = self.settings.top_k if opts.top_k is None else opts.top_k
        name = str(getattr(self.searcher.collection, "name", None) or "ragwire")
        attributes = {"gen_ai.operation.name": "retrieval", "gen_ai.data_source.id": name, "ragwire.top_k": k,
                      **telemetry.query_attribute(query)}
        # One span per search, parent of its embedding, rerank and filter-reading spans.
        with telemetry.span(f"retrieval {name}", attributes) as span:
            hits = self._retrieve(query, opts, k)
            telemetry.set_attributes(span, {"ragwire.chunks": len(hits), **telemetry.documents_attribute(hits)})
        return hits

    def _retrieve(self, query: str, opts: RetrieveOptions, k: int) -> list[Hit]:
        r = self.settings
        if opts.rerank and self.reranker is None:
            raise ConfigError("retriever.rerank: rerank=True was passed but no reranker is configured")
        reranking = self.reranker is not None and opts.rerank is not False
        from ..store import build_filter

        # a malformed filter is an error before any LLM call, and even before the first ingest
        build_filter(opts.filters)
        filters = self.auto_filters(query, opts.filters)
        if not self.store.exists():
            return []
        # A top_k below 1 goes to the search unchanged, which refuses it.
        fetch = r.rerank.effective_fetch_k(k) if reranking and r.rerank is not None and k >= 1 else k
        search_type = opts.search_type or r.search_type
        self.searcher.prepare(search_type)
        with self.store.opened():
            found = self.searcher.search(query, k=fetch, filters=filters, search_type=search_type)
        if not reranking:
            return found
        # Scored outside the store block: a model on CPU takes a while, and no lock is needed.
        return self._rerank(query, found, k)

    def _rerank(self, query: str, hits: list[Hit], top_k: int) -> list[Hit]:
        import ragwire.telemetry as telemetry

        from ..rerank import ranked

        assert self.reranker is not None
        model = str(getattr(self.settings.rerank, "model", None) or type(self.reranker).__name__)
        kept = []
        with telemetry.span(f"rerank {model}", {"gen_ai.operation.name": "rerank", "gen_ai.request.model": model,
                                                "ragwire.candidates": len(hits), "ragwire.top_k": top_k}):
            for i, score in ranked(self.reranker, query, [h.text for h in hits], top_k):
                hits[i].rerank_score = score
                kept.append(hits[i])
        return kept

    def auto_filters(self, query: str, filters: Mapping[str, Any] | None,
                     usage: Usage | None = None) -> Mapping[str, Any] | None:
        """With ``retriever.auto_filter``, the filters read from ``query`` when none are given.

        Returns ``{}`` rather than None once resolved, so a nested ``retrieve`` does not ask again;
        an LLM failure searches unfiltered, with a warning: a filter is a refinement, not a must.
        ``usage``, when given, gets the LLM call's tokens and attempts added (a query counts
        them in ``Answer.usage``).
        """
        if filters is not None or not self.settings.auto_filter or self.filter_extractor is None:
            return filters
        try:
            found = self.filter_extractor.filters(query, usage)
        except ProviderError as exc:
            log.warning("auto_filter: no filters extracted, searching unfiltered: %s", exc)
            return {}
        if found:
            log.info("auto_filter: %s", found)
        return found or {}
