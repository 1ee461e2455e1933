"""``ragwire serve``: the HTTP API and the web page over the collection."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import click

from ..errors import MissingDependencyError
from .app import open_rag
from .errors import handle_errors
from .options import config_option, server_options

if TYPE_CHECKING:
    from ..web.serve import McpEndpoint


@click.command("serve")
@config_option
@server_options("RAGWIRE_SERVER_TOKEN")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True, help="Port (0: any free one).")
@click.option("--sync-every", default=None, metavar="DURATION",
              help="Run the configured sync in this process every DURATION (30s, 10m, 1h).")
@click.option("--upload-dir", type=click.Path(file_okay=False), default=None,
              help="Folder uploads are written to and ingested from (default: uploads off).")
@click.option("--upload-into-sources", is_flag=True,
              help="Allow --upload-dir to be (inside) a folder the config syncs: an upload may then replace a synced file.")
@click.option("--mcp", "with_mcp", is_flag=True,
              help="Also serve the MCP tools at /mcp, on the same port and behind the same token and origin rules.")
@click.option("--max-upload-mb", type=click.FloatRange(min=0.001), default=20.0, show_default=True,
              help="The largest upload accepted.")
@handle_errors
def serve(config: str, host: str, port: int, token: str | None, allowed_hosts: tuple[str, ...],
          allow_unauthenticated: bool, sync_every: str | None, upload_dir: str | None, upload_into_sources: bool,
          max_upload_mb: float, with_mcp: bool) -> None:
    """Serve the HTTP API (/api, OpenAPI at /docs) and the web page (/) for asking, searching and checking citations.

    A --host other than loopback needs a token (docs/server.md)."""
    try:
        import fastapi  # noqa: F401 - checked before the collection is opened
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError("ragwire serve", "FastAPI and uvicorn", "server") from exc
    endpoint: Callable[..., McpEndpoint] | None = None
    if with_mcp:
        try:
            import mcp.server.mcpserver  # noqa: F401 - checked before the collection is opened
        except ImportError as exc:
            raise MissingDependencyError("ragwire serve --mcp", "the mcp package", "mcp") from exc
        from ..mcp.server import http_endpoint

        endpoint = http_endpoint
    from ..web import parse_duration
    from ..web import serve as run

    if sync_every is not None:
        parse_duration(sync_every)  # a typo fails before the model loads
    run(config, host=host, port=port, token=token, allowed_hosts=allowed_hosts,
        allow_unauthenticated=allow_unauthenticated, sync_every=sync_every, upload_dir=upload_dir,
        max_upload_mb=max_upload_mb, upload_into_sources=upload_into_sources, rag=lambda: open_rag(config),
        mcp=endpoint)
