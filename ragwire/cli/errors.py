"""Failures → one ``error:`` line on stderr and an exit code, in one place; ``--debug`` shows the traceback.

Only ragwire's own errors (:class:`~ragwire.errors.RagwireError`) become one line: anything
else is a bug and keeps its traceback.  Click reports usage errors itself (exit 2).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Mapping
from typing import NoReturn, ParamSpec, TypeVar

import click

from ..errors import ConfigError, RagwireError

# Exit status of `ragwire query` when the documents do not answer the question.
EXIT_REFUSED = 3
# Exit status of `ragwire eval` when the golden set does not fit the collection (as a usage error).
EXIT_MISMATCH = 2
# Exit statuses of `ragwire sync` besides 0 (success) and 1 (the run failed):
EXIT_PARTIAL = 4  # some files failed, or a source could not be listed: the collection may lag its sources
EXIT_LOCKED = 5  # another run held the store or its writer lease beyond --wait: nothing was done

_INTERRUPTED = "interrupted; unfinished files are written as pending and redone by the next run"

ExitCodes = Mapping[type[RagwireError], int]


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``."""
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _report(exc: RagwireError) -> NoReturn:
    """Exit 1 with the error's line; a config error with several problems lists them, one a line."""
    if isinstance(exc, ConfigError) and len(exc.problems) > 1:
        click.echo(f"error: {len(exc.problems)} problems in {exc.source}:", err=True)
        for problem in exc.problems:
            click.echo(f"  {exc.source}: {problem}", err=True)
        sys.exit(1)
    fail(" ".join(str(exc).split("\n")))


P = ParamSpec("P")
R = TypeVar("R")


def handle_errors(fn: Callable[P, R] | None = None, *, codes: ExitCodes | None = None) -> Callable:
    """Turn ragwire's errors into `error: …` on stderr and exit 1; --debug shows the traceback.

    Args:
        fn: The command.
        codes: Errors that have an exit code of their own (``{StoreLockedError: EXIT_LOCKED}``):
            an outcome a scheduler tells apart, so printed as one line even with --debug.
    """
    if fn is None:
        return functools.partial(handle_errors, codes=codes)
    own = dict(codes or {})

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | None:
        ctx = click.get_current_context()
        debug = bool(ctx.find_root().params.get("debug"))
        try:
            return fn(*args, **kwargs)
        except RagwireError as exc:
            code = next((c for kind, c in own.items() if isinstance(exc, kind)), None)
            if code is not None:
                fail(" ".join(str(exc).split()), code)
            if debug:
                raise
            _report(exc)
        except KeyboardInterrupt:
            fail(_INTERRUPTED)

    return wrapper
