"""One write run at a time per collection: threads of this process queue on a lock,
other processes and machines on the collection's writer lease (:mod:`ragwire.store.lease`)."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Callable, ContextManager, Iterator

from ..errors import StoreLockedError
from .engine import Engine
from .lease import WriterLease


class WriterGate:
    """The right to write one collection."""

    def __init__(self, engine: Engine, name: str, *, wait_s: float, lease_ttl_s: float) -> None:
        self.engine = engine
        self.name = name
        # How long a write run waits for another one (thread, process, machine) to finish.
        self.wait_s = wait_s
        self.lease = WriterLease(engine, ttl_s=lease_ttl_s)
        self._lock = threading.RLock()
        self._thread: int | None = None
        self._depth = 0

    @contextlib.contextmanager
    def hold(self, opened: Callable[[], ContextManager[object]], wait_s: float | None = None) -> Iterator[None]:
        """Hold the right to write for the block, with the engine open (``opened()``).

        An engine that one process opens at a time (the embedded one: its folder is
        locked while open) needs no lease point.  Nested blocks in one thread share one hold.

        Raises:
            StoreLockedError: the collection was still being written after ``wait_s``
                seconds (default: ``self.wait_s``).
        """
        wait = self.wait_s if wait_s is None else wait_s
        started = time.monotonic()
        if not self._lock.acquire(timeout=wait):
            raise StoreLockedError(
                f"collection '{self.name}' is being written by another thread of this process, "
                f"which did not finish within {wait:.0f} s; wait longer or write from one thread"
            )
        try:
            self._depth += 1
            if self._depth > 1:
                yield
                return
            with opened():
                leased = not self.engine.exclusive and self.engine.exists()
                if leased:
                    left = max(wait - (time.monotonic() - started), 0.0)
                    self.lease.acquire(left, what=f"collection '{self.name}' at {self.engine.location}")
                self._thread = threading.get_ident()
                note = getattr(self.engine, "note_writing", None)
                if note is not None:
                    note(True)
                try:
                    yield
                finally:
                    self._thread = None
                    if note is not None:
                        note(False)
                    if leased:
                        self.lease.release()
        finally:
            self._depth -= 1
            self._lock.release()

    def heartbeat(self) -> None:
        """Keep this run's writer lease alive; called on every write of the writing thread.

        Raises:
            StoreLockedError: the lease lapsed and another run took it; stop writing.
        """
        if self._thread == threading.get_ident():
            self.lease.renew()
