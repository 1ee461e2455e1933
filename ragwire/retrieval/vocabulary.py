"""The collection's own word statistics: in how many chunks a term occurs, read from the BM25 side of the store.

Hybrid search stores a sparse BM25 vector per chunk (term ids from the store's
tokenizer, which lowercases and stems); the engine keeps them to weigh terms by IDF.
A sparse search for one term returns exactly the chunks holding it, so their count,
capped at :data:`COUNT_CAP`, is the term's document frequency: enough to tell a term
no document mentions (0) from a rare one and a common one.
"""

from __future__ import annotations

import math
from typing import Any, Hashable

from ..store import Collection
from ..store.records import source_filter
from ..store.scope import scope_key

# Past this many chunks a term is common; counting further costs time and tells nothing.
COUNT_CAP = 64


class CollectionVocabulary:
    """Document frequencies of single terms in a collection (cached per term).

    Args:
        collection: The store's collection.
        sparse: The collection's sparse (BM25) encoder; without one nothing is known.
    """

    def __init__(self, collection: Collection, sparse: Any | None) -> None:
        self.collection = collection
        self.sparse = sparse
        # Keyed by the reader's scope (ragwire.store.scope): a count is of the chunks a reader may see.
        self._counts: dict[tuple[Hashable, str, str | None], int] = {}
        self._sizes: dict[Hashable, int] = {}

    @property
    def size(self) -> int:
        """How many chunks the collection holds (read once per :meth:`refresh`)."""
        key = scope_key()
        if key not in self._sizes:
            with self.collection.opened():
                self._sizes[key] = self.collection.count()
        return self._sizes[key]

    def refresh(self) -> None:
        """Forget what was counted when the collection changed size since (an ingest, a sync)."""
        with self.collection.opened():
            size = self.collection.count()
        if size != self._sizes.get(scope_key()):
            self._counts.clear()
            self._sizes = {scope_key(): size}

    def documents_with(self, term: str, source: str | None = None) -> int | None:
        """In how many chunks ``term`` occurs (at most :data:`COUNT_CAP`), of one file when ``source`` names it;
        None when the store cannot say.

        A stopword of the tokenizer has no term id and counts as common.
        """
        if self.sparse is None:
            return None
        key = (scope_key(), term, source)
        if key not in self._counts:
            indices, _ = self.sparse.embed_query(term)
            if not indices:
                self._counts[key] = COUNT_CAP
            else:
                flt = None if source is None else source_filter(source)
                with self.collection.opened():
                    found = self.collection.search(sparse=(list(indices), [1.0] * len(indices)), flt=flt,
                                                   limit=COUNT_CAP)
                self._counts[key] = len(found)
        return self._counts[key]

    def rarity(self, term: str) -> float | None:
        """The term's inverse document frequency, ``log((N + 1) / (df + 0.5))``; None when unknown."""
        df = self.documents_with(term)
        return None if df is None else math.log((self.size + 1) / (df + 0.5))
