"""``ragwire stats`` (size and settings) and ``ragwire fields`` (what you can filter on)."""

from __future__ import annotations

import click

from .app import open_rag
from .errors import handle_errors
from .options import config_option, json_option
from .output import echo_json


@click.command()
@config_option
@json_option("Print as JSON.")
@handle_errors
def stats(config: str, as_json: bool) -> None:
    """Show the collection's size and settings."""
    info = open_rag(config).get_stats()
    if as_json:
        echo_json(info)
        return
    for key, value in info.items():
        click.echo(f"{key}: {value}")


@click.command()
@config_option
@click.option("--values", "show_values", is_flag=True, help="Also list each field's most frequent values.")
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True, help="Values per field.")
@json_option("Print as JSON.")
@handle_errors
def fields(config: str, show_values: bool, limit: int, as_json: bool) -> None:
    """List the metadata fields you can filter on."""
    rag = open_rag(config)
    names = rag.filter_fields
    found = rag.get_field_values(names, limit=limit) if (show_values or as_json) and names else {}
    values = found if isinstance(found, dict) else {}  # a list of names gives a dict
    if as_json:
        echo_json({"fields": names, "values": values}, default=str)
        return
    if not names:
        click.echo("no filterable fields (is the collection empty? run `ragwire ingest` first)")
        return
    for name in names:
        shown = ", ".join(str(v) for v in values.get(name, [])) if show_values else ""
        click.echo(f"{name}: {shown}" if show_values else name)
