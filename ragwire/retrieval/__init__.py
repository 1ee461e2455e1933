"""Retrieval: similarity, mmr, hybrid and keyword search; the LangChain-facing helpers."""

from .search import SEARCH_TYPES, Searcher, mmr_select, to_document

__all__ = ["SEARCH_TYPES", "Searcher", "mmr_select", "to_document"]
