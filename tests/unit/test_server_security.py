"""ragwire.server.security: the bind policy, token resolution and the ASGI guard every HTTP server shares."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from ragwire.errors import ServerError
from ragwire.server.security import (
    ServerGuard,
    check_bind,
    default_allowed_hosts,
    is_loopback,
    parse_allowed_host,
    resolve_token,
    same_origin,
    server_policy,
)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LocalHost.",
                                  "app.localhost", "::ffff:127.0.0.1"])
def test_loopback_hosts(host):
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "10.0.0.5", "192.168.1.2", "fd00::5", "example.com",
                                  "localhost.example.com", "128.0.0.1"])
def test_hosts_that_are_not_loopback(host):
    assert not is_loopback(host)


def test_a_token_comes_from_the_flag_before_the_environment():
    assert resolve_token("from-flag", "T", environ={"T": "from-env"}) == "from-flag"
    assert resolve_token(None, "T", environ={"T": "from-env"}) == "from-env"
    assert resolve_token(None, "T", environ={}) is None


@pytest.mark.parametrize(("flag", "environ", "message"), [
    # guards: an empty RAGWIRE_MCP_TOKEN meant "no authentication" without a word
    (None, {"T": ""}, r"^the token in \$T is empty: set a non-empty token"),
    (None, {"T": " \t"}, r"^the token in \$T is empty"),
    ("", {}, r"^the token in --token is empty"),
    ("", {"T": "good"}, r"^the token in --token is empty"),
    (None, {"T": "tok\n"}, r"^the token in \$T starts or ends with whitespace"),
])
def test_an_empty_token_from_any_source_is_refused(flag, environ, message):
    with pytest.raises(ServerError, match=message):
        resolve_token(flag, "T", environ=environ)


def test_a_non_loopback_bind_needs_a_token_or_the_explicit_flag():
    with pytest.raises(ServerError, match=r"refusing to serve on 0\.0\.0\.0 without a token.*--allow-unauthenticated"):
        check_bind("0.0.0.0", None)
    with pytest.raises(ServerError, match="refusing to serve on every interface"):
        check_bind("", None)
    check_bind("0.0.0.0", "tok")
    check_bind("0.0.0.0", None, allow_unauthenticated=True)
    check_bind("127.0.0.1", None)
    check_bind("localhost", None)


def test_the_default_allow_list_is_this_machine_and_a_specific_bound_address():
    assert default_allowed_hosts("127.0.0.1") == ["127.0.0.1", "localhost", "::1"]
    assert default_allowed_hosts("0.0.0.0") == ["127.0.0.1", "localhost", "::1"]
    assert default_allowed_hosts("::") == ["127.0.0.1", "localhost", "::1"]
    assert default_allowed_hosts("10.0.0.5") == ["127.0.0.1", "localhost", "::1", "10.0.0.5"]
    assert default_allowed_hosts("[fd00::5]") == ["127.0.0.1", "localhost", "::1", "fd00::5"]


@pytest.mark.parametrize(("entry", "parsed"), [
    ("docs.example.com", ("docs.example.com", None)), ("Docs.Example.COM:8443", ("docs.example.com", 8443)),
    ("10.0.0.5:8000", ("10.0.0.5", 8000)), ("[fd00::5]", ("fd00::5", None)), ("[fd00::5]:80", ("fd00::5", 80)),
])
def test_allowed_host_entries(entry, parsed):
    assert parse_allowed_host(entry) == parsed


@pytest.mark.parametrize("entry", ["", "http://docs.example.com", "docs.example.com/mcp", "a:b", "host:0",
                                   "host:70000", "user@host", "[fd00::5"])
def test_a_malformed_allowed_host_is_refused(entry):
    with pytest.raises(ServerError, match="--allowed-host .*write a host name or address"):
        parse_allowed_host(entry)


POLICY = server_policy("0.0.0.0", token_flag="s3cret", token_env="T", environ={},
                       allowed_hosts=["docs.example.com", "proxy.example.com:443"])


@pytest.mark.parametrize(("host", "allowed"), [
    ("127.0.0.1:8000", True), ("localhost", True), ("LOCALHOST:1", True), ("[::1]:8000", True),
    ("docs.example.com:8000", True), ("proxy.example.com:443", True), ("proxy.example.com:80", False),
    ("evil.example", False), ("evil.example:8000", False), ("docs.example.com.evil.example", False),
    ("", False), ("127.0.0.1:x", False), ("a b", False),
])
def test_host_header_against_the_allow_list(host, allowed):
    assert POLICY.host_allowed(host) is allowed


@pytest.mark.parametrize(("origin", "allowed"), [
    ("http://localhost:8000", True), ("https://docs.example.com", True), ("http://evil.example", False),
    ("null", False), ("file://", False), ("http://docs.example.com.evil.example", False),
])
def test_origin_header_against_the_allow_list(origin, allowed):
    assert POLICY.origin_allowed(origin) is allowed


@pytest.mark.parametrize(("authorization", "ok"), [
    ("Bearer s3cret", True),
    ("bearer s3cret", True),  # guards: the scheme was compared case-sensitively
    ("BEARER s3cret", True), ("Bearer  s3cret ", True),
    ("Bearer wrong", False), ("Bearer s3cret2", False), ("Basic s3cret", False), ("s3cret", False),
    ("Bearer", False), ("", False), (None, False),
])
def test_bearer_token_scheme_is_case_insensitive(authorization, ok):
    assert POLICY.token_matches(authorization) is ok


def test_tokens_are_compared_in_constant_time(monkeypatch):
    import hmac

    from ragwire.server import security

    seen, real = [], hmac.compare_digest
    monkeypatch.setattr(security.hmac, "compare_digest", lambda a, b: seen.append((a, b)) or real(a, b))
    assert POLICY.token_matches("Bearer s3cret")
    assert seen == [(b"s3cret", b"s3cret")]


def call(guard: ServerGuard, headers: dict[str, str], kind: str = "http") -> tuple[int | None, dict, list]:
    """One request through ``guard``: (status, JSON body or {}, what reached the app)."""
    reached, sent = [], []

    async def app(scope, receive, send):
        reached.append(scope["type"])
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"{}"})

    async def send(message):
        sent.append(message)

    scope = {"type": kind, "path": "/mcp", "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    asyncio.run(ServerGuard(app, POLICY)(scope, None, send))
    start = next((m for m in sent if m["type"] == "http.response.start"), None)
    body = next((m["body"] for m in sent if m["type"] == "http.response.body"), b"{}")
    if kind == "websocket" and sent:
        return sent[0].get("code"), {}, reached
    return (start or {}).get("status"), json.loads(body), reached


GOOD = {"Host": "127.0.0.1:8000", "Authorization": "Bearer s3cret"}


def test_guard_passes_an_allowed_request_to_the_app():
    assert call(ServerGuard(None, POLICY), GOOD)[0::2] == (200, ["http"])


@pytest.mark.parametrize(("headers", "status", "message"), [
    ({**GOOD, "Host": "evil.example"}, 421, "host 'evil.example' is not allowed: start the server with --allowed-host"),
    ({"Authorization": "Bearer s3cret"}, 421, "host None is not allowed"),
    ({**GOOD, "Origin": "http://evil.example"}, 403, "origin 'http://evil.example' is not allowed"),
    ({"Host": "localhost"}, 401, "unauthorized: send Authorization: Bearer <token>"),
    ({**GOOD, "Authorization": "Bearer nope"}, 401, "token not accepted"),  # guards: read as no token at all
])
def test_guard_refuses_with_a_status_and_a_message(headers, status, message):
    got, body, reached = call(ServerGuard(None, POLICY), headers)
    assert (got, reached) == (status, [])
    assert body["error"].startswith(message)


def test_guard_closes_a_refused_websocket_and_lets_lifespan_pass():
    assert call(ServerGuard(None, POLICY), {"Host": "evil.example"}, kind="websocket") == (1008, {}, [])
    reached = []

    async def app(scope, receive, send):
        reached.append(scope["type"])

    asyncio.run(ServerGuard(app, POLICY)({"type": "lifespan"}, None, None))
    assert reached == ["lifespan"]


def test_importing_ragwire_server_imports_no_web_framework():
    code = ("import sys, ragwire.server, ragwire.server.security, ragwire.server.listen\n"
            "heavy = [m for m in sys.modules if m.split('.')[0] in ('mcp', 'uvicorn', 'starlette', 'httpx')]\n"
            "assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_busy_port_is_one_server_error_naming_the_port():
    import socket

    from ragwire.server.listen import bind_socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ServerError, match=rf"^port {port} on 127\.0\.0\.1 is already in use .*--port$"):
            bind_socket("127.0.0.1", port)
    sock = bind_socket("localhost", 0)
    assert sock.getsockname()[0] == "127.0.0.1"
    sock.close()


@pytest.mark.parametrize(("path", "public"), [
    ("/", True), ("/static/app.js", True), ("/docs", True),
    ("/api/stats", False),  # guards: "/" as a prefix made every path public
    ("/static/../api/stats", False), ("/static/.%2e/api", False), ("/docs/x", False), ("/staticx", False),
])
def test_public_paths_skip_only_the_token_never_the_host_check(path, public):
    guard = ServerGuard(None, POLICY, public_paths=("/", "/static/*", "/docs"))
    assert guard._public(path) is public

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    sent = []

    async def send(message):
        sent.append(message)

    for headers, status in [({"host": "127.0.0.1:8000"}, 200 if public else 401), ({"host": "evil.example"}, 421)]:
        sent.clear()
        scope = {"type": "http", "path": path, "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
        asyncio.run(ServerGuard(app, POLICY, public_paths=("/", "/static/*", "/docs"))(scope, None, send))
        assert sent[0]["status"] == status, (path, headers)


def test_serve_and_mcp_serve_take_the_same_access_options_worded_alike():
    # guards the two commands' --host/--token/--allowed-host/--allow-unauthenticated drifting apart
    from ragwire.cli import mcp_serve, serve
    from ragwire.mcp.server import TOKEN_ENV as MCP_TOKEN_ENV
    from ragwire.web import TOKEN_ENV as SERVER_TOKEN_ENV

    def access(command) -> dict[str, tuple]:
        return {p.name: (p.opts, p.default, p.is_flag, p.multiple, p.help)
                for p in command.params if p.name in ("host", "token", "allowed_hosts", "allow_unauthenticated")}

    web, mcp = access(serve), access(mcp_serve)
    assert set(web) == set(mcp) == {"host", "token", "allowed_hosts", "allow_unauthenticated"}
    for name, (opts, default, is_flag, multiple, text) in web.items():
        assert mcp[name][:4] == (opts, default, is_flag, multiple), name
        assert mcp[name][4] == "http: " + text.replace(SERVER_TOKEN_ENV, MCP_TOKEN_ENV), name
    assert web["host"][1] == "127.0.0.1" and f"${SERVER_TOKEN_ENV}" in web["token"][4]


# --- same origin, exactly (issue 34: a page on another port of localhost planted a document) ---------------

LOCAL = server_policy("127.0.0.1", token_flag=None, token_env="T", environ={})


def guarded(policy, method: str, path: str, headers: dict[str, str],
            public: tuple[str, ...] = ("/", "/static/*")) -> tuple[int, dict[bytes, bytes]]:
    """``(status, response headers)`` of one request through a guard over an app that answers 200."""
    sent = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"image/png")]})
        await send({"type": "http.response.body", "body": b""})

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "scheme": "http",
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    asyncio.run(ServerGuard(app, policy, public_paths=public)(scope, None, send))
    return sent[0]["status"], dict(sent[0]["headers"])


@pytest.mark.parametrize(("origin", "host", "scheme", "same"), [
    ("http://localhost:18081", "localhost:18081", "http", True),
    ("http://LOCALHOST:18081", "localhost:18081", "http", True),
    ("http://localhost:18090", "localhost:18081", "http", False),  # guards: any port of an allowed name passed
    ("http://127.0.0.1:18081", "localhost:18081", "http", False),
    ("https://localhost:18081", "localhost:18081", "http", False),
    ("https://docs.example.com", "docs.example.com", "https", True),
    ("https://docs.example.com:443", "docs.example.com", "https", True),
    ("http://docs.example.com", "docs.example.com:80", "http", True),
    ("http://[::1]:8000", "[::1]:8000", "http", True),
    ("null", "localhost:18081", "http", False), ("http://x:bad", "x:1", "http", False),
])
def test_same_origin_is_scheme_host_and_port_exactly(origin, host, scheme, same):
    assert same_origin(origin, host, scheme) is same


@pytest.mark.parametrize("content_type", ["multipart/form-data; boundary=x", "text/plain",
                                          "application/x-www-form-urlencoded", "application/json"])
def test_a_write_from_another_port_of_localhost_is_refused_whatever_its_content_type(content_type):
    headers = {"Host": "localhost:18081", "Origin": "http://localhost:18090", "Content-Type": content_type}
    assert guarded(LOCAL, "POST", "/api/documents", headers)[0] == 403
    assert guarded(LOCAL, "DELETE", "/api/documents", headers)[0] == 403
    assert guarded(LOCAL, "POST", "/api/documents", {**headers, "Origin": "http://localhost:18081"})[0] == 200


def test_a_write_without_origin_is_refused_only_when_the_browser_says_another_site_sent_it():
    host = {"Host": "127.0.0.1:8000"}
    assert guarded(LOCAL, "POST", "/api/query", host)[0] == 200  # curl, a script
    assert guarded(LOCAL, "POST", "/api/query", {**host, "Sec-Fetch-Site": "same-origin"})[0] == 200
    for site in ("cross-site", "same-site"):
        assert guarded(LOCAL, "POST", "/api/query", {**host, "Sec-Fetch-Site": site})[0] == 403


def test_a_write_from_another_origin_passes_with_the_token():
    headers = {"Host": "127.0.0.1:8000", "Origin": "http://localhost:9000"}
    assert guarded(POLICY, "POST", "/mcp", {**headers, "Authorization": "Bearer s3cret"})[0] == 200
    assert guarded(POLICY, "POST", "/mcp", {**headers, "Authorization": "Bearer wrong"})[0] == 401


def test_a_forwarded_https_origin_is_the_servers_own_behind_a_tls_proxy():
    policy = server_policy("127.0.0.1", token_flag=None, token_env="T", environ={},
                           allowed_hosts=["docs.example.com"])
    headers = {"Host": "docs.example.com", "Origin": "https://docs.example.com", "X-Forwarded-Proto": "https"}
    assert guarded(policy, "POST", "/api/query", headers)[0] == 200
    assert guarded(policy, "POST", "/api/query", {**headers, "X-Forwarded-Proto": "http"})[0] == 403


def test_a_cross_site_read_of_a_page_image_is_refused_and_every_response_is_same_origin_only():
    path = "/api/page-image"
    host = {"Host": "127.0.0.1:8000"}
    for site in ("cross-site", "same-site"):
        status, headers = guarded(LOCAL, "GET", path, {**host, "Sec-Fetch-Site": site})
        assert status == 403 and headers[b"cross-origin-resource-policy"] == b"same-origin"
    for site in ("same-origin", "none"):
        status, headers = guarded(LOCAL, "GET", path, {**host, "Sec-Fetch-Site": site})
        assert status == 200 and headers[b"cross-origin-resource-policy"] == b"same-origin"
    # a link from another site to the page itself still opens it
    assert guarded(LOCAL, "GET", "/", {**host, "Sec-Fetch-Site": "cross-site"})[0] == 200
