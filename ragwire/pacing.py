"""Reads first: a process that writes while it answers gives its reads the cores.

Embedding a batch of documents keeps both cores busy for about a second; a search or
an answer that arrives meanwhile waits its turn for a core, so a server's reads slow
several times over while it syncs.  Reads say they are in flight (:func:`reading`); a
write run, before it sends each embedding batch, waits until none is (:func:`wait_for_reads`),
at most ``MAX_WAIT_S`` a batch, so a steady stream of reads slows a write but never stops it.
Within one process only: another process's reads are not seen.

Waiting before a batch is not enough: a read that arrives while the batch is embedding
shares the cores with it for the whole batch (a second or more on two cores).  In a
serving process (:func:`serving`: ``ragwire serve``, ``ragwire mcp serve``), a batch is
therefore embedded in turns of ``TURN`` texts (:func:`in_turns`), each after the reads in
flight finish, so a read waits one turn.  Any other process (a CLI ingest, a script)
keeps whole batches.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

# The longest one embedding batch waits for reads to finish, all its turns together.
MAX_WAIT_S = 2.0
# Texts embedded between two looks for reads in a process that answers them: a
# fraction of a second of work on two cores (bench/server_bench.py --during-writes).
TURN = 8

_idle = threading.Condition()
_reads = 0
_serving = False


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


def serving() -> None:
    """Mark this process as one that answers reads while it writes: a server that owns its store."""
    global _serving
    _serving = True


def in_turns(items: Sequence[T], max_wait_s: float = MAX_WAIT_S) -> Iterator[Sequence[T]]:
    """``items`` in one piece, or, in a serving process, in turns of ``TURN``.

    Each turn first waits for the reads in flight; the waits of all turns share one
    ``max_wait_s``, so pacing slows a batch by at most that much.
    """
    if not _serving:
        wait_for_reads(max_wait_s)
        yield items
        return
    budget = max_wait_s
    for start in range(0, len(items), TURN):
        if _reads and budget > 0:
            budget -= wait_for_reads(budget)
        yield items[start:start + TURN]
