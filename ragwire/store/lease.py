"""The writer lease: one writing run at a time per collection, across threads, processes and machines.

The lease is a point in the collection itself (fixed id, no vectors), so every
client of one Qdrant server sees the same lease.  It carries its holder and an
expiry; a holder renews it while it writes, and a lease left by a killed run
simply expires.  Qdrant has no compare-and-swap, so taking a free lease is a
write followed, after a short pause, by a read that confirms the lease is still
ours; see :meth:`WriterLease.acquire` for what that leaves open.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from dataclasses import dataclass
from typing import Callable

from ..errors import StoreLockedError
from ..logs import get_logger
from .engine import Engine, Point
from .filters import KIND_KEY, Cond, Filter
from .options import StoreOptions

log = get_logger(__name__)

LEASE_KIND = "lease"
LEASE_POINT_ID = str(uuid.uuid5(uuid.UUID("6f1c3f0e-2b1d-4c55-9a57-5d0b0c1e7a21"), "ragwire:writer-lease"))
HOLDER_KEY = "_lease_holder"

# Between writing our lease and reading it back: a rival that read "free" at the same
# moment has written by then, so the last write wins and both see the same winner.
CONFIRM_S = 0.2
POLL_S = 0.5


@dataclass(frozen=True)
class LeaseInfo:
    """The lease as stored: who holds it and until when (seconds since the epoch)."""

    holder: str
    host: str
    pid: int
    expires_at: float


class WriterLease:
    """Take, renew and release the lease point of one collection.

    ``clock`` and ``sleep`` are injectable so tests can move time by hand.  The
    expiry is wall-clock time, compared across machines: clocks that disagree by
    a sizeable part of ``ttl_s`` shorten or lengthen the lease by that much.
    """

    def __init__(self, engine: Engine, *, ttl_s: float = StoreOptions.lease_ttl_s, confirm_s: float = CONFIRM_S,
                 poll_s: float = POLL_S, clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if ttl_s <= 0:
            raise ValueError(f"writer lease ttl_s must be > 0, got {ttl_s}")
        self.engine = engine
        self.ttl_s = ttl_s
        self.confirm_s = confirm_s
        self.poll_s = poll_s
        self.clock = clock
        self.sleep = sleep
        self.holder: str | None = None
        self._renewed_at = 0.0
        # Set once another run took the lease from us: every later renewal refuses.
        self._lost: str | None = None

    # -- reading -------------------------------------------------------------
    def current(self) -> LeaseInfo | None:
        """The stored lease, expired or not; None when there is none."""
        records = self.engine.retrieve([LEASE_POINT_ID])
        if not records:
            return None
        p = records[0].payload
        if p.get(KIND_KEY) != LEASE_KIND:
            return None
        return LeaseInfo(str(p.get(HOLDER_KEY, "")), str(p.get("host", "")), int(p.get("pid", 0)),
                         float(p.get("expires_at", 0.0)))

    # -- taking and giving back ----------------------------------------------
    def _write(self, holder: str, now: float) -> None:
        self.engine.upsert([Point(id=LEASE_POINT_ID, payload={
            KIND_KEY: LEASE_KIND, HOLDER_KEY: holder, "host": socket.gethostname(), "pid": os.getpid(),
            "expires_at": now + self.ttl_s,
        })])

    def acquire(self, wait_s: float, what: str = "the collection") -> None:
        """Take the lease, waiting up to ``wait_s`` seconds for a live one to be released or expire.

        Two takers that both read "free" within ``confirm_s`` of each other both write;
        the one whose write lands last wins and the other sees it on its re-read and
        waits.  Only a write delayed by more than ``confirm_s`` (a stalled network)
        can still let both believe they hold it.

        Raises:
            StoreLockedError: another holder kept a live lease past ``wait_s``.
        """
        holder = uuid.uuid4().hex
        self._lost = None
        deadline = self.clock() + wait_s
        while True:
            now = self.clock()
            found = self.current()
            if found is None or found.expires_at <= now:
                self._write(holder, now)
                self.sleep(self.confirm_s)
                confirmed = self.current()
                if confirmed is not None and confirmed.holder == holder:
                    if found is not None:
                        log.info("%s: took over the writer lease of %s (pid %d), expired %.0f s ago",
                                 what, found.host, found.pid, now - found.expires_at)
                    self.holder = holder
                    self._renewed_at = self.clock()
                    return
                continue  # another taker won the race: its lease is live now
            now = self.clock()
            if now >= deadline:
                raise StoreLockedError(
                    f"{what} is being written by another run (host {found.host}, pid {found.pid}; "
                    f"its writer lease expires in {max(found.expires_at - now, 0):.0f} s unless renewed). "
                    "Wait for it to finish (sync --wait SECONDS), then retry; a lease left by a killed "
                    f"run expires {self.ttl_s:.0f} s after its last write."
                )
            self.sleep(max(min(self.poll_s, deadline - now, found.expires_at - now), 0.0))

    def renew(self, force: bool = False) -> None:
        """Push the expiry forward; cheap when called often (it writes at most every ``ttl_s / 3``).

        Raises:
            StoreLockedError: the lease expired and another run took it: this run must stop writing.
        """
        if self._lost is not None:
            raise StoreLockedError(self._lost)
        if self.holder is None:
            return
        now = self.clock()
        if not force and now - self._renewed_at < self.ttl_s / 3:
            return
        found = self.current()
        if found is not None and found.holder != self.holder and found.expires_at > now:
            self._lost = (
                f"the writer lease lapsed (no write for over {self.ttl_s:.0f} s) and another run "
                f"(host {found.host}, pid {found.pid}) took it; this run stopped writing"
            )
            raise StoreLockedError(self._lost)
        self._write(self.holder, now)
        self._renewed_at = now

    def release(self) -> None:
        """Give the lease back; a lease another run took over in the meantime is left alone."""
        holder, self.holder = self.holder, None
        if holder is not None:
            # A filtered delete only removes the point while it still names us.
            self.engine.delete(Filter(must=[Cond(KIND_KEY, value=LEASE_KIND), Cond(HOLDER_KEY, value=holder)]))
