"""A lock file next to an embedded store folder: one process touches the folder at a time.

Qdrant Edge locks its own write-ahead log, but only once a load is under way, and a
load that fails on that lock has already touched files the holder still writes.
So every process takes this lock first and only then lets Edge near the folder.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: Edge's own lock is all there is
    fcntl = None  # type: ignore[assignment]

# How often a waiter retries; short, so a store freed between two calls is taken at once.
POLL_S = 0.05


class StoreLock:
    """An exclusive ``flock`` on one file, polled until free or a deadline passes.

    Each instance is its own lock, even within one process (flock locks belong to
    an open file), so two engines on one folder exclude each other as two processes do.
    The file itself stays: deleting it would let two processes lock two different files.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        self._held_without_fcntl = False
        self._since = 0.0

    @property
    def held(self) -> bool:
        return self._fd is not None or self._held_without_fcntl

    def acquire(self, wait_s: float) -> bool:
        """Take the lock, waiting up to ``wait_s`` seconds; False when another holder kept it."""
        if self.held:
            return True
        if fcntl is None:
            self._held_without_fcntl = True
            return True
        fd = self._open()
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    return False
                time.sleep(POLL_S)
            except BaseException:
                os.close(fd)
                raise
            else:
                self._fd = fd
                self._since = time.time()
                self.note("open")
                return True

    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS) or not self.path.exists():
                raise
            # A read-only store (a ro mount, a folder this user may only read): flock works on a
            # descriptor opened for reading, and the holder's note is then left unwritten.
            return os.open(self.path, os.O_RDONLY)

    def note(self, role: str) -> None:
        """Say in the lock file who holds it and for what (``open``, ``writing``), for waiters' messages."""
        if self._fd is None:
            return
        command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv[:3]))
        record = {"pid": os.getpid(), "command": command, "role": role, "since": self._since}
        try:
            data = json.dumps(record).encode("utf-8")
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, data, 0)
        except OSError:
            pass  # a full disk must not stop the holder; waiters then get the plain message

    def holder(self) -> dict[str, Any] | None:
        """What the current holder wrote into the lock file, or None."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8") or "null")
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def release(self) -> None:
        self._held_without_fcntl = False
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.ftruncate(fd, 0)
            except OSError:
                pass
            # Closing the file drops the flock with it.
            os.close(fd)


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 12 s``, ``2 h 5 min``: how long a holder has held the store."""
    seconds = max(int(seconds), 0)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"
