"""Reads first: a process that writes while it answers gives its reads the cores.

Embedding a batch of documents keeps both cores busy for about a second; a search or
an answer that arrives meanwhile waits its turn for a core, so a server's reads slow
several times over while it syncs.  Reads say they are in flight (:func:`reading`); a
write run, before it sends each embedding batch, waits until none is (:func:`wait_for_reads`),
at most ``MAX_WAIT_S`` a batch, so a steady stream of reads slows a write but never stops it.
Within one process only: another process's reads are not seen.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

# The longest one embedding batch waits for reads to finish.
MAX_WAIT_S = 2.0

_idle = threading.Condition()
_reads = 0


@contextlib.contextmanager
def reading() -> Iterator[None]:
    """Mark a read (search, answer) in flight for the block."""
    global _reads
    with _idle:
        _reads += 1
    try:
        yield
    finally:
        with _idle:
            _reads -= 1
            if not _reads:
                _idle.notify_all()


def reads_in_flight() -> int:
    return _reads


def wait_for_reads(max_wait_s: float = MAX_WAIT_S) -> float:
    """Wait until no read is in flight, at most ``max_wait_s``; the seconds waited."""
    started = time.monotonic()
    with _idle:
        _idle.wait_for(lambda: _reads == 0, timeout=max_wait_s)
    return time.monotonic() - started
