"""``ragwire serve``: the checks of :mod:`ragwire.server.security`, the socket, then uvicorn."""

from __future__ import annotations

import logging
import re
import sys
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ragwire.errors import ConfigError

if TYPE_CHECKING:
    from ragwire import RAGWire
    from ragwire.server.security import ServerGuard, ServerPolicy

    from .service import Service

log = logging.getLogger(__name__)

TOKEN_ENV = "RAGWIRE_SERVER_TOKEN"
INSTALL_HINT = 'The web server needs FastAPI and uvicorn. Install them with: pip install "ragwire[server]"'
# What the page needs without a token: its HTML, scripts and styles (no data), and the API's description.
PUBLIC_PATHS = ("/", "/static/*", "/docs", "/docs/oauth2-redirect", "/openapi.json")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|hr|d)?\s*$", re.IGNORECASE)
_UNIT_S = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600, "d": 86400}
MCP_PATH = "/mcp"
# An MCP endpoint to mount: its ASGI app, and the context that must run while it serves.
McpEndpoint = tuple[Any, Callable[[], AbstractAsyncContextManager[object]]]


def parse_duration(text: str) -> float:
    """Seconds of ``30s``, ``10m``, ``1.5h``, ``1d`` (a bare number is seconds).

    Raises:
        ConfigError: not a duration, or under 1 second.
    """
    match = _DURATION.match(str(text))
    if not match:
        raise ConfigError(f"--sync-every {text!r}: write a duration such as 30s, 10m, 1h or 1d")
    seconds = float(match.group(1)) * _UNIT_S[(match.group(2) or "s").lower()]
    if seconds < 1:
        raise ConfigError(f"--sync-every {text!r}: sync at most once a second")
    return seconds


def check_installed() -> None:
    """Raises ImportError with the install command when FastAPI or uvicorn is missing."""
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc


def build_asgi(service: Service, policy: ServerPolicy, mcp: McpEndpoint | None = None) -> ServerGuard:
    """The app of :func:`ragwire.web.api.create_app` behind the shared :class:`ServerGuard`.

    ``mcp``: an MCP endpoint (its app and what runs while it serves) mounted at ``/mcp``,
    behind the same guard.
    """
    from ragwire.server.security import ServerGuard

    from .api import create_app

    app: Any = create_app(service)
    if mcp is not None:
        from ragwire.server.mount import Mounted

        app = Mounted(app, MCP_PATH, *mcp)
    return ServerGuard(app, policy, public_paths=PUBLIC_PATHS)


def serve(config_path: str | Path = "config.yaml", *, host: str = "127.0.0.1", port: int = 8080,
          token: str | None = None, allowed_hosts: Iterable[str] = (), allow_unauthenticated: bool = False,
          sync_every: str | float | None = None, upload_dir: str | Path | None = None,
          max_upload_mb: float | None = None, upload_into_sources: bool = False,
          rag: RAGWire | Callable[[], RAGWire] | None = None,
          on_ready: Callable[[str], None] | None = None,
          mcp: Callable[..., McpEndpoint] | None = None) -> None:
    """Serve the API and the page for ``config_path`` until stopped.

    The rules of :mod:`ragwire.server.security` are checked before the collection opens:
    a bind other than loopback needs a token (or ``allow_unauthenticated``), an empty
    token is refused, and every request's Host and Origin must be on the allow-list.

    Args:
        config_path: Path to ``config.yaml``.
        host: Interface to bind; the default accepts local connections only.
        port: Port to listen on.
        token: Every API request needs ``Authorization: Bearer <token>``; when None,
            ``$RAGWIRE_SERVER_TOKEN`` is used if set.
        allowed_hosts: More names clients reach the server by (``name`` or ``name:port``).
        allow_unauthenticated: Serve a non-loopback ``host`` without a token.
        sync_every: Run the configured sync this often (``10m``, or seconds), in this process.
        upload_dir: Folder uploads are written to and ingested from; None: uploads off.
        max_upload_mb: The largest upload (default 20 MB).
        upload_into_sources: Allow ``upload_dir`` to overlap a local folder the config syncs
            (refused at start otherwise: an upload could replace a synced file).
        rag: A ready :class:`~ragwire.RAGWire`, or a function returning one (called after the checks).
        on_ready: Called with the URL once the socket is bound (default: print it to stderr).
        mcp: Serve MCP at ``/mcp`` too: called with the pipeline and ``host=``, ``require_principal=``
            (:func:`ragwire.mcp.server.http_endpoint`), so one process answers both and owns the store once.

    Raises:
        ImportError: FastAPI or uvicorn is not installed.
        ServerError: a setting the rules refuse, the port is taken, or the upload folder is a synced one.
        ConfigError: a malformed ``sync_every``.
    """
    from ragwire.server.listen import bind_socket
    from ragwire.server.security import access_note, server_policy

    check_installed()
    every = parse_duration(str(sync_every)) if sync_every is not None else None
    from ragwire.access.server import server_access

    access = server_access(config_path, rag if rag is not None and not callable(rag) else None)
    # With principals (a tokens file, trusted proxies) the access guard asks every request for one.
    policy = server_policy(host, token_flag=token, token_env=TOKEN_ENV, allowed_hosts=allowed_hosts,
                           allow_unauthenticated=allow_unauthenticated or access.enforcing)
    access.server_token, policy = policy.token, access.policy(policy)
    sock = bind_socket(host, port)
    try:
        import uvicorn

        from ragwire.access.recorder import recording

        from .service import DEFAULT_MAX_UPLOAD_MB, Service

        if rag is None:
            from ragwire import RAGWire

            pipeline = RAGWire(config_path)
        else:
            pipeline = rag() if callable(rag) else rag
        service = Service(recording(pipeline), upload_dir=upload_dir, upload_into_sources=upload_into_sources,
                          max_upload_mb=DEFAULT_MAX_UPLOAD_MB if max_upload_mb is None else max_upload_mb)
        endpoint = mcp(service.rag, host=host, require_principal=access.enforcing) if mcp is not None else None
        app = access.wrap(build_asgi(service, policy, endpoint), PUBLIC_PATHS)
        from ragwire.server.owner import OwnerChannel

        # This process owns the store from now on: CLI writers hand their runs to its writer.
        channel = OwnerChannel(service.rag, service.writer)
        channel.start()
        if every is not None:
            service.sync_every(every)
        sock.listen(2048)  # connections wait in the backlog from now on, so the URL printed below works at once
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{sock.getsockname()[1]}/"
        message = f"ragwire serve on {url} ({access.describe(access_note(host, policy))})"
        if endpoint is not None:
            message += f"; MCP at {url.rstrip('/')}{MCP_PATH}"
        if on_ready is not None:
            on_ready(message)
        else:
            print(message, file=sys.stderr, flush=True)
        try:
            uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2)).run(sockets=[sock])
        finally:
            channel.stop()
            service.stop()
    finally:
        sock.close()
