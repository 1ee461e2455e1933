"""The mandatory filter of a principal and the one function that puts it around a user's filter.

Everything a principal reads goes through :func:`compose`: the store applies it to every
read made inside :func:`acting_as` (:mod:`ragwire.store.scope`).
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from ..store.filters import Cond, Filter, meta_path
from ..store.scope import reader_scope
from .labels import ACCESS_FIELD
from .principal import EVERYONE, Principal


def mandatory(principal: Principal) -> Filter | None:
    """Chunks whose labels include one the principal may read; None for an unrestricted principal.

    A chunk stored without labels (``access.default: deny``, or stored before labels
    existed) matches nothing here.
    """
    if principal.unrestricted:
        return None
    return Filter(must=[Cond(meta_path(ACCESS_FIELD), any_of=tuple(sorted(principal.readable)))])


def compose(principal: Principal, user: Filter | None) -> Filter | None:
    """The principal's mandatory filter AND the user's, the user's kept whole one level down.

    The user's filter is one ``must`` item of the result: its ``should`` and ``must_not``
    (and any condition on the access field itself) narrow what it matches but can never
    add a point the mandatory filter leaves out.
    """
    gate = mandatory(principal)
    if gate is None:
        return user
    if user is None:
        return gate
    return Filter(must=[*gate.must, user])


@contextlib.contextmanager
def acting_as(principal: Principal | None) -> Iterator[Principal]:
    """Every read of the collection inside the block is made as ``principal`` (None: unrestricted).

    The scope follows the calling context: asyncio tasks and ``asyncio.to_thread`` carry
    it, a bare ``threading.Thread`` does not (start it with ``contextvars.copy_context().run``).
    """
    who = principal or EVERYONE
    if who.unrestricted:
        yield who
        return
    key = ("access", tuple(sorted(who.readable)))
    with reader_scope(key, lambda flt: compose(who, flt)):
        yield who
