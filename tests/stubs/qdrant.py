"""A threaded stub of the few Qdrant REST routes a read touches, on 127.0.0.1.

qdrant-client talks to it over real sockets, so its request building, timeouts and
error handling run for real; the server engine's error mapping is checked against it.

    with QdrantStub(collections={"docs": 3}) as stub:
        engine = ServerEngine("docs", url=stub.url, timeout=1)
        stub.status = 500        # every request answers HTTP 500
        stub.delay = 3.0         # every request waits 3 s before answering

Routes: ``GET /collections/{name}/exists``, ``POST /collections/{name}/points/count``,
``POST /collections/{name}/points/query`` (no hits).  An unknown collection gets
Qdrant's own 404 answer.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_ROUTE = re.compile(r"^/collections/([^/]+)/(exists|points/count|points/query)$")


class QdrantStub:
    """Args:
        collections: collection name → point count.

    ``status`` (None: answer normally) and ``delay`` (seconds) apply to every request
    and may be changed while the server runs; ``paths`` records what was asked.
    """

    def __init__(self, collections: dict[str, int] | None = None) -> None:
        self.collections = dict(collections or {})
        self.status: int | None = None
        self.delay = 0.0
        self.paths: list[str] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> QdrantStub:
        handler = type("_BoundQdrantHandler", (_Handler,), {"stub": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                        name="qdrant-stub", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._httpd is not None
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def url(self) -> str:
        assert self._httpd is not None, "use QdrantStub in a with block"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    stub: QdrantStub
    server_version = "qdrant-stub/1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Stay quiet: tests read ``stub.paths`` instead."""

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self._serve()

    def _serve(self) -> None:
        path = self.path.split("?", 1)[0]
        self.stub.paths.append(path)
        if self.stub.delay:
            time.sleep(self.stub.delay)
        if self.stub.status is not None:
            self._send(self.stub.status, {"status": {"error": f"stub failure (HTTP {self.stub.status})"}})
            return
        match = _ROUTE.match(path)
        if match is None:
            self._send(404, {"status": {"error": f"no route for {path}"}})
            return
        name, route = match.groups()
        if route == "exists":
            self._send(200, {"result": {"exists": name in self.stub.collections}, "status": "ok"})
        elif name not in self.stub.collections:
            self._send(404, {"status": {"error": f"Not found: Collection `{name}` doesn't exist!"}})
        elif route == "points/count":
            self._send(200, {"result": {"count": self.stub.collections[name]}, "status": "ok"})
        else:
            self._send(200, {"result": {"points": []}, "status": "ok"})

    def _send(self, status: int, body: dict[str, Any]) -> None:
        body.setdefault("time", 0.0)
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to answer
