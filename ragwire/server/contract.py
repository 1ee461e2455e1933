"""The strict request contract every route and MCP tool shares: an unknown key is refused, by name.

A key nobody reads used to be ignored, so ``{"topk": 1}`` quietly returned five results
and ``{"filter": …}`` searched everything.  Each server checks the keys it was sent
against the ones it takes and answers with :func:`unknown_keys`' one line.
Standard library only, like the rest of :mod:`ragwire.server`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ragwire.errors import did_you_mean


def unknown_keys(given: Iterable[str], known: Iterable[str], where: str) -> str | None:
    """One line naming the first key of ``given`` not in ``known``, with a did-you-mean; None when all are known.

    Args:
        given: The keys the caller sent.
        known: The keys ``where`` takes.
        where: What the keys were sent to, for the message (``the body of POST /api/query``).
    """
    known = list(known)
    for key in given:
        if key not in known:
            hint = did_you_mean(key, known) or f" (it takes {', '.join(known) or 'none'})"
            return f"unknown key {key!r} in {where}{hint}"
    return None


def validation_message(errors: Iterable[Any], known: Iterable[str], where: str) -> str:
    """One line for pydantic's validation ``errors`` of a request: an unknown key first, else the first problem.

    Args:
        errors: ``ValidationError.errors()`` (dicts with ``type``, ``loc``, ``msg``).
        known: The keys the body takes (for the did-you-mean).
        where: What was sent, for the message.
    """
    errors = list(errors)
    extra = [str(e["loc"][-1]) for e in errors if e.get("type") == "extra_forbidden" and e.get("loc")]
    if extra:
        return unknown_keys(extra, known, where) or f"unknown key {extra[0]!r} in {where}"
    if not errors:
        return f"{where} is not valid"
    first = errors[0]
    loc = [str(part) for part in first.get("loc", ()) if part not in ("body", "query")]
    field = ".".join(loc) or "the body"
    return f"{field}: {first.get('msg', 'is not valid')} ({where})"
