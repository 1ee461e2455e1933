"""Options every command group shares, and the parsing of ``--filter`` and of QUESTION / QUERY."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import click

from ..server.security import ALLOW_UNAUTHENTICATED_FLAG, ALLOWED_HOST_FLAG, DEFAULT_HOST, TOKEN_FLAG

CONFIG_HELP = "Path to config.yaml (default: ./config.yaml)."
FILTER_HELP = "key=value (repeat a key for any of), key>=N, key<=N, key>N, key<N; repeatable."
SEARCH_TYPES = ["similarity", "mmr", "hybrid", "keyword"]

_FILTER = re.compile(r"^(?P<key>[^<>=]*)(?P<op>>=|<=|>|<|=)(?P<value>.*)$", re.DOTALL)
_RANGE_OPS = {">=": "gte", "<=": "lte", ">": "gt", "<": "lt"}
_FILTER_FORMS = "write key=value, key>=N, key<=N, key>N or key<N"


def config_option(fn: Callable) -> Callable:
    """``--config`` / ``-c``: the config.yaml a command opens."""
    return click.option("--config", "-c", default="config.yaml", show_default=True, help=CONFIG_HELP)(fn)


def json_option(help: str) -> Callable[[Callable], Callable]:
    """``--json``: machine-readable output, passed to the command as ``as_json``."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def filter_option(fn: Callable) -> Callable:
    """``--filter`` / ``-f``, repeatable; parse the values with :func:`parse_filters`."""
    return click.option("--filter", "-f", "filters", multiple=True, help=FILTER_HELP)(fn)


def search_type_option(fn: Callable) -> Callable:
    """``--search-type``: overrides ``retriever.search_type``."""
    return click.option("--search-type", type=click.Choice(SEARCH_TYPES), default=None,
                        help="Override retriever.search_type.")(fn)


def server_options(token_env: str, *, prefix: str = "") -> Callable[[Callable], Callable]:
    """``--host``, ``--token``, ``--allowed-host`` and ``--allow-unauthenticated``: who may reach an
    HTTP server, worded once for every server (the rules are :mod:`ragwire.server.security`'s).

    Args:
        token_env: The environment variable the token defaults to.
        prefix: Put before each help text (``"http: "`` where only one transport uses them).
    """
    options = [
        click.option("--host", default=DEFAULT_HOST, show_default=True,
                     help=f"{prefix}Interface to bind; the default accepts this machine only. Any other "
                          f"needs a token or {ALLOW_UNAUTHENTICATED_FLAG}."),
        click.option(TOKEN_FLAG, "token", default=None,
                     help=f"{prefix}Require Authorization: Bearer TOKEN (default: ${token_env}); an empty "
                          "token is refused."),
        click.option(ALLOWED_HOST_FLAG, "allowed_hosts", multiple=True, metavar="NAME[:PORT]",
                     help=f"{prefix}Another host name clients reach the server by (Host/Origin allow-list); "
                          "repeatable."),
        click.option(ALLOW_UNAUTHENTICATED_FLAG, "allow_unauthenticated", is_flag=True,
                     help=f"{prefix}Serve a --host other than loopback without a token (only behind "
                          "something that authenticates)."),
    ]

    def apply(fn: Callable) -> Callable:
        for option in reversed(options):
            fn = option(fn)
        return fn

    return apply


def _bad_filter(item: str, problem: str) -> click.BadParameter:
    return click.BadParameter(f"{item!r}: {problem}", param_hint="--filter")


def parse_filters(items: tuple[str, ...]) -> dict[str, Any] | None:
    """``key=value`` (repeat a key for any-of); ``key>=N``, ``key<=N``, ``key>N``, ``key<N`` for ranges.

    Equality values stay text: the search converts each to the type its field is stored
    as, so ``0012`` can match a string and ``2024`` an integer.

    Raises:
        click.BadParameter: an item with no operator, an empty key or value, a bound that
            is not a number, a bound given twice, or equality and a range on one key.
    """
    filters: dict[str, Any] = {}
    for item in items:
        match = _FILTER.match(item)
        if match is None:
            raise _bad_filter(item, _FILTER_FORMS)
        key, op, value = match["key"].strip(), match["op"], match["value"].strip()
        if not key:
            raise _bad_filter(item, f"the key is empty ({_FILTER_FORMS})")
        if not value:
            raise _bad_filter(item, f"the value is empty ({_FILTER_FORMS})")
        previous = filters.get(key)
        if previous is not None and (op == "=") == isinstance(previous, dict):
            raise _bad_filter(item, f"{key} has both an equality and a range filter (use one or the other)")
        if op == "=":
            # a repeated key collects its values into an any-of list
            earlier = [] if previous is None else [previous] if isinstance(previous, str) else previous
            filters[key] = [*earlier, value] if earlier else value
            continue
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            raise _bad_filter(item, f"{value!r} is not a number (a range bound must be a number)")
        bounds = filters.setdefault(key, {})
        if _RANGE_OPS[op] in bounds:
            raise _bad_filter(item, f"{key}{op} is given twice (keep one)")
        bounds[_RANGE_OPS[op]] = int(number) if re.fullmatch(r"[+-]?\d+", value) else number
    return filters or None


def require_text(value: str, name: str, what: str) -> None:
    """An empty or blank QUESTION / QUERY is a usage error (exit 2), not a search for nothing."""
    if not value.strip():
        raise click.BadParameter(f"is empty: write {what} in quotes", param_hint=name)
