"""What the interpreter's switch interval costs a read beside a writer busy in Python.

A serving process's writer spends much of a sync in Python code (loading, splitting,
bookkeeping), and a read takes the interpreter lock back each time it returns from the
network, the model or the store.  This times such a read — eight short waits, each followed
by a little Python — alone, then beside a thread running Python at a lower priority, at
the default switch interval and at the one a serving process uses (``ragwire.pacing.SWITCH_S``).

    python bench/gil_switch.py
"""

from __future__ import annotations

import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from ragwire.pacing import SWITCH_S, WRITER_NICE_STEP  # noqa: E402

READS = 300
WAITS_PER_READ = 8


def one_read() -> float:
    start = time.perf_counter()
    for _ in range(WAITS_PER_READ):
        time.sleep(0.0002)  # the network, the model or the store: the lock is released
        sum(range(200))  # then a little Python with the lock held
    return time.perf_counter() - start


def p50_p95(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return times[len(times) // 2] * 1000, times[int(len(times) * 0.95)] * 1000


def reads(beside_writer: bool, interval: float) -> tuple[float, float]:
    sys.setswitchinterval(interval)
    stop = threading.Event()

    def writer() -> None:
        if sys.platform.startswith("linux"):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WRITER_NICE_STEP)
        total = 0
        while not stop.is_set():
            for i in range(1000):
                total += i * i

    thread = threading.Thread(target=writer, daemon=True)
    if beside_writer:
        thread.start()
    try:
        return p50_p95([one_read() for _ in range(READS)])
    finally:
        stop.set()
        if beside_writer:
            thread.join()


def main() -> None:
    default = sys.getswitchinterval()
    alone = reads(False, default)
    rows = [("alone", default, alone)]
    for interval in (default, SWITCH_S):
        rows.append(("beside a writer", interval, reads(True, interval)))
    print(f"a read of {WAITS_PER_READ} waits, {READS} times: p50 / p95 ms, and p95 over the read alone")
    for label, interval, (p50, p95) in rows:
        print(f"  {label:16s} switch {interval * 1000:4.1f} ms   {p50:6.1f} / {p95:6.1f}   {p95 / alone[1]:5.1f}x")


if __name__ == "__main__":
    main()
