"""Retrieval: the stage (:class:`Retriever`), search strategies, typed hits, the LangChain-facing helpers."""

from .hit import Hit, format_location
from .retriever import FilterExtractor, RetrieveKwargs, RetrieveOptions, Retriever, Store, SupportsRetrieve
from .search import SEARCH_TYPES, Searcher, mmr_select

__all__ = [
    "SEARCH_TYPES",
    "FilterExtractor",
    "Hit",
    "RetrieveKwargs",
    "RetrieveOptions",
    "Retriever",
    "Searcher",
    "Store",
    "SupportsRetrieve",
    "format_location",
    "mmr_select",
]
