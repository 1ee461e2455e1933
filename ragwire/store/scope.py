"""A mandatory filter for every read of the calling context (one request, one task, one thread).

The store knows nothing of who reads: :mod:`ragwire.access` puts its composing function
here for the length of a call, and :meth:`ragwire.store.Collection.reader_filter`, which
every read path goes through, applies it.  A context variable, not an attribute of the
shared collection: one server process reads for many principals at once.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Callable, Hashable, Iterator

from .filters import Filter

Compose = Callable[[Filter | None], Filter | None]

_SCOPE: ContextVar[tuple[Hashable, Compose] | None] = ContextVar("ragwire_reader_scope", default=None)


@contextlib.contextmanager
def reader_scope(key: Hashable, compose: Compose) -> Iterator[None]:
    """Every read inside the block sees ``compose(its filter)``; ``key`` names the scope for caches."""
    token = _SCOPE.set((key, compose))
    try:
        yield
    finally:
        _SCOPE.reset(token)


def scoped(flt: Filter | None) -> Filter | None:
    """``flt`` as the current scope composes it; unchanged outside any scope."""
    scope = _SCOPE.get()
    return flt if scope is None else scope[1](flt)


def scope_key() -> Hashable | None:
    """What a cache of read results must be keyed by: None outside any scope."""
    scope = _SCOPE.get()
    return None if scope is None else scope[0]
