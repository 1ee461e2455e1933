"""An OpenAI-compatible chat stub that streams its reply slowly and notices when the client hangs up.

The shared :class:`tests.stubs.server.StubServer` writes a streamed reply at once; the
page's Stop button and the server's cancel-on-disconnect need a reply still being
written when the user gives up.  ``reply(body)`` scripts the text; a streamed one goes
out one word per ``word_s`` seconds, and ``closed`` counts the streams whose reader went
away before the end.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class SlowChat:
    def __init__(self, reply: Callable[[dict[str, Any]], str], *, word_s: float = 0.0, first_s: float = 0.0) -> None:
        self.reply = reply
        self.word_s = word_s
        self.first_s = first_s
        self.bodies: list[dict[str, Any]] = []
        self.closed = 0
        self.finished = 0
        self._lock = threading.Lock()
        handler = type("_Bound", (_Handler,), {"chat": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.bodies)


class _Handler(BaseHTTPRequestHandler):
    chat: SlowChat

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Quiet: tests read ``chat.bodies``."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        with self.chat._lock:
            self.chat.bodies.append(body)
        text = self.chat.reply(body)
        base = {"id": "chatcmpl-slow", "created": int(time.time()), "model": body.get("model", "slow")}
        if not body.get("stream"):
            data = json.dumps({**base, "object": "chat.completion", "choices": [{
                "index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        time.sleep(self.chat.first_s)
        try:
            for piece in re.findall(r"\s*\S+", text):
                event = {**base, "object": "chat.completion.chunk",
                         "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
                time.sleep(self.chat.word_s)
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            with self.chat._lock:
                self.chat.closed += 1
            return
        with self.chat._lock:
            self.chat.finished += 1
        self.close_connection = True
