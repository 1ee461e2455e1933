"""The owner's side of the hand-over (:mod:`ragwire.server.handover`): runs CLI writers' calls as jobs of the writer.

A serving process (``ragwire serve``, ``ragwire mcp serve``) opens the socket at start-up and removes it at exit; each connection
is one handed-over run, queued behind the jobs before it, its state changes streamed
back as progress lines and its outcome (return value or exception) as the last line.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
from pathlib import Path
from typing import Any, Callable

from ragwire.errors import RagwireError, ServerError
from ragwire.pacing import serving

from .handover import (
    HANDED_CALLS,
    Pipeline,
    encode_outcome,
    owner_socket,
    same_user,
    send_line,
    settings_differ,
    write_settings,
)
from .jobs import Job, Writer

log = logging.getLogger(__name__)


class OwnerChannel:
    """A Unix socket (mode 0600) in the store folder on which CLI writers hand their runs to ``writer``.

    ``rag`` is the serving process's :class:`~ragwire.RAGWire`; a handed-over call is its
    method of that name, run as a job of ``writer`` behind the process's own writes.
    """

    def __init__(self, rag: Pipeline, writer: Writer) -> None:
        self.rag = rag
        self.writer = writer
        self.path: Path | None = owner_socket(rag.config.vectorstore)
        self._sock: socket.socket | None = None

    def start(self) -> None:
        """Listen, if the store is embedded; a socket left by a dead owner is replaced."""
        serving()  # this process answers reads while its writer writes: reads first
        if self.path is None:
            return
        if _live(self.path):
            # Another serving process owns this store; CLI writers keep going to it.
            log.warning("the store is already owned by another serving process (socket %s): CLI writers hand "
                        "their runs to that one, and this one's writes wait for the store's lock", self.path)
            self.path = None
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.unlink(missing_ok=True)  # left by an owner that is gone
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # created 0600: no moment when another user could connect
        try:
            sock.bind(str(self.path))
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        sock.listen(16)
        self._sock = sock
        threading.Thread(target=self._accept, name="ragwire-owner", daemon=True).start()

    def stop(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
            if self.path is not None:
                self.path.unlink(missing_ok=True)

    def _accept(self) -> None:
        while self._sock is not None:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return  # closed by stop()
            threading.Thread(target=self._serve, args=(conn,), name="ragwire-handover", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                if not same_user(conn):
                    return
                request = json.loads(conn.makefile("rb").readline() or b"{}")
                call = request.get("call")
                if call == "ping":
                    send_line(conn, {"event": "owner", "pid": os.getpid()})
                    return
                if call not in HANDED_CALLS:
                    send_line(conn, encode_outcome(error=ValueError(f"the owner does not run {call!r}")))
                    return
                differ = settings_differ(write_settings(self.rag.config), request.get("settings"))
                if differ:
                    # Run with the server's settings, it would store what this config did not ask for.
                    send_line(conn, encode_outcome(error=ServerError(
                        f"the server that owns this store (pid {os.getpid()}) runs with another config: "
                        f"{', '.join(differ)} differ; run this command with the server's config file, "
                        "or stop the server first")))
                    return
                self._run(conn, call, list(request.get("args") or []), dict(request.get("kwargs") or {}),
                          request.get("pid"))
            except (OSError, ValueError) as exc:
                log.info("a handed-over run's channel failed: %s", exc)

    def _run(self, conn: socket.socket, call: str, args: list[Any], kwargs: dict[str, Any], pid: object) -> None:
        writer = self.writer
        method = getattr(self.rag, call)
        sending = threading.Lock()  # the writer thread's log lines and this thread's state lines share the socket

        def progress(text: str) -> None:
            with sending:
                send_line(conn, {"event": "progress", "text": text})

        def work(_job: Job) -> Any:
            # What the run logs in the writer thread (a failed file and its reason, a file
            # written) reaches its CLI as progress, as it would reach the terminal alone.
            lines = _RunLog(threading.get_ident(), progress)
            logging.getLogger("ragwire").addHandler(lines)
            try:
                return method(*args, **kwargs)
            finally:
                logging.getLogger("ragwire").removeHandler(lines)

        job = writer.submit(f"cli {call}", work)
        waiting = sum(1 for j in writer.jobs() if j.state in ("queued", "running") and j.position < job.position)
        progress(f"queued as job {job.id} in the server (pid {os.getpid()})"
                 + (f", behind {waiting} job(s)" if waiting else ""))
        log.warning("running %s for ragwire pid %s as job %s", call, pid, job.id)
        state = job.state
        while not writer.wait(job, 1.0):
            if job.state != state:
                state = job.state
                progress(f"job {job.id}: {state}")
        with sending:
            send_line(conn, _outcome(job))


class _RunLog(logging.Handler):
    """Sends the records one thread logs (at the ``ragwire`` logger's level) to a handed-over run's CLI."""

    def __init__(self, thread: int, send: Callable[[str], None]) -> None:
        super().__init__()
        self.thread = thread
        self.send = send

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != self.thread:
            return
        try:
            self.send(" ".join(record.getMessage().split()))
        except OSError:
            pass  # the CLI went away; the run goes on and its outcome stays in GET /api/jobs


def _live(path: Path) -> bool:
    """True when a process answers on the owner socket at ``path``."""
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def _outcome(job: Job) -> dict[str, Any]:
    try:
        if job.exception is not None:
            return encode_outcome(error=job.exception)
        return encode_outcome(job.result)
    except Exception as exc:  # noqa: BLE001 - an outcome that will not pickle still ends the CLI's run, as an error
        return encode_outcome(error=RagwireError(f"the server ran the job ({job.error or 'done'}) but could not "
                                                 f"send its outcome back: {exc}"))
