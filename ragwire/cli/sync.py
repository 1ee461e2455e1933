"""``ragwire sync``: reconcile the collection with the config's sources, with exit codes a scheduler can read."""

from __future__ import annotations

import sys

import click

from ..errors import StoreLockedError
from ..server.handover import handover_if_owned
from .app import open_rag
from .errors import EXIT_LOCKED, EXIT_PARTIAL, handle_errors
from .options import config_option, json_option
from .output import echo_json, extraction_line


@click.command()
@config_option
@click.option("--dry-run", is_flag=True, help="Write, download and delete nothing; report what a run would do.")
@click.option("--no-delete", is_flag=True, help="Keep documents the sources no longer list.")
@click.option("--wait", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="Seconds to wait for another run holding the store (or the collection's writer lease), then exit 5.")
@json_option("Print the full SyncStats as JSON.")
@handle_errors(codes={StoreLockedError: EXIT_LOCKED})
def sync(config: str, dry_run: bool, no_delete: bool, wait: float, as_json: bool) -> None:
    """Reconcile the collection with the config's sources.  Exits 4 on partial failure, 5 when the store is locked."""
    rag = open_rag(config)
    # Set before the store is opened, which reads its timings once (ragwire.store.StoreOptions):
    # the wait covers an embedded store's folder lock and a server collection's writer lease.
    store = rag.config.vectorstore
    store.lock_wait_s = store.write_wait_s = wait
    runner = handover_if_owned(rag)  # a serving process that owns the store runs it
    stats = runner.sync(delete_missing=not no_delete, dry_run=dry_run)
    if as_json:
        echo_json(stats.to_dict())
    for warning in stats.warnings:
        click.echo(f"  warning: {warning}", err=True)
    for error in stats.errors:
        click.echo(f"  failed: {error['file']}: {error['error']}", err=True)
    extraction = extraction_line(stats.metadata_usage.accounting())
    if extraction:
        click.echo(f"  {extraction}", err=True)
    # The last line of stderr is the one-line summary a scheduler's log keeps.
    click.echo(stats.summary(), err=True)
    if stats.partial:
        sys.exit(EXIT_PARTIAL)
