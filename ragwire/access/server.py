"""Principals for the servers (``ragwire serve``, ``ragwire mcp serve --transport http``): who a request
is, what it may do, every read made as it, and its audit line.

Two modes.  With a tokens file holding tokens, or ``access.trusted_proxies`` set, each
request's bearer token (or a trusted proxy's headers) names a principal and every read is
filtered to it; the server's own ``--token``, if any, is one more principal that sees
everything.  Otherwise the server's one token, or none on loopback, is the one principal
that sees everything (what ragwire did before access control).
"""

from __future__ import annotations

import hmac
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, MutableMapping

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

    from ..config.access import AccessConfig
    from ..server.security import ServerPolicy

from ..server.asgi import ASGIApp, Message, Receive, Send
from .audit import AuditLog
from .gate import acting_as
from .principal import EVERYONE, Principal
from .proxy import ProxyRefused, proxy_principal
from .recorder import reset_record, set_record
from .tokens import TokenFile

log = logging.getLogger(__name__)

# Where the guard leaves a request's principal and audit record for the layers below it
# (the MCP server reads them from the request its tool call came with).
PRINCIPAL_KEY = "ragwire.principal"
RECORD_KEY = "ragwire.audit"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# POSTs that only read.
READ_POSTS = frozenset({"/api/query", "/api/chat", "/api/retrieve", "/mcp", "/mcp/"})
# GETs that show other principals' writes (an upload's file names).
WRITER_READS = ("/api/jobs",)


class ServerAccess:
    """How one server tells principals apart, from the config's ``access:`` section.

    Args:
        access: The ``access:`` section.
        server_token: The server's ``--token`` (or its environment variable), if any.
    """

    def __init__(self, access: AccessConfig, server_token: str | None = None) -> None:
        self.tokens = TokenFile(access.tokens_file)
        self.trusted = list(access.trusted_proxies)
        self.user_header, self.groups_header = access.user_header, access.groups_header
        self.server_token = server_token
        self.audit = AuditLog.from_config(access.audit)
        self.enforcing = bool(self.tokens.entries()) or bool(self.trusted)

    def describe(self, note: str) -> str:
        """The startup line's access note: the bind policy's ``note``, or the principals when enforcing."""
        if not self.enforcing:
            return note
        parts = [f"bearer token of one of {len(self.tokens.entries())} principals ({self.tokens.path})"]
        if self.trusted:
            parts.append(f"or proxy headers from {', '.join(self.trusted)}")
        return " ".join(parts)

    def policy(self, policy: ServerPolicy) -> ServerPolicy:
        """The bind policy the ServerGuard applies: without its one token when enforcing (tokens are checked here)."""
        import dataclasses

        return dataclasses.replace(policy, token=None) if self.enforcing else policy

    def identify(self, headers: dict[str, str], client: str | None) -> Principal:
        """The principal of a request.

        Raises:
            PermissionError: no credentials, an unknown token, or proxy headers from an untrusted address
                (its message is the response's).
        """
        if not self.enforcing:
            return EVERYONE  # the ServerGuard has checked the one token
        try:
            proxied = proxy_principal(headers, client, self.trusted, user_header=self.user_header,
                                      groups_header=self.groups_header)
        except ProxyRefused as exc:
            raise PermissionError(str(exc)) from None
        if proxied is not None:
            return proxied
        scheme, _, given = (headers.get("authorization") or "").strip().partition(" ")
        given = given.strip()
        if scheme.lower() != "bearer" or not given:
            raise PermissionError("unauthorized: send Authorization: Bearer <token>")
        if self.server_token is not None and hmac.compare_digest(given.encode(), self.server_token.encode()):
            return EVERYONE
        found = self.tokens.principal(given)
        if found is None:
            raise PermissionError("token not accepted: check the token you were given")
        return found

    def wrap(self, app: ASGIApp, public_paths: Iterable[str] = ()) -> AccessGuard:
        """``app`` behind the access guard (put it outside :class:`ragwire.server.security.ServerGuard`)."""
        return AccessGuard(app, self, tuple(public_paths))


def _is_write(method: str, path: str) -> bool:
    if path.startswith(WRITER_READS):
        return True
    return method not in SAFE_METHODS and path not in READ_POSTS


class AccessGuard:
    """ASGI middleware: the request's principal (401/403 when there is none), the writer role for
    writes, every read made as the principal, and one audit line per request."""

    def __init__(self, app: ASGIApp, access: ServerAccess, public_paths: tuple[str, ...]) -> None:
        self.app = app
        self.access = access
        self.public_paths = public_paths

    def _public(self, path: str) -> bool:
        if "/." in path or "\\" in path:
            return False
        return any(path.startswith(p[:-1]) if p.endswith("/*") else path == p for p in self.public_paths)

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self._public(str(scope.get("path") or "")):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
        client = (scope.get("client") or (None,))[0]
        method, path = str(scope.get("method") or "GET").upper(), str(scope.get("path") or "")
        try:
            principal = self.access.identify(headers, client)
        except PermissionError as exc:
            await self._refuse(scope, send, 401 if "token" in str(exc) else 403, str(exc))
            self._audit(Principal(name="-"), method, path, {}, 401 if "token" in str(exc) else 403)
            return
        if _is_write(method, path) and not principal.can_write:
            await self._refuse(scope, send, 403, f"{principal.name} is a reader: uploads, deletes and jobs need "
                                                  "a writer token (ragwire token add NAME --role writer)")
            self._audit(principal, method, path, {}, 403)
            return
        record: dict[str, Any] = {}
        scope[PRINCIPAL_KEY], scope[RECORD_KEY] = principal, record
        status: list[int] = []

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            await send(message)

        token = set_record(record)
        try:
            with acting_as(principal):
                await self.app(scope, receive, sending)
        finally:
            reset_record(token)
            self._audit(principal, method, path, record, status[0] if status else None)

    async def _refuse(self, scope: MutableMapping[str, Any], send: Send, status: int, message: str) -> None:
        log.info("refused a request to %s: %s", scope.get("path"), message)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps({"error": message}).encode()
        extra = [(b"www-authenticate", b"Bearer")] if status == 401 else []
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]})
        await send({"type": "http.response.body", "body": body})

    def _audit(self, principal: Principal, method: str, path: str, record: dict[str, Any],
               status: int | None) -> None:
        if self.access.audit is None:
            return
        if status == 401:  # the ServerGuard below refused the one token: nobody was identified
            principal = Principal(name="-")
        route = record.get("tool") or f"{method} {path}"
        try:
            self.access.audit.record(principal, route, query=record.get("query_text"), filters=record.get("filters"),
                                     sources=record.get("sources", ()), status=status,
                                     **({"reads": record["reads"]} if record.get("reads") else {}))
        except OSError as exc:  # a full disk must not take the answer away; the log says it
            log.error("audit log %s: %s", self.access.audit.path, exc)


def mcp_principal(context: Context[Any, Any] | None) -> tuple[Principal | None, dict[str, Any] | None]:
    """The principal and audit record the guard left on the HTTP request an MCP tool call came with."""
    if context is None:
        return None, None
    try:
        request = context.request_context.request
    except (AttributeError, ValueError):  # no context, or one made outside a request (stdio, a test)
        return None, None
    scope = getattr(request, "scope", None)
    if not isinstance(scope, dict):
        return None, None
    return scope.get(PRINCIPAL_KEY), scope.get(RECORD_KEY)




def server_access(config_path: str | Path, rag: object, server_token: str | None = None) -> ServerAccess:
    """The :class:`ServerAccess` of the config a server serves (``rag``'s when it is a ready pipeline)."""
    config = getattr(rag, "config", None)
    if config is None:
        from ..config import load_config

        config = load_config(config_path)
    return ServerAccess(config.access, server_token)


__all__ = ["AccessGuard", "ServerAccess", "mcp_principal", "server_access"]
