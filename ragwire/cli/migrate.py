"""``ragwire migrate``: copy the collection to another engine or place, without re-embedding."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import StoreLockedError
from ..server.handover import handover_if_owned
from .app import open_rag
from .errors import EXIT_LOCKED, EXIT_PARTIAL, handle_errors
from .options import config_option, json_option
from .output import echo_json


@click.command()
@config_option
@click.option("--to-config", "to_config", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The config.yaml whose vectorstore section names the target (a server url, a folder).")
@click.option("--batch-size", type=click.IntRange(min=1), default=256, show_default=True,
              help="Points per read and per write.")
@click.option("--restart", is_flag=True, help="Copy everything again instead of resuming an interrupted run.")
@click.option("--verify-queries", type=click.IntRange(min=0), default=10, show_default=True,
              help="Stored chunks searched in both collections; their top 5 must be the same.")
@json_option("Print the MigrateStats as JSON.")
@handle_errors(codes={StoreLockedError: EXIT_LOCKED})
def migrate(config: str, to_config: Path, batch_size: int, restart: bool, verify_queries: int, as_json: bool) -> None:
    """Copy the collection to the one --to-config names; vectors are copied, never re-embedded.

    Re-running after an interruption resumes.  Exits 4 when the check finds the copy differs,
    5 when either collection is being written by another run.
    """
    rag = handover_if_owned(open_rag(config))  # a serving process that owns the store runs it
    stats = rag.migrate(to_config, batch_size=batch_size, restart=restart, verify_queries=verify_queries,
                        progress=sys.stderr.isatty())
    if as_json:
        echo_json(stats.to_dict())
    else:
        click.echo(stats.summary())
    for problem in stats.problems:
        click.echo(f"  differs: {problem}", err=True)
    if not stats.ok:
        sys.exit(EXIT_PARTIAL)
