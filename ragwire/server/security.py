"""Who may reach a ragwire HTTP server: the bind policy, the bearer token, the Host/Origin allow-list.

Every HTTP server of the project (``ragwire serve`` and ``ragwire mcp serve --transport http``)
applies the same rules, from here, and takes the same options (``ragwire.cli.options.server_options``):

* a non-loopback bind needs a token, unless the caller says ``allow_unauthenticated``;
* an empty token, from a flag or from the environment, is refused;
* every request's ``Host`` (and ``Origin``, when sent) must be on an allow-list, which
  stops DNS rebinding and cross-site requests from a browser;
* a state-changing request (any method but GET, HEAD, OPTIONS) must come from the server's
  own origin, exactly (scheme, host and port), or carry the token; a read of ``/api``
  sent by another site's page (``Sec-Fetch-Site: cross-site`` or ``same-site``) is refused,
  and every response says ``Cross-Origin-Resource-Policy: same-origin``;
* ``Authorization: Bearer <token>`` is checked with the scheme case-insensitive and the
  token compared in constant time.

Only the standard library is imported: a server wraps its ASGI app in :class:`ServerGuard`.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ragwire.errors import ServerError

from .asgi import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
TOKEN_FLAG = "--token"
ALLOW_UNAUTHENTICATED_FLAG = "--allow-unauthenticated"
ALLOWED_HOST_FLAG = "--allowed-host"
# Host names that always mean this machine; what a local client puts in its Host header.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
_WILDCARD_BINDS = frozenset({"", "0.0.0.0", "::", "*"})
# Methods a browser may send from any page without asking (they must change nothing).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
# What a browser says of a request its own page, or the user (address bar, bookmark), made.
_OWN_FETCH_SITES = (None, "same-origin", "none")


def _bare(host: str) -> str:
    """``host`` lower-cased, without IPv6 brackets or a trailing dot."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host.rstrip(".")


def is_loopback(host: str) -> bool:
    """True when binding ``host`` accepts connections from this machine only.

    ``localhost`` (and ``*.localhost``), every ``127.x.y.z``, ``::1`` and the IPv4-mapped
    ``::ffff:127.0.0.1`` are loopback; ``0.0.0.0``, ``::``, an empty host and any other
    name or address are not.
    """
    bare = _bare(host)
    if bare == "localhost" or bare.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def resolve_token(flag_value: str | None, env_var: str, *, flag: str = TOKEN_FLAG,
                  environ: Mapping[str, str] | None = None) -> str | None:
    """The bearer token from the command-line flag, else from ``env_var``; None when neither is set.

    Args:
        flag_value: What the flag was given, or None when it was not.
        env_var: The environment variable that may hold the token (keeps it out of the process list).
        flag: The flag's name, for the message.
        environ: The environment to read (default: ``os.environ``).

    Raises:
        ServerError: the token given is empty or only whitespace: an empty token
            would otherwise mean "no authentication" without anyone asking for it.
    """
    environ = os.environ if environ is None else environ
    if flag_value is not None:
        value, where = flag_value, flag
    elif env_var in environ:
        value, where = environ[env_var], f"${env_var}"
    else:
        return None
    if not value.strip():
        raise ServerError(
            f"the token in {where} is empty: set a non-empty token (e.g. openssl rand -hex 32), "
            f"or unset {env_var} and drop {flag} to serve on this machine only without one")
    if value != value.strip():
        # a trailing newline from `$(cat token.txt)` would make every client's header wrong
        raise ServerError(f"the token in {where} starts or ends with whitespace: remove it")
    return value


def check_bind(host: str, token: str | None, *, allow_unauthenticated: bool = False,
               token_env: str = "the token variable") -> None:
    """Refuse a bind that would let anyone on the network use the server without a token.

    Args:
        host: The interface to bind.
        token: The resolved token (:func:`resolve_token`), or None.
        allow_unauthenticated: The user said, by its name, that the server may be unauthenticated.
        token_env: The token's environment variable, for the message.

    Raises:
        ServerError: ``host`` is not loopback, there is no token, and
            ``allow_unauthenticated`` is false.
    """
    if token is not None or is_loopback(host):
        return
    if allow_unauthenticated:
        return  # access_note() says so at start-up
    raise ServerError(
        f"refusing to serve on {host or 'every interface'!s} without a token: anyone who can reach it "
        f"could read the collection. Set {token_env} (or {TOKEN_FLAG}), bind to {DEFAULT_HOST}, or pass "
        f"{ALLOW_UNAUTHENTICATED_FLAG} if something in front of the server authenticates")


def _split_host(value: str) -> tuple[str, int | None] | None:
    """``(host, port)`` of a Host header or allow-list entry (``name``, ``name:80``, ``[::1]:80``); None if malformed."""
    value = value.strip()
    if not value or any(c in value for c in "/@?#\\ \t"):
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[1:end], value[end + 1:]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else None
    elif value.count(":") == 1:
        host, port_text = value.split(":")
    elif ":" in value:  # a bare IPv6 address
        host, port_text = value, None
    else:
        host, port_text = value, None
    if port_text is not None:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            return None
        return _bare(host), int(port_text)
    return (_bare(host), None) if host else None


def parse_allowed_host(entry: str) -> tuple[str, int | None]:
    """One allow-list entry: ``name`` (any port) or ``name:port``.

    Raises:
        ServerError: the entry is not a host name or address, with an optional port.
    """
    parsed = _split_host(entry)
    if parsed is None or not parsed[0]:
        raise ServerError(
            f"{ALLOWED_HOST_FLAG} {entry!r}: write a host name or address, optionally with a port "
            "(docs.example.com, 10.0.0.5:8000, [fd00::5])")
    return parsed


def default_allowed_hosts(bind_host: str) -> list[str]:
    """The hosts a request may name when the user lists none: this machine's loopback names,
    and the bound address itself when it is a specific one (not ``0.0.0.0`` or ``::``)."""
    hosts = list(LOOPBACK_HOSTS)
    bare = _bare(bind_host)
    if bare not in _WILDCARD_BINDS and bare not in hosts:
        hosts.append(bare)
    return hosts


@dataclass(frozen=True)
class ServerPolicy:
    """What a server checks on every request: the allowed Host/Origin names and the token (None: no token)."""

    allowed_hosts: tuple[tuple[str, int | None], ...]
    token: str | None = field(default=None, repr=False)

    def host_allowed(self, value: str) -> bool:
        """True when a ``Host`` header (``name[:port]``) names an allowed host."""
        parsed = _split_host(value)
        if parsed is None:
            return False
        host, port = parsed
        return any(host == name and (allowed_port is None or allowed_port == port)
                   for name, allowed_port in self.allowed_hosts)

    def origin_allowed(self, origin: str) -> bool:
        """True when an ``Origin`` header (``scheme://host[:port]``) names an allowed host."""
        try:
            parts = urlsplit(origin.strip())
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False  # `null` (a sandboxed page, a file://) and anything odd
        return self.host_allowed(parts.netloc)

    def token_matches(self, authorization: str | None) -> bool:
        """True when ``Authorization`` is ``Bearer <token>`` (scheme in any case), compared in constant time."""
        if self.token is None:
            return True
        scheme, _, given = (authorization or "").strip().partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(given.strip().encode("utf-8", "surrogateescape"), self.token.encode("utf-8"))


def server_policy(host: str, *, token_flag: str | None, token_env: str, allowed_hosts: Iterable[str] = (),
                  allow_unauthenticated: bool = False, environ: Mapping[str, str] | None = None) -> ServerPolicy:
    """Every rule at once: resolve the token, check the bind, build the allow-list.

    Args:
        host: The interface the server will bind.
        token_flag: The ``--token`` value, or None when not given.
        token_env: The environment variable the token may come from.
        allowed_hosts: Extra Host/Origin names (``name`` or ``name:port``), on top of
            :func:`default_allowed_hosts`.
        allow_unauthenticated: Serve a non-loopback bind without a token.
        environ: The environment to read (default: ``os.environ``).

    Raises:
        ServerError: an empty token, an open bind without a token, a malformed allowed host.
    """
    token = resolve_token(token_flag, token_env, environ=environ)
    extra = [parse_allowed_host(entry) for entry in allowed_hosts]
    check_bind(host, token, allow_unauthenticated=allow_unauthenticated, token_env=token_env)
    allowed = [(name, None) for name in default_allowed_hosts(host)] + extra
    return ServerPolicy(tuple(dict.fromkeys(allowed)), token)


def same_origin(origin: str, host: str | None, scheme: str) -> bool:
    """True when ``origin`` is exactly the origin the request was sent to: same scheme, host and port.

    ``host`` is the request's ``Host`` header and ``scheme`` its scheme (``http``, or what a
    TLS-terminating proxy forwards in ``X-Forwarded-Proto``).  A port left out on either side
    is the scheme's default, so ``http://localhost:8090`` is not ``http://localhost:8081``,
    which the allow-list alone (any port of an allowed name) let through.
    """
    try:
        parts = urlsplit(origin.strip())
        origin_port = parts.port
    except ValueError:
        return False
    parsed = _split_host(host or "")
    scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    if parsed is None or parts.scheme != scheme or not parts.hostname:
        return False
    name, port = parsed
    default = _DEFAULT_PORTS.get(scheme)
    return _bare(parts.hostname) == name and (origin_port or default) == (port or default)


def access_note(host: str, policy: ServerPolicy) -> str:
    """What a server prints after its URL at start-up: who can use it, and which host names it answers."""
    if policy.token is not None:
        note = "bearer token required"
    elif is_loopback(host):
        note = "no token: programs on this machine only"
    else:
        note = f"WARNING: no token ({ALLOW_UNAUTHENTICATED_FLAG}): anyone who can reach it can use it"
    names = ", ".join((f"[{n}]" if ":" in n else n) + (f":{p}" if p else "") for n, p in policy.allowed_hosts)
    return f"{note}; answers requests for {names}"


_CORP = (b"cross-origin-resource-policy", b"same-origin")


def _same_origin_resources(send: Send) -> Send:
    """``send`` with ``Cross-Origin-Resource-Policy: same-origin`` added to the response's headers."""
    async def sending(message: Message) -> None:
        if message.get("type") == "http.response.start":
            headers = list(message.get("headers") or [])
            if not any(key.lower() == _CORP[0] for key, _ in headers):
                message = {**message, "headers": [*headers, _CORP]}
        await send(message)

    return sending


def _header(scope: Mapping[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class ServerGuard:
    """ASGI middleware applying a :class:`ServerPolicy` to every HTTP and WebSocket request.

    A Host not on the allow-list gets ``421``, an Origin not on it ``403``, a missing or
    wrong token ``401``, a state-changing request from another origin without the token
    ``403``, a read of a data path from another site's page ``403``; each with a JSON body
    saying what to change.  Every response says ``Cross-Origin-Resource-Policy:
    same-origin``, so a page of another origin cannot embed one (an ``<img>`` of a
    page image).  Lifespan events pass.
    ``public_paths`` (exact paths, or prefixes written ``/static/*``) need no token, only the
    Host and Origin checks: a web page's own HTML and scripts, which hold no data and
    ask for the token themselves.
    """

    def __init__(self, app: ASGIApp, policy: ServerPolicy, public_paths: Iterable[str] = ()) -> None:
        self.app = app
        self.policy = policy
        self.public_paths = tuple(public_paths)

    def _public(self, path: str) -> bool:
        if "/." in path or "\\" in path:
            return False  # "/static/../api/…" is never public, whatever a router makes of it
        return any(path.startswith(p[:-1]) if p.endswith("/*") else path == p for p in self.public_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, _same_origin_resources(send))
            return
        status, message, extra = refusal
        log.info("refused a request to %s: %s", scope.get("path"), message)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps({"error": message}).encode()
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), _CORP, *extra]})
        await send({"type": "http.response.body", "body": body})

    def refusal(self, scope: Mapping[str, Any]) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
        """``(status, message, extra headers)`` when the request must be refused, else None."""
        host = _header(scope, b"host")
        if host is None or not self.policy.host_allowed(host):
            return 421, (f"host {host!r} is not allowed: start the server with {ALLOWED_HOST_FLAG} NAME "
                         "for each name clients use to reach it"), []
        origin = _header(scope, b"origin")
        if origin is not None and not self.policy.origin_allowed(origin):
            return 403, (f"origin {origin!r} is not allowed: start the server with {ALLOWED_HOST_FLAG} "
                         "for the page's host"), []
        public = self._public(str(scope.get("path") or ""))
        authorization = _header(scope, b"authorization")
        if not public and not self.policy.token_matches(authorization):
            if authorization is None:
                return 401, "unauthorized: send Authorization: Bearer <token>", [(b"www-authenticate", b"Bearer")]
            # sent but wrong: saying so tells the user to fix the token rather than to add one
            return 401, "token not accepted: check the token you were given", [
                (b"www-authenticate", b'Bearer error="invalid_token"')]
        tokened = self.policy.token is not None and self.policy.token_matches(authorization)
        return self._cross_origin_refusal(scope, host, origin, public, tokened)

    def _cross_origin_refusal(self, scope: Mapping[str, Any], host: str, origin: str | None, public: bool,
                              tokened: bool) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
        """A refusal for a request another page sent: a write from another origin, a read from another site."""
        site = _header(scope, b"sec-fetch-site")
        site = site.strip().lower() if site is not None else None
        writes = scope["type"] == "websocket" or str(scope.get("method") or "GET").upper() not in SAFE_METHODS
        if writes and not tokened:
            scheme = (_header(scope, b"x-forwarded-proto") or str(scope.get("scheme") or "http")).strip().lower()
            if origin is not None and not same_origin(origin, host, scheme):
                return 403, (f"origin {origin!r} is not this server's own ({scheme}://{host}): only its own page, "
                             "or a client sending Authorization: Bearer <token>, may change the collection"), []
            if origin is None and site not in _OWN_FETCH_SITES:
                return 403, (f"a {site} page may not change the collection: use this server's own page, "
                             "or send Authorization: Bearer <token>"), []
        if not public and not writes and site not in _OWN_FETCH_SITES:
            # an <img> or a no-cors fetch of another site's page sends no Origin, but says where it came from
            return 403, (f"a {site} page may not read this server's data: open this server's own page "
                         "instead"), []
        return None
