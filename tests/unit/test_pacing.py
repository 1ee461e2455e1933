"""Reads first: a serving process's writer runs below its readers; elsewhere a write run waits, batch by batch, for the reads answered in its process."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from ragwire import pacing


def hold_a_read(seconds: float) -> threading.Thread:
    started = threading.Event()

    def read() -> None:
        with pacing.reading():
            started.set()
            time.sleep(seconds)

    thread = threading.Thread(target=read)
    thread.start()
    started.wait()
    return thread


def test_a_write_batch_waits_until_the_read_in_flight_is_done():
    reader = hold_a_read(0.3)
    waited = pacing.wait_for_reads(max_wait_s=5)
    reader.join()
    assert 0.2 <= waited < 2.0
    assert pacing.reads_in_flight() == 0


def test_a_steady_read_slows_a_write_batch_but_never_stops_it():
    reader = hold_a_read(1.5)
    waited = pacing.wait_for_reads(max_wait_s=0.2)
    assert 0.15 <= waited < 1.0
    reader.join()


def test_with_no_read_in_flight_a_write_batch_does_not_wait():
    assert pacing.wait_for_reads(max_wait_s=5) < 0.05


def test_a_streamed_answer_is_a_read_until_its_last_piece(monkeypatch):
    from ragwire.pipeline import _read_while_iterated

    seen = []
    for _piece in _read_while_iterated(iter(["a", "b"])):
        seen.append(pacing.reads_in_flight())
    assert seen == [1, 1] and pacing.reads_in_flight() == 0


def test_a_process_that_never_answered_a_read_embeds_whole_batches(monkeypatch):
    monkeypatch.setattr(pacing, "_serving", False)
    items = list(range(3 * pacing.TURN + 1))
    assert [list(turn) for turn in pacing.in_turns(items)] == [items]


def test_a_serving_process_embeds_a_batch_in_turns_that_cover_it_in_order(monkeypatch):
    monkeypatch.setattr(pacing, "_serving", True)
    items = list(range(3 * pacing.TURN + 1))
    turns = [list(turn) for turn in pacing.in_turns(items)]
    assert len(turns) == 4 and all(len(t) <= pacing.TURN for t in turns)
    assert [i for turn in turns for i in turn] == items


def test_a_read_that_arrives_mid_batch_is_waited_for_before_the_next_turn(monkeypatch):
    monkeypatch.setattr(pacing, "_serving", True)
    turns = pacing.in_turns(list(range(2 * pacing.TURN)), max_wait_s=5)
    next(turns)
    reader = hold_a_read(0.3)  # arrives while the first turn is being embedded
    started = time.monotonic()
    next(turns)
    waited = time.monotonic() - started
    reader.join()
    assert 0.2 <= waited < 2.0


def test_all_turns_of_a_batch_share_one_wait_budget(monkeypatch):
    monkeypatch.setattr(pacing, "_serving", True)
    reader = hold_a_read(2.0)
    started = time.monotonic()
    turns = list(pacing.in_turns(list(range(4 * pacing.TURN)), max_wait_s=0.3))
    waited = time.monotonic() - started
    reader.join()
    assert len(turns) == 4 and 0.25 <= waited < 1.0


def test_reads_alone_leave_a_process_embedding_whole_batches_until_it_serves(monkeypatch):
    # guards: one read anywhere in a process (a test, a script) cut every later ingest's batches
    monkeypatch.setattr(pacing, "_serving", False)
    with pacing.reading():
        pass
    items = list(range(2 * pacing.TURN))
    assert len(list(pacing.in_turns(items))) == 1
    pacing.serving()
    assert len(list(pacing.in_turns(items))) == 2


linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="nice is per thread on Linux only")


def in_a_thread(fn):
    """``fn()`` run in a new thread; its return value."""
    out: list = []
    thread = threading.Thread(target=lambda: out.append(fn()))
    thread.start()
    thread.join()
    return out[0]


def nice_of_this_thread() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@linux_only
def test_the_writer_thread_and_the_threads_it_starts_run_below_the_readers(monkeypatch):
    monkeypatch.setattr(pacing, "_readers_nice", None)
    readers = nice_of_this_thread()

    def writer() -> tuple[bool, int, int]:
        lowered = pacing.background()
        return lowered, nice_of_this_thread(), in_a_thread(nice_of_this_thread)  # an embedding thread, say

    below = min(readers + pacing.WRITER_NICE_STEP, pacing.MAX_NICE)
    assert in_a_thread(writer) == (True, below, below)
    assert nice_of_this_thread() == readers  # the threads answering reads keep their priority


@linux_only
def test_below_the_readers_a_batch_goes_whole_at_once_while_a_read_is_in_flight(monkeypatch):
    monkeypatch.setattr(pacing, "_serving", True)
    monkeypatch.setattr(pacing, "_readers_nice", None)
    items = list(range(3 * pacing.TURN))
    reader = hold_a_read(1.0)

    def writer() -> tuple[int, float]:
        pacing.background()
        started = time.monotonic()
        turns = list(pacing.in_turns(items, max_wait_s=5))
        return len(turns), time.monotonic() - started

    count, waited = in_a_thread(writer)
    reader.join()
    assert count == 1 and waited < 0.5
    assert len(list(pacing.in_turns(items))) == 3  # a thread at the readers' priority still takes turns


@linux_only
def test_a_servers_jobs_run_below_the_threads_that_answer_reads(monkeypatch):
    monkeypatch.setattr(pacing, "_readers_nice", None)
    from ragwire.server.jobs import Writer

    writer = Writer()
    job = writer.submit("probe", lambda _job: nice_of_this_thread())
    while not writer.wait(job, 5):
        pass
    writer.stop()
    assert job.result == min(nice_of_this_thread() + pacing.WRITER_NICE_STEP, pacing.MAX_NICE) > nice_of_this_thread()
