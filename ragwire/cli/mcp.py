"""``ragwire mcp serve``: the collection as MCP tools, over stdio or streamable HTTP."""

from __future__ import annotations

from typing import Literal

import click

from ..errors import MissingDependencyError
from .app import open_rag
from .errors import handle_errors
from .options import config_option, server_options


@click.group()
def mcp() -> None:
    """Serve the collection to AI agents over MCP (needs: pip install "ragwire[mcp]")."""


@mcp.command("serve")
@config_option
@click.option("--name", default="ragwire", show_default=True, help="Server name the MCP client shows.")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio: the client starts this command; http: streamable HTTP at http://HOST:PORT/mcp.")
@server_options("RAGWIRE_MCP_TOKEN", prefix="http: ")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="Port for http.")
@handle_errors
def mcp_serve(config: str, name: str, transport: Literal["stdio", "http"], host: str, port: int, token: str | None,
              allowed_hosts: tuple[str, ...], allow_unauthenticated: bool) -> None:
    """Run the MCP server with the tools search_documents, answer_question, get_filter_context, collection_stats.

    Over http, a --host other than loopback needs a token (docs/security.md)."""
    from ..mcp import serve

    if transport == "stdio":
        # an exported RAGWIRE_MCP_TOKEN does not concern a stdio server; a flag for http does
        given = {"--token": token is not None, "--allowed-host": bool(allowed_hosts),
                 "--allow-unauthenticated": allow_unauthenticated}
        if any(given.values()):
            raise click.UsageError(f"{next(f for f, on in given.items() if on)} concerns --transport http only")
    try:
        import mcp.server.mcpserver  # noqa: F401 - checked before the collection is opened
    except ImportError as exc:
        raise MissingDependencyError("ragwire mcp serve", "the mcp package", "mcp") from exc
    # The collection opens (and the model loads) only after the bind and token checks pass.
    serve(config, name=name, transport=transport, host=host, port=port, token=token,
          allowed_hosts=allowed_hosts, allow_unauthenticated=allow_unauthenticated, rag=lambda: open_rag(config))
