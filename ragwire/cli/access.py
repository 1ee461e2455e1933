"""``ragwire token`` (add, list, revoke: the servers' principals) and ``ragwire audit`` (read the audit log)."""

from __future__ import annotations

import json
from typing import Any

import click

from .errors import handle_errors
from .options import config_option, json_option
from .output import echo_json


def _access(config: str) -> Any:
    from ..config import load_config

    return load_config(config).access


@click.group()
def token() -> None:
    """Bearer tokens of the servers, one per principal (docs/security.md); only their hashes are kept."""


@token.command("add")
@click.argument("name")
@click.option("--groups", default="", metavar="LIST", help="Groups, comma-separated (hr,eng): the labels it may read.")
@click.option("--role", type=click.Choice(["reader", "writer"]), default="reader", show_default=True,
              help="writer: may also upload and delete through the server.")
@config_option
@handle_errors
def token_add(name: str, groups: str, role: str, config: str) -> None:
    """Make a token for NAME and print it once (only its hash is stored)."""
    from ..access import TokenFile

    tokens = TokenFile(_access(config).tokens_file)
    made = tokens.add(name, groups, role)  # type: ignore[arg-type]
    click.echo(made)
    click.echo(f"{name}: token stored as a hash in {tokens.path}; it is not shown again", err=True)


@token.command("list")
@config_option
@json_option("Print the principals as JSON.")
@handle_errors
def token_list(config: str, as_json: bool) -> None:
    """Every principal with a token: name, role, groups, when made (never the token)."""
    from ..access import TokenFile

    rows = [{k: v for k, v in e.items() if k != "hash"} for e in TokenFile(_access(config).tokens_file).entries()]
    if as_json:
        echo_json(rows)
        return
    for row in rows:
        click.echo(f"{row['name']}  {row['role']}  {','.join(row['groups']) or '-'}  {row.get('created', '')}")


@token.command("revoke")
@click.argument("name")
@config_option
@handle_errors
def token_revoke(name: str, config: str) -> None:
    """Remove NAME's token; a running server refuses it from its next request."""
    from ..access import TokenFile

    if not TokenFile(_access(config).tokens_file).revoke(name):
        raise click.ClickException(f"{name} has no token (ragwire token list shows who has)")
    click.echo(f"{name}: token revoked")


@click.command()
@config_option
@click.option("--principal", default=None, help="Only this principal's requests.")
@click.option("--route", default=None, help="Only this route or tool (POST /api/query, search_documents).")
@click.option("--source", default=None, help="Only requests that returned this source.")
@click.option("--since", default=None, metavar="TIME", help="Only from this ISO time on (2026-12-04, 2026-12-04T10:00).")
@json_option("Print each record as one JSON line, as stored.")
@handle_errors
def audit(config: str, principal: str | None, route: str | None, source: str | None, since: str | None,
          as_json: bool) -> None:
    """Print the servers' audit log (oldest first), filtered."""
    from ..access import read_log

    for rec in read_log(_access(config).audit.path, principal=principal, route=route, source=source, since=since):
        if as_json:
            click.echo(json.dumps(rec, ensure_ascii=False))
            continue
        asked = rec.get("query") or (f"sha256:{rec['query_sha256'][:12]}" if rec.get("query_sha256") else "")
        click.echo(f"{rec.get('time')}  {rec.get('principal')}  {rec.get('route')}  {rec.get('status', '')}  "
                   f"{asked}  {', '.join(rec.get('sources', []))}".rstrip())
