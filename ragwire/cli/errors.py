"""Failures → one ``error:`` line on stderr and an exit code, in one place; ``--debug`` shows the traceback."""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable

import click

from ..errors import ConfigError, RagwireError

# Exit status of `ragwire query` when the documents do not answer the question.
EXIT_REFUSED = 3
# Exit statuses of `ragwire sync` besides 0 (success) and 1 (the run failed):
EXIT_PARTIAL = 4  # some files failed, or a source could not be listed: the collection may lag its sources
EXIT_LOCKED = 5  # another run held the store or its writer lease beyond --wait: nothing was done


def one_line(message: str) -> str:
    """``message`` with every run of whitespace (newlines too) made one space."""
    return " ".join(message.split())


def fail(message: str, code: int = 1) -> None:
    """Print ``error: message`` on stderr and exit with ``code``."""
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def handle_errors(fn: Callable) -> Callable:
    """Turn library failures into `error: …` on stderr and exit 1; --debug shows the traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        debug = bool(ctx.find_root().params.get("debug"))
        try:
            return fn(*args, **kwargs)
        except (RagwireError, FileNotFoundError, ValueError, ImportError) as exc:
            if debug:
                raise
            if isinstance(exc, ConfigError) and len(exc.problems) > 1:
                click.echo(f"error: {len(exc.problems)} problems in {exc.source}:", err=True)
                for problem in exc.problems:
                    click.echo(f"  {exc.source}: {problem}", err=True)
                sys.exit(1)
            fail(" ".join(str(exc).split("\n")))
        except KeyboardInterrupt:
            fail("interrupted; unfinished files are written as pending and redone by the next run")

    return wrapper
