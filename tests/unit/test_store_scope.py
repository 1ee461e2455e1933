"""The store's reader scope: a mandatory filter that follows the calling context, not the shared collection."""

from __future__ import annotations

import threading

from ragwire.store.filters import Cond, Filter
from ragwire.store.scope import reader_scope, scope_key, scoped


def _gate(flt: Filter | None) -> Filter:
    gate = Filter(must=[Cond("metadata.access", any_of=("hr",))])
    return gate if flt is None else Filter(must=[gate, flt])


def test_outside_a_scope_a_filter_passes_unchanged():
    user = Filter(must=[Cond("metadata.year", value=2024)])
    assert scoped(user) is user
    assert scoped(None) is None
    assert scope_key() is None


def test_inside_a_scope_every_filter_is_composed_and_the_scope_ends_with_the_block():
    user = Filter(must=[Cond("metadata.year", value=2024)])
    with reader_scope(("hr",), _gate):
        assert scoped(None) == _gate(None)
        assert scoped(user) == Filter(must=[_gate(None), user])
        assert scope_key() == ("hr",)
    assert scoped(None) is None


def test_a_scope_set_in_one_thread_does_not_reach_another():
    seen: list[Filter | None] = []
    with reader_scope(("hr",), _gate):
        other = threading.Thread(target=lambda: seen.append(scoped(None)))
        other.start()
        other.join()
    assert seen == [None]
