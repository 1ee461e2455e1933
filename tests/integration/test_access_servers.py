"""Issue 39's matrix through the servers: `ragwire serve` (HTTP API on loopback) and `ragwire mcp serve
--transport http` with a real MCP client, three principals from a tokens file, plus a trusted proxy's
headers, the writer role and the audit log."""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

pytest.importorskip("fastapi")

from ragwire.access import read_log  # noqa: E402
from ragwire.cli import main  # noqa: E402

from .access_corpus import DOCS, PRINCIPALS, SECRETS, build  # noqa: E402
from .server.conftest import Server, server_env, start_server, stop  # noqa: E402

NAMES = tuple(DOCS)


def _seen(raw: bytes) -> set[str]:
    """Every document name a response mentions, anywhere in it."""
    text = raw.decode("utf-8", "replace")
    return {name for name in NAMES if name in text}


@pytest.fixture(scope="module")
def secured(tmp_path_factory, ragwire_home):
    """The three documents behind one config with a token per principal and 127.0.0.1 as a trusted proxy."""
    from ..conftest import isolate

    root = tmp_path_factory.mktemp("secured")
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(monkeypatch, root, ragwire_home)
        config = build(root)
    settings = yaml.safe_load(config.read_text())
    settings["access"] = {"trusted_proxies": ["127.0.0.1"], "audit": {"query": "full"}}
    config.write_text(yaml.safe_dump(settings))
    tokens = {}
    for who, (groups, _allowed) in PRINCIPALS.items():
        made = CliRunner().invoke(main, ["token", "add", who, "--groups", ",".join(groups), "--config", str(config)])
        assert made.exit_code == 0, made.output
        tokens[who] = made.stdout.strip().splitlines()[0]
    made = CliRunner().invoke(main, ["token", "add", "editor", "--role", "writer", "--config", str(config)])
    tokens["editor"] = made.stdout.strip().splitlines()[0]
    listed = CliRunner().invoke(main, ["token", "list", "--json", "--config", str(config)])
    assert {r["name"] for r in json.loads(listed.stdout)} == {*PRINCIPALS, "editor"}
    assert not any(t in (root / ".ragwire" / "tokens.json").read_text() for t in tokens.values())
    return root, config, tokens, server_env(root / "home", ragwire_home)


@pytest.fixture(scope="module")
def http(secured):
    root, config, tokens, env = secured
    url, process = start_server(config, env, root / "serve.log")
    try:
        yield Server(url, process, config, root / "docs", root / "uploads", env, root / "serve.log"), tokens
    finally:
        stop(process)


def _reads(server: Server, bearer: dict[str, str]) -> dict[str, tuple[int, bytes]]:
    """Every read route of the HTTP API, with the queries that would find each hidden document."""
    out: dict[str, tuple[int, bytes]] = {}
    for n, query in enumerate(["policy", *SECRETS.values()]):
        for kind in ("similarity", "hybrid", "keyword", "mmr"):
            status, _, raw = server.request("POST", "/api/retrieve", {"query": query, "top_k": 10, "search_type": kind},
                                            headers=bearer)
            out[f"retrieve {kind} {n}"] = (status, raw)
        status, _, raw = server.request("POST", "/api/query", {"question": query, "top_k": 10}, headers=bearer)
        out[f"query {n}"] = (status, raw)
        status, _, raw = server.request("POST", "/api/query", {"question": query, "top_k": 10},
                                        headers={**bearer, "Accept": "text/event-stream"})
        out[f"query stream {n}"] = (status, raw)
        status, _, raw = server.request("POST", "/api/chat", {"messages": [{"role": "user", "content": query}]},
                                        headers=bearer)
        out[f"chat {n}"] = (status, raw)
    for path in ("/api/documents", "/api/stats", "/api/fields?limit=100"):
        out[path] = server.request("GET", path, headers=bearer)[::2]
    for name in NAMES:
        source = str(Path(server.corpus) / name)
        for path in (f"/api/source?source={source}", f"/api/page-image?source={source}&page=1"):
            out[path] = server.request("GET", path, headers=bearer)[::2]
    return out


@pytest.mark.parametrize("who", list(PRINCIPALS))
def test_http_api_returns_nothing_of_a_document_the_principal_may_not_read(http, who):
    server, tokens = http
    _groups, allowed = PRINCIPALS[who]
    bearer = {"Authorization": f"Bearer {tokens[who]}"}
    reads = _reads(server, bearer)
    for route, (status, raw) in reads.items():
        assert status < 500, (route, raw[:300])
        asked = {name for name in NAMES if name in route}  # a refusal may repeat the name the caller sent
        assert _seen(raw) - asked <= allowed, (route, _seen(raw) - allowed)
    listed = json.loads(reads["/api/documents"][1])["documents"]
    assert {d["file_name"] for d in listed} == allowed
    stats = json.loads(reads["/api/stats"][1])
    assert stats["sources"] == len(allowed)
    for name in NAMES:
        source = str(Path(server.corpus) / name)
        status, raw = reads[f"/api/page-image?source={source}&page=1"]
        assert (status == 200) == (name in allowed), (name, status)
        status, raw = reads[f"/api/source?source={source}"]
        assert (status == 200) == (name in allowed), (name, status)
        if name not in allowed:  # exactly what a source that was never stored gets
            never = server.request("GET", f"/api/source?source={source}.missing", headers=bearer)
            assert status == never[0] and json.loads(raw)["error"].replace(name, "X") == json.loads(
                never[2])["error"].replace(name + ".missing", "X")


def test_http_refuses_unknown_tokens_readers_writing_and_untrusted_proxies(http):
    server, tokens = http
    assert server.request("GET", "/api/documents")[0] == 401
    assert server.request("GET", "/api/documents", headers={"Authorization": "Bearer rw_wrong"})[0] == 401
    reader = {"Authorization": f"Bearer {tokens['hr']}"}
    status, _, raw = server.request("DELETE", "/api/documents?source=x", headers=reader)
    assert status == 403 and b"writer" in raw
    assert server.request("GET", "/api/jobs", headers=reader)[0] == 403
    assert server.request("GET", "/api/jobs", headers={"Authorization": f"Bearer {tokens['editor']}"})[0] == 200
    # 127.0.0.1 is a trusted proxy here: its headers name the user and the groups
    proxied = {"X-Forwarded-User": "pat", "X-Forwarded-Groups": "finance"}
    listed = json.loads(server.request("GET", "/api/documents", headers=proxied)[2])["documents"]
    assert {d["file_name"] for d in listed} == {"public.pdf", "finance.pdf"}


def test_every_http_request_has_an_audit_line_with_principal_route_query_and_sources(http, secured):
    server, tokens = http
    root = secured[0]
    bearer = {"Authorization": f"Bearer {tokens['hr']}"}
    server.request("POST", "/api/retrieve", {"query": "parental leave weeks", "top_k": 3}, headers=bearer)
    server.request("GET", "/api/documents", headers={"Authorization": "Bearer nope"})
    time.sleep(0.2)
    log = root / ".ragwire" / "audit.jsonl"
    records = list(read_log(log, principal="hr", route="POST /api/retrieve"))
    last = records[-1]
    assert last["query"] == "parental leave weeks" and last["groups"] == ["hr"] and last["status"] == 200
    assert {Path(s).name for s in last["sources"]} <= {"public.pdf", "hr.pdf"} and last["sources"]
    assert any(r["status"] == 401 for r in read_log(log, route="GET /api/documents"))
    shown = CliRunner().invoke(main, ["audit", "--principal", "hr", "--config", str(secured[1])])
    assert shown.exit_code == 0 and "POST /api/retrieve" in shown.output


def test_mcp_client_sees_only_what_its_token_may_read(secured):
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from .test_mcp import http_server, text_of

    root, config, tokens, env = secured
    with http_server(config, env) as (port, _server):
        url = f"http://127.0.0.1:{port}/mcp"

        async def session_texts(token: str) -> list[str]:
            texts = []
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as client, \
                    streamable_http_client(url, http_client=client) as streams, \
                    ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                for query in ["policy", *SECRETS.values()]:
                    for tool, args in (("search_documents", {"query": query, "top_k": 10}),
                                       ("answer_question", {"question": query, "top_k": 10}),
                                       ("get_filter_context", {"query": query})):
                        texts.append(text_of(await session.call_tool(tool, args)))
                texts.append(text_of(await session.call_tool("collection_stats", {})))
            return texts

        for who, (_groups, allowed) in PRINCIPALS.items():
            texts = asyncio.run(session_texts(tokens[who]))
            seen = set().union(*(_seen(t.encode()) for t in texts))
            assert seen <= allowed, (who, seen - allowed)
            assert "public.pdf" in seen
            stats = texts[-1]
            assert re.search(rf"\b{len(allowed)}\b", stats), stats
    tools = {r.get("route") for r in read_log(root / ".ragwire" / "audit.jsonl", principal="hr")}
    assert {"search_documents", "answer_question"} <= tools
