"""One port, two apps: the page and API, and an endpoint beside them (``ragwire serve --mcp`` puts MCP at ``/mcp``).

Both sit behind the same guards (:mod:`ragwire.server.security`, the access guard), so the
endpoint obeys the API's token, Host and Origin rules, and one process owns the store.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Callable

from .asgi import ASGIApp, Receive, Scope, Send


class Mounted:
    """``app``, with requests to ``path`` (and below it) sent to ``endpoint`` instead.

    ``lifespan`` is what the endpoint needs running while the server runs (an MCP
    server's session manager); it is entered around ``app``'s own lifespan.
    """

    def __init__(self, app: ASGIApp, path: str, endpoint: ASGIApp,
                 lifespan: Callable[[], AbstractAsyncContextManager[object]]) -> None:
        self.app = app
        self.path = path.rstrip("/")
        self.endpoint = endpoint
        self.lifespan = lifespan

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            async with self.lifespan():
                await self.app(scope, receive, send)
            return
        path = str(scope.get("path") or "")
        if path == self.path or path.startswith(self.path + "/"):
            await self.endpoint(scope, receive, send)
            return
        await self.app(scope, receive, send)
