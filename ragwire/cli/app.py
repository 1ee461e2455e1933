"""The ``ragwire`` group itself (``--version``, ``--debug``) and the opening of a configured collection."""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING

import click

from .. import __version__

if TYPE_CHECKING:
    from ..pipeline import RAGWire


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ragwire")
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
def main(debug: bool) -> None:
    """ragwire: documents in, a searchable Qdrant knowledge base out; one config.yaml wires the pipeline."""


def open_rag(config: str) -> RAGWire:
    """A :class:`RAGWire` for ``config``, with logging set up from its ``logging`` section."""
    from ..logs import quiet_reported_lines, setup_colored_logging, setup_logging
    from ..pipeline import RAGWire

    rag = RAGWire(config)
    # pypdf warns about damaged files through logging; ragwire reports them itself, once.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    lg = rag.config.logging
    if lg.colored and sys.stderr.isatty():
        setup_colored_logging(lg.level, str(lg.log_file) if lg.log_file else None)
    else:
        setup_logging(lg.level, str(lg.log_file) if lg.log_file else None, lg.console_output)
    # Commands print their result's warnings, failures and summary themselves: once, not twice.
    quiet_reported_lines()
    return rag
