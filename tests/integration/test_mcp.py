"""`ragwire mcp serve` as a subprocess: the real mcp client over stdio and streamable HTTP, and `ragwire sync` alongside."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("mcp.server.mcpserver")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
TOOLS = ["answer_question", "collection_stats", "get_filter_context", "search_documents"]
# A fact no file of examples/docs holds, so only the synced file can answer it.
NEW_FILE = ("# Espresso corner\n\nThe espresso machine in the break room is descaled every 14 days; "
            "the descaling kit is order code QUOKKA-7731.\n")


@pytest.fixture(scope="module")
def collection(tmp_path_factory, ragwire_home):
    """examples/docs synced into an embedded store, and the environment a server process runs in."""
    root = tmp_path_factory.mktemp("mcp")
    folder = root / "docs"
    shutil.copytree(REPO / "examples" / "docs", folder)
    config = yaml.safe_load((REPO / "config.yaml.example").read_text(encoding="utf-8"))
    config["vectorstore"]["path"] = str(root / "store")
    config["sources"] = [{"type": "local", "path": str(folder), "name": "docs"}]
    config["logging"] = {"level": "WARNING"}
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGWIRE_")}
    env.update(RAGWIRE_HOME=str(ragwire_home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HOME=str(root / "home"))
    done = subprocess.run([sys.executable, "-m", "ragwire.cli", "sync", "--config", str(path)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return path, folder, env


def text_of(result) -> str:
    return "\n".join(part.text for part in result.content)


def is_error(result) -> bool:
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


async def check_tools(session: ClientSession) -> None:
    """The four tools, each described, each with an object input schema; every one answers."""
    listed = (await session.list_tools()).tools
    assert sorted(t.name for t in listed) == TOOLS
    for tool in listed:
        schema = getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None)
        assert tool.description and len(tool.description) > 40, tool.name
        assert schema["type"] == "object", tool.name
    search = {t.name: t for t in listed}["search_documents"]
    assert set((getattr(search, "input_schema", None) or search.inputSchema)["properties"]) == {"query", "top_k", "filters"}

    found = await session.call_tool("search_documents", {"query": "How long does the warranty last?", "top_k": 3})
    assert not is_error(found) and "[1] warranty-policy.pdf" in text_of(found), text_of(found)

    stats = await session.call_tool("collection_stats", {})
    assert not is_error(stats) and "vector size: 384" in text_of(stats)


@asynccontextmanager
async def http_session(url: str, token: str) -> AsyncIterator[tuple[ClientSession, Any]]:
    """An initialised MCP client session over streamable HTTP with a bearer token, and its HTTP client."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http, \
            streamable_http_client(url, http_client=http) as streams, \
            ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        yield session, http


def test_stdio_server_tools_errors_and_sync_alongside(collection):
    config, folder, env = collection

    async def scenario() -> None:
        params = StdioServerParameters(command=sys.executable, env=env, cwd=str(config.parent),
                                       args=["-m", "ragwire.cli", "mcp", "serve", "--config", str(config)])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await check_tools(session)

            answered = await session.call_tool("answer_question", {"question": "How long does the warranty last?"})
            assert not is_error(answered)
            assert "24 months" in text_of(answered) and "warranty-policy.pdf" in text_of(answered)
            assert re.search(r"\n\nTrace id: [0-9a-f]{32}$", text_of(answered)), text_of(answered)

            refused = await session.call_tool("answer_question", {"question": "Who won the 1998 football world cup?"})
            assert not is_error(refused)
            assert text_of(refused).startswith("The documents do not contain the answer"), text_of(refused)

            context = await session.call_tool("get_filter_context", {"query": "warranty"})
            assert not is_error(context) and "**title**" in text_of(context)

            # guards: a filter that excluded every document got the generic "do not contain the answer"
            unmatched = await session.call_tool("answer_question", {"question": "How long does the warranty last?",
                                                                    "filters": {"year": 1900}})
            assert not is_error(unmatched)
            assert text_of(unmatched).startswith('No documents match the filters {"year": 1900}'), text_of(unmatched)

            bad = await session.call_tool("search_documents", {"query": "warranty", "filters": "{not json"})
            assert is_error(bad) and "filters is not valid JSON" in text_of(bad), text_of(bad)
            as_string = await session.call_tool("search_documents", {"query": "warranty", "filters": '{"year": 2000}'})
            assert not is_error(as_string) and "warranty-policy.pdf" in text_of(as_string)
            # guards issue 34: an unknown argument was dropped unread, a number for a string field found nothing
            misspelled = await session.call_tool("search_documents", {"query": "warranty", "topk": 1})
            assert is_error(misspelled) and text_of(misspelled) == (
                "unknown key 'topk' in the arguments of search_documents (did you mean 'top_k'?)"), text_of(misspelled)
            typed = await session.call_tool("search_documents", {"query": "warranty", "filters": {"title": 5}})
            assert is_error(typed) and "filters.title: 5 is not a string" in text_of(typed), text_of(typed)
            mixed = await session.call_tool("search_documents", {"query": "warranty", "filters": {"title": ["a", 3]}})
            assert is_error(mixed) and "filters.title: a list mixes strings and numbers" in text_of(mixed)

            # The server owns the store: a cron `ragwire sync` started while tools keep being
            # called hands its run to the server instead of waiting for a gap in the reads.
            # guards issue 34: the sync needed the tools to pause past hold_open_s for the lock
            (folder / "espresso.md").write_text(NEW_FILE, encoding="utf-8")
            sync = asyncio.create_task(asyncio.to_thread(
                subprocess.run, [sys.executable, "-m", "ragwire.cli", "sync", "--config", str(config)],
                env=env, capture_output=True, text=True, timeout=300))
            calls = 0
            while not sync.done():
                during = await session.call_tool("search_documents", {"query": "charging station", "top_k": 2})
                assert not is_error(during), text_of(during)
                calls += 1
            synced = sync.result()
            assert synced.returncode == 0, synced.stderr
            assert "handing this run to it" in synced.stderr and "1 processed" in synced.stderr, synced.stderr
            assert calls >= 2

            after = await session.call_tool("search_documents", {"query": "espresso descaling kit order code", "top_k": 2})
            assert not is_error(after) and "[1] espresso.md" in text_of(after), text_of(after)
            assert "QUOKKA-7731" in text_of(after)

    asyncio.run(scenario())


def test_filter_context_lists_the_fields_when_the_llm_is_down(collection):
    # guards: get_filter_context failed entirely when the LLM could not be reached
    config, _, env = collection
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings["llm"] = {"provider": "openai", "model": "gpt-test", "base_url": f"http://127.0.0.1:{free_port()}/v1",
                       "api_key": "sk-test", "timeout": 5}
    settings["ingestion"]["retries"] = 0
    settings["metadata"] = {"enabled": True, "config_file": str(REPO / "metadata.yaml.example")}
    down = config.with_name("llm-down.yaml")
    down.write_text(yaml.safe_dump(settings), encoding="utf-8")

    async def scenario() -> None:
        params = StdioServerParameters(command=sys.executable, env=env, cwd=str(config.parent),
                                       args=["-m", "ragwire.cli", "mcp", "serve", "--config", str(down)])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            context = await session.call_tool("get_filter_context", {"query": "warranty documents from 2024"})
            assert not is_error(context), text_of(context)
            text = text_of(context)
            assert '- **title**: ["Aurora AR-7 User Guide"' in text, text
            assert "Note: filter suggestions for this query are unavailable (the LLM could not be used:" in text

    asyncio.run(scenario())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


INITIALIZE = (b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
              b'"capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}')


def post(url: str, headers: dict[str, str]) -> int:
    """The status of an MCP initialize request to ``url`` (a Host or Origin in ``headers`` replaces urllib's)."""
    request = urllib.request.Request(url, data=INITIALIZE, method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def serve_args(config: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ragwire.cli", "mcp", "serve", "--config", str(config), "--transport", "http", *extra]


@contextmanager
def http_server(config: Path, env: dict[str, str], *extra: str,
                command: tuple[str, ...] = ("mcp", "serve", "--transport", "http")) -> Iterator[tuple[int, subprocess.Popen]]:
    """``ragwire mcp serve --transport http`` (or ``command``) on a free port, stopped on exit; yields the port and the process."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "ragwire.cli", *command, "--config", str(config),
                               "--port", str(port), *extra], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, server.communicate()[1]
                assert time.monotonic() < deadline, "the HTTP server did not start"
                time.sleep(0.2)
        yield port, server
    finally:
        server.terminate()
        server.wait(timeout=30)


def refused_start(config: Path, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess:
    """``ragwire mcp serve --transport http`` that must exit at once (before loading the collection)."""
    return subprocess.run(serve_args(config, "--port", str(free_port()), *extra), env=env,
                          capture_output=True, text=True, timeout=120)


def test_http_server_on_every_interface_checks_token_host_and_origin(collection):
    config, _, env = collection
    with http_server(config, {**env, "RAGWIRE_MCP_TOKEN": "s3cret-token"},
                     "--host", "0.0.0.0", "--allowed-host", "docs.example.com") as (port, server):
        url = f"http://127.0.0.1:{port}/mcp"
        good = {"authorization": "Bearer s3cret-token"}
        assert post(url, {}) == 401
        assert post(url, {"authorization": "Bearer wrong"}) == 401
        assert post(url, {"authorization": "Basic s3cret-token"}) == 401
        assert post(url, good) == 200
        assert post(url, {"authorization": "bearer s3cret-token"}) == 200  # guards: the scheme was case-sensitive
        # guards: on 0.0.0.0 the Host check was off, so a DNS-rebinding page got 200
        assert post(url, {**good, "host": "evil.example"}) == 421
        assert post(url, {**good, "host": f"evil.example:{port}"}) == 421
        assert post(url, {**good, "host": f"docs.example.com:{port}"}) == 200  # --allowed-host
        assert post(url, {**good, "host": f"localhost:{port}"}) == 200
        assert post(url, {**good, "origin": "http://evil.example"}) == 403
        assert post(url, {**good, "origin": "null"}) == 403
        assert post(url, {**good, "origin": f"http://localhost:{port}"}) == 200

        async def scenario() -> None:
            async with http_session(url, "s3cret-token") as (session, _http):
                await check_tools(session)
                bad = await session.call_tool("answer_question", {"question": "warranty?", "filters": "{not json"})
                assert is_error(bad) and "filters is not valid JSON" in text_of(bad)

        asyncio.run(scenario())
    assert "(bearer token required; answers requests for 127.0.0.1, localhost, [::1], docs.example.com)" \
        in server.stderr.read()


KETTLE = "# Kitchen kettle\n\nThe kettle on the third floor is descaled every Monday with citric acid sachet KETTLE-5521.\n"


def test_serve_with_mcp_answers_the_api_and_mcp_in_one_process_that_owns_the_store(collection):
    config, folder, env = collection
    with http_server(config, {**env, "RAGWIRE_SERVER_TOKEN": "s3cret-token"}, "--mcp",
                     command=("serve",)) as (port, server):
        url = f"http://127.0.0.1:{port}/mcp"
        good = {"authorization": "Bearer s3cret-token"}
        # the API's rules, from the same guard: the token, the Host and Origin allow-list
        assert post(url, {}) == 401
        assert post(url, {"origin": f"http://localhost:{free_port()}"}) == 401
        assert post(url, good) == 200
        assert post(url, {**good, "host": "evil.example"}) == 421
        assert post(url, {**good, "origin": "http://evil.example"}) == 403

        async def scenario() -> None:
            async with http_session(url, "s3cret-token") as (session, http):
                await check_tools(session)
                api = await http.post(f"http://127.0.0.1:{port}/api/retrieve", json={"query": "warranty", "top_k": 1})
                assert api.status_code == 200 and api.json()["results"], api.text

                # one owner: a CLI sync hands its run to this process, and MCP reads what it wrote
                (folder / "kettle.md").write_text(KETTLE, encoding="utf-8")
                synced = await asyncio.to_thread(
                    subprocess.run, [sys.executable, "-m", "ragwire.cli", "sync", "--config", str(config)],
                    env=env, capture_output=True, text=True, timeout=300)
                assert synced.returncode == 0, synced.stderr
                assert "handing this run to it" in synced.stderr and "1 processed" in synced.stderr, synced.stderr
                found = await session.call_tool("search_documents", {"query": "kettle descaling sachet", "top_k": 1})
                assert not is_error(found) and "KETTLE-5521" in text_of(found), text_of(found)

        asyncio.run(scenario())
    assert f"; MCP at http://127.0.0.1:{port}/mcp" in server.stderr.read()


def test_http_server_without_a_token_checks_the_host_and_says_it_is_open(collection):
    config, _, env = collection
    with http_server(config, env, "--host", "0.0.0.0", "--allow-unauthenticated") as (port, server):
        url = f"http://127.0.0.1:{port}/mcp"
        assert post(url, {}) == 200
        assert post(url, {"host": "evil.example"}) == 421
    first = server.stderr.read().splitlines()[0]
    assert "WARNING: no token (--allow-unauthenticated): anyone who can reach it can use it" in first, first


@pytest.mark.parametrize(("extra", "token_env", "message"), [
    # guards: 0.0.0.0 without a token started, unauthenticated, without a word
    pytest.param(("--host", "0.0.0.0"), None,
                 "error: refusing to serve on 0.0.0.0 without a token: anyone who can reach it", id="open-ipv4-bind"),
    pytest.param(("--host", "::"), None, "error: refusing to serve on :: without a token", id="open-ipv6-bind"),
    # guards: an empty RAGWIRE_MCP_TOKEN served without auth, though --token '' was refused
    pytest.param((), "", "error: the token in $RAGWIRE_MCP_TOKEN is empty: set a non-empty token",
                 id="empty-env-token"),
    pytest.param(("--host", "0.0.0.0"), "  ", "error: the token in $RAGWIRE_MCP_TOKEN is empty",
                 id="blank-env-token-on-open-bind"),
    pytest.param(("--token", ""), None, "error: the token in --token is empty", id="empty-flag-token"),
    pytest.param(("--token", "abc\n"), None, "error: the token in --token starts or ends with whitespace",
                 id="token-with-newline"),
    pytest.param(("--allowed-host", "http://docs.example.com/"), None,
                 "error: --allowed-host 'http://docs.example.com/': write a host name", id="allowed-host-as-url"),
])
def test_http_server_refuses_an_open_bind_or_an_empty_token_in_one_line(collection, extra, token_env, message):
    config, _, env = collection
    env = {**env, "RAGWIRE_MCP_TOKEN": token_env} if token_env is not None else env
    done = refused_start(config, env, *extra)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(message) and len(done.stderr.splitlines()) == 1, done.stderr


def test_http_server_on_a_busy_port_names_the_port_in_one_line(collection):
    # guards: a busy port exited 3 with uvicorn's "[Errno 98] ..." log line
    config, _, env = collection
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(serve_args(config, "--port", str(port)), env=env, capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"error: port {port} on 127.0.0.1 is already in use (another server, or an earlier one still running): "
        "stop it, or pick another port with --port"]


def test_stdio_server_refuses_http_only_flags(collection):
    config, _, env = collection
    done = subprocess.run([sys.executable, "-m", "ragwire.cli", "mcp", "serve", "--config", str(config),
                           "--allow-unauthenticated"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "Error: --allow-unauthenticated concerns --transport http only" in done.stderr
