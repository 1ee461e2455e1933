"""A lock file next to an embedded store folder: one process touches the folder at a time.

Qdrant Edge locks its own write-ahead log, but only once a load is under way, and a
load that fails on that lock has already touched files the holder still writes.
So every process takes this lock first and only then lets Edge near the folder.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

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
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
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
                return True

    def release(self) -> None:
        self._held_without_fcntl = False
        if self._fd is not None:
            fd, self._fd = self._fd, None
            # Closing the file drops the flock with it.
            os.close(fd)
