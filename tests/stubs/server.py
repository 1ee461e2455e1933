"""A threaded stub HTTP server speaking the OpenAI, Ollama and Cohere rerank wire formats on 127.0.0.1.

Real LangChain / SDK clients talk to it over real sockets, so their request
building, timeouts and error handling run for real.  Embeddings are
deterministic (seeded from SHA-256 of the text); failures can be scripted; every
request is recorded.

    with StubServer(dim=8) as stub:
        emb = get_embedding({"provider": "ollama", "base_url": stub.url})
        stub.script_failures([500, 500])        # next two matching requests fail
        emb.embed_documents(["a", "b"])          # -> HTTP 500 (client raises)
        stub.requests_to("/api/embed")           # what the server saw

Cohere's ``/v2/rerank`` scores each document with ``stub.rerank_score(query, document)``
(default: the share of the query's words found in the document).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A scripted status of DROP closes the connection without any response.
DROP = 0

ChatReply = str | Callable[[dict[str, Any]], str]
RerankScore = Callable[[str, str], float]


def word_overlap(query: str, document: str) -> float:
    """The share of the query's distinct words that occur in the document (0 to 1)."""
    words = set(re.findall(r"\w+", query.lower()))
    found = set(re.findall(r"\w+", document.lower()))
    return len(words & found) / len(words) if words else 0.0


def fake_embedding(text: str, dim: int) -> list[float]:
    """A unit-length vector derived only from SHA-256 of ``text``.

    Values are float32-exact, so a vector sent as base64 float32 (the OpenAI
    SDK's default encoding) decodes to exactly the same floats.
    """
    seed = hashlib.sha256(text.encode("utf-8")).digest()
    raw: list[float] = []
    block = 0
    while len(raw) < dim:
        digest = hashlib.sha256(seed + block.to_bytes(4, "big")).digest()
        for i in range(0, 32, 4):
            # map each 32-bit word to [-1, 1)
            raw.append(int.from_bytes(digest[i : i + 4], "big") / 2**31 - 1.0)
        block += 1
    raw = raw[:dim]
    norm = sum(x * x for x in raw) ** 0.5 or 1.0
    return _float32([x / norm for x in raw])


@dataclass
class RecordedRequest:
    """One request the stub received (failed ones included); header names are lower-case."""

    method: str
    path: str
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    status: int = 200
    # time.monotonic() when the request arrived: tests measure the gaps between retries
    at: float = field(default_factory=time.monotonic)

    @property
    def inputs(self) -> list[str]:
        """The texts of an embedding request (OpenAI ``input``, Ollama ``input``/``prompt``)."""
        if not isinstance(self.body, dict):
            return []
        value = self.body.get("input", self.body.get("prompt"))
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        return [v if isinstance(v, str) else json.dumps(v) for v in value]


class StubServer:
    """OpenAI ``/v1/embeddings`` + ``/v1/chat/completions``; Ollama ``/api/embed`` + ``/api/chat``;
    Cohere ``/v2/rerank``.

    Args:
        dim: size of the fake embeddings (an OpenAI ``dimensions`` field overrides it).
        chat_reply: the assistant text, or a callable given the request JSON.
        failures: statuses to answer, one per matching request, before succeeding.
        fail_always: a status to answer every matching request with (None: off).
        fail_marker: if set, failures apply only to requests whose body contains it.
        delay: seconds to wait before answering each request (for timeout tests).
        stream_words: stream an OpenAI reply one word per SSE event instead of in one
            event (real servers send many small pieces).
        rerank_score: the relevance score ``/v2/rerank`` gives ``(query, document)``.
        failure_headers: extra headers sent with every scripted failure (e.g. ``{"Retry-After": "1"}``).

    The attributes of the same names can be changed while the server runs.
    """

    def __init__(
        self,
        *,
        dim: int = 16,
        chat_reply: ChatReply = "This is the stub's answer.",
        failures: Iterable[int] = (),
        fail_always: int | None = None,
        fail_marker: str | None = None,
        delay: float = 0.0,
        stream_words: bool = False,
        rerank_score: RerankScore = word_overlap,
        failure_headers: dict[str, str] | None = None,
    ) -> None:
        self.dim = dim
        self.chat_reply = chat_reply
        self.failures: deque[int] = deque(failures)
        self.fail_always = fail_always
        self.fail_marker = fail_marker
        self.delay = delay
        self.stream_words = stream_words
        self.rerank_score = rerank_score
        self.failure_headers: dict[str, str] = dict(failure_headers or {})
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        # The most POST requests waiting out ``delay`` at the same moment.
        self.max_concurrent = 0
        self._active = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------

    def start(self) -> StubServer:
        """Start serving on 127.0.0.1 on a free port."""
        if self._httpd is not None:
            return self
        handler = type("_BoundHandler", (_Handler,), {"stub": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="stub-http", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and free the port."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("StubServer is not running: call start() or use it in a with block")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """Base URL for Ollama clients, e.g. ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        """Base URL for OpenAI-compatible clients: ``url + "/v1"``."""
        return f"{self.url}/v1"

    # -- scripting -------------------------------------------------------

    def script_failures(self, statuses: Iterable[int], marker: str | None = None) -> None:
        """Answer the next matching requests with ``statuses`` (in order), then succeed.

        ``marker`` (if given) replaces ``fail_marker``: only requests whose body
        contains it consume the queue.  Use DROP to close the connection instead.
        """
        with self._lock:
            self.failures.extend(statuses)
            if marker is not None:
                self.fail_marker = marker

    def vector(self, text: str, dim: int | None = None) -> list[float]:
        """The embedding this server returns for ``text``."""
        return fake_embedding(text, dim or self.dim)

    # -- inspection ------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        """Requests whose path ends with ``path`` (e.g. ``"/embeddings"``, ``"/api/chat"``)."""
        return [r for r in self.requests if r.path.endswith(path)]

    def embedding_calls(self) -> list[RecordedRequest]:
        """Requests to any embedding endpoint, failed ones included."""
        return [r for r in self.requests if _route(r.path) in {"openai_embed", "ollama_embed"}]

    def embedding_inputs(self) -> list[str]:
        """Every text sent to an embedding endpoint, failed requests included."""
        return [text for r in self.embedding_calls() for text in r.inputs]

    def reset(self) -> None:
        """Forget recorded requests and scripted failures."""
        with self._lock:
            self._requests.clear()
            self.max_concurrent = 0
            self.failures.clear()
            self.fail_always = None
            self.fail_marker = None
            self.failure_headers = {}

    # -- used by the handler ----------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _enter(self) -> None:
        with self._lock:
            self._active += 1
            self.max_concurrent = max(self.max_concurrent, self._active)

    def _leave(self) -> None:
        with self._lock:
            self._active -= 1

    def _failure_for(self, raw_body: str) -> int | None:
        with self._lock:
            if self.fail_marker is not None and self.fail_marker not in raw_body:
                return None
            if self.failures:
                return self.failures.popleft()
            return self.fail_always

    def _reply_text(self, body: dict[str, Any]) -> str:
        reply = self.chat_reply
        return reply(body) if callable(reply) else str(reply)


def _route(path: str) -> str | None:
    path = path.split("?", 1)[0].rstrip("/")
    if path.endswith("/chat/completions"):
        return "openai_chat"
    if path in {"/api/embed", "/api/embeddings"}:
        return "ollama_embed"
    if path.endswith("/embeddings"):
        return "openai_embed"
    if path == "/api/chat":
        return "ollama_chat"
    if path == "/v2/rerank":
        return "cohere_rerank"
    return None


class _Handler(BaseHTTPRequestHandler):
    stub: StubServer
    server_version = "ragwire-stub/1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Stay quiet: tests read ``stub.requests`` instead."""

    def do_GET(self) -> None:
        self.stub._record(RecordedRequest("GET", self.path, None, _lower(self.headers)))
        if self.path.rstrip("/") == "/api/tags":
            self._send_json(200, {"models": []})
        elif self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": []})
        else:
            self._send_error(404, f"no route for GET {self.path}")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", errors="replace") if length else ""
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        record = RecordedRequest("POST", self.path, body, _lower(self.headers))
        self.stub._record(record)
        # Concurrency is counted over the delay only: once the reply is written the
        # client may send its next request before this thread returns, and that
        # overlap says nothing about how many requests the client had in flight.
        self.stub._enter()
        try:
            if self.stub.delay:
                time.sleep(self.stub.delay)
        finally:
            self.stub._leave()
        self._answer(record, raw, body)

    def _answer(self, record: RecordedRequest, raw: str, body: Any) -> None:

        status = self.stub._failure_for(raw)
        if status is not None:
            record.status = status
            if status == DROP:
                self.close_connection = True
                return  # the client sees the connection closed with no answer
            self._send_error(status, f"stub failure (scripted HTTP {status})", self.stub.failure_headers)
            return

        route = _route(self.path)
        if not isinstance(body, dict) or route is None:
            record.status = 404 if route is None else 400
            self._send_error(record.status, f"cannot handle POST {self.path}")
            return
        if route == "openai_embed":
            self._openai_embed(body)
        elif route == "ollama_embed":
            self._ollama_embed(body)
        elif route == "openai_chat":
            self._openai_chat(body)
        elif route == "cohere_rerank":
            self._cohere_rerank(body)
        else:
            self._ollama_chat(body)

    # -- embeddings --------------------------------------------------------

    def _openai_embed(self, body: dict[str, Any]) -> None:
        texts = RecordedRequest("POST", self.path, body).inputs
        dim = int(body.get("dimensions") or self.stub.dim)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(texts):
            vector = fake_embedding(text, dim)
            encoded: Any = (
                base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode("ascii")
                if as_base64
                else vector
            )
            data.append({"object": "embedding", "index": i, "embedding": encoded})
        tokens = sum(len(t.split()) for t in texts)
        self._send_json(
            200,
            {
                "object": "list",
                "data": data,
                "model": body.get("model", "stub-embedding"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _ollama_embed(self, body: dict[str, Any]) -> None:
        texts = RecordedRequest("POST", self.path, body).inputs
        dim = int(body.get("dimensions") or self.stub.dim)
        if self.path.rstrip("/") == "/api/embeddings":  # the legacy single-prompt endpoint
            self._send_json(200, {"embedding": fake_embedding(texts[0] if texts else "", dim)})
            return
        self._send_json(
            200,
            {
                "model": body.get("model", "stub-embedding"),
                "embeddings": [fake_embedding(t, dim) for t in texts],
                "total_duration": 1000,
                "load_duration": 100,
                "prompt_eval_count": sum(len(t.split()) for t in texts),
            },
        )

    # -- chat ----------------------------------------------------------------

    def _openai_chat(self, body: dict[str, Any]) -> None:
        text = self.stub._reply_text(body)
        model = body.get("model", "stub-chat")
        usage = {
            "prompt_tokens": 10,
            "completion_tokens": len(text.split()),
            "total_tokens": 10 + len(text.split()),
        }
        base = {
            "id": "chatcmpl-stub",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": "fp_stub",
        }
        if not body.get("stream"):
            self._send_json(
                200,
                {
                    **base,
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "logprobs": None,
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": usage,
                },
            )
            return
        chunk = {**base, "object": "chat.completion.chunk"}
        pieces = (re.findall(r"\s*\S+", text) or [text]) if self.stub.stream_words else [text]
        events = [
            {
                **chunk,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"role": "assistant", "content": piece} if i == 0 else {"content": piece},
                        "finish_reason": None,
                    }
                ],
            }
            for i, piece in enumerate(pieces)
        ]
        events.append({**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append({**chunk, "choices": [], "usage": usage})
        lines = [f"data: {json.dumps(e)}\n\n" for e in events] + ["data: [DONE]\n\n"]
        self._send_stream("text/event-stream", lines)

    def _ollama_chat(self, body: dict[str, Any]) -> None:
        text = self.stub._reply_text(body)
        model = body.get("model", "stub-chat")
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        final = {
            "model": model,
            "created_at": created,
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "total_duration": 1000,
            "load_duration": 100,
            "prompt_eval_count": 10,
            "prompt_eval_duration": 100,
            "eval_count": len(text.split()),
            "eval_duration": 100,
        }
        if body.get("stream", True) is False:
            final["message"] = {"role": "assistant", "content": text}
            self._send_json(200, final)
            return
        first = {
            "model": model,
            "created_at": created,
            "message": {"role": "assistant", "content": text},
            "done": False,
        }
        self._send_stream(
            "application/x-ndjson", [json.dumps(first) + "\n", json.dumps(final) + "\n"]
        )

    # -- rerank --------------------------------------------------------------

    def _cohere_rerank(self, body: dict[str, Any]) -> None:
        query = str(body.get("query", ""))
        documents = [d if isinstance(d, str) else json.dumps(d) for d in body.get("documents") or []]
        scored = [
            {"index": i, "relevance_score": float(self.stub.rerank_score(query, doc))}
            for i, doc in enumerate(documents)
        ]
        # Cohere answers best first, cut to top_n
        scored.sort(key=lambda r: -r["relevance_score"])
        top_n = body.get("top_n")
        if isinstance(top_n, int):
            scored = scored[:top_n]
        self._send_json(
            200,
            {
                "id": "rerank-stub",
                "results": scored,
                "meta": {"api_version": {"version": "2"}, "billed_units": {"search_units": 1}},
            },
        )

    # -- writing -------------------------------------------------------------

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, content_type: str, parts: list[str]) -> None:
        # HTTP/1.0 without Content-Length: the body ends when the connection closes.
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.end_headers()
        for part in parts:
            self.wfile.write(part.encode("utf-8"))
            self.wfile.flush()

    def _send_error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        if self.path.startswith("/api/"):
            payload: Any = {"error": message}
        elif self.path.startswith("/v2/"):
            payload = {"message": message}  # Cohere's error body
        else:
            kind = (
                "rate_limit_exceeded"
                if status == 429
                else "server_error"
                if status >= 500
                else "invalid_request_error"
            )
            payload = {"error": {"message": message, "type": kind, "param": None, "code": status}}
        self._send_json(status, payload, headers)


def _lower(headers: Any) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in headers.items()}


def _float32(values: list[float]) -> list[float]:
    return list(struct.unpack(f"<{len(values)}f", struct.pack(f"<{len(values)}f", *values)))
