"""Reads first: a process that writes while it answers gives its reads the cores.

Embedding a batch of documents keeps both cores busy for about a second; a search or
an answer that arrives meanwhile waits its turn for a core, so a server's reads slow
several times over while it syncs.

In a serving process (:func:`serving`: ``ragwire serve``, ``ragwire mcp serve``) the one
writer thread runs ``WRITER_NICE_STEP`` nice levels below the process (:func:`background`),
and so do the threads it starts: the loaders, the embedding threads and the threads torch
starts from them.
The kernel then hands the cores to the threads answering reads whenever they want them,
in the middle of a batch too, and gives the writer what the reads leave; a steady stream
of reads slows a write but never stops it.

Where a thread's priority cannot be lowered (not Linux: there ``setpriority`` names a
process), reads say they are in flight (:func:`reading`) and the writer embeds each batch
in turns of ``TURN`` texts (:func:`in_turns`), each after the reads in flight finish, at
most ``MAX_WAIT_S`` of waiting a batch.  Any other process (a CLI ingest, a script) keeps
whole batches at its own priority; it only waits, before a batch, for reads of its own.
"""

from __future__ import annotations

import contextlib
import os
import sys
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
# How far below its readers a serving process's writer runs, in nice levels: ten levels are a
# weight of about 1/9 (the readers get ~90 % of a core both want), and other processes at
# the server's priority still leave the writer a share (at 19 below 0 it would get ~1.5 %).
WRITER_NICE_STEP = 10
MAX_NICE = 19

_idle = threading.Condition()
_reads = 0
_serving = False
# The priority the readers keep, once the writer thread has gone below it (None: not lowered).
_readers_nice: int | None = None


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


def is_serving() -> bool:
    """True in a process that answers reads while it writes (:func:`serving`)."""
    return _serving


def _nice() -> int | None:
    """The calling thread's nice value, on Linux (where it is per thread); None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    except OSError:
        return None


def background() -> bool:
    """Run the calling thread, and every thread it starts from now on, ``WRITER_NICE_STEP`` nice levels lower.

    For a serving process's writer thread: Linux keeps the nice value per thread and a
    new thread inherits its creator's, so everything the writer runs yields the cores to
    the threads answering reads.  True when the thread is now below them.
    """
    global _readers_nice
    before = _nice()
    if before is None or before >= MAX_NICE:
        return False  # not Linux, or the whole process already runs at the lowest priority
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(before + WRITER_NICE_STEP, MAX_NICE))
    except OSError:
        return False
    _readers_nice = before
    return True


def _below_readers() -> bool:
    """True in a thread that runs below this process's readers (the writer, or one it started)."""
    if _readers_nice is None:
        return False
    mine = _nice()
    return mine is not None and mine > _readers_nice


def in_turns(items: Sequence[T], max_wait_s: float = MAX_WAIT_S) -> Iterator[Sequence[T]]:
    """``items`` in one piece, or, in a serving process whose writer could not go below its readers, in turns of ``TURN``.

    Each turn first waits for the reads in flight; the waits of all turns share one
    ``max_wait_s``, so pacing slows a batch by at most that much.  Below the readers,
    the kernel does the pacing: the batch goes at once, whole.
    """
    if not _serving:
        wait_for_reads(max_wait_s)
        yield items
        return
    if _below_readers():
        yield items
        return
    budget = max_wait_s
    for start in range(0, len(items), TURN):
        if _reads and budget > 0:
            budget -= wait_for_reads(budget)
        yield items[start:start + TURN]
