"""Keeping an engine open across back-to-back calls, and closing it once they stop."""

from __future__ import annotations

import contextlib
import threading
from typing import Callable, Iterator

from ..errors import StoreError
from ..logs import get_logger
from .engine import Engine

log = get_logger(__name__)


class OpenSession:
    """Nested ``opened()`` blocks share one open of ``engine``.

    After the outermost block the engine stays open for ``hold_open_s`` more
    seconds, so back-to-back calls (a loop of queries) pay for one open, not one
    each; then it closes and releases the embedded store's folder lock.  Writes
    are flushed when the block ends, not when the engine closes.  ``on_close``
    runs before each close: another process may change the store once we let go.
    """

    def __init__(self, engine: Engine, hold_open_s: float, on_close: Callable[[], None]) -> None:
        self.engine = engine
        self.hold_open_s = hold_open_s
        self.on_close = on_close
        self.lock = threading.RLock()
        self._closer: threading.Timer | None = None
        self._depth = 0

    @contextlib.contextmanager
    def opened(self) -> Iterator[None]:
        with self.lock:
            if self._closer is not None:
                self._closer.cancel()
                self._closer = None
            self.engine.open()
            self._depth += 1
        try:
            yield
        finally:
            with self.lock:
                self._depth -= 1
                if self._depth == 0:
                    try:
                        self.engine.flush()
                    finally:
                        # Even after a failed flush the store is closed or scheduled to be,
                        # so its folder lock is never kept by a process that is done with it.
                        if self.hold_open_s > 0:
                            self._closer = threading.Timer(self.hold_open_s, self._close_if_idle)
                            self._closer.daemon = True
                            self._closer.start()
                        else:
                            self._close()

    def _close_if_idle(self) -> None:
        with self.lock:
            if self._depth == 0:
                self._closer = None
                try:
                    self._close()
                except StoreError as exc:
                    # A timer thread has no caller to raise to; the next open reports anew.
                    log.error("%s", exc)

    def _close(self) -> None:
        self.on_close()
        self.engine.close()

    def close(self) -> None:
        """Close the engine now (it must not be in use)."""
        with self.lock:
            if self._closer is not None:
                self._closer.cancel()
                self._closer = None
            if self._depth == 0:
                self._close()
