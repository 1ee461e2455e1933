"""Reads first: a write run waits, batch by batch, for the reads answered in its process."""

from __future__ import annotations

import threading
import time

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
