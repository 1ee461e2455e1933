"""The owner's one writer: uploads, deletes, syncs and handed-over CLI runs, one job at a time, in order.

Routes answer at once with a job id; the job runs in the writer thread and records its
progress per file, which ``GET /api/jobs/{id}`` and the page read.  Reads never wait for
it: the store shows them only committed versions while a job writes
(:mod:`ragwire.store.commits`), and the embedded engine's folder stays with this process.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

import ragwire.pacing as pacing
from ragwire.errors import NotFoundError

log = logging.getLogger(__name__)

# Finished jobs kept for GET /api/jobs/{id}; older ones are forgotten.
KEEP_JOBS = 200


@dataclass
class FileOutcome:
    """One file of a job: ``queued``, ``running``, ``processed``, ``skipped`` or ``failed`` (with the reason)."""

    name: str
    status: str = "queued"
    chunks: int = 0
    reason: str | None = None
    stored_as: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "chunks": self.chunks, "reason": self.reason,
                "stored_as": self.stored_as}


@dataclass
class Job:
    """A write waiting for, or running in, the writer; ``state`` is ``queued``, ``running``, ``done`` or ``failed``."""

    kind: str
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    state: str = "queued"
    files: list[FileOutcome] = field(default_factory=list)
    result: Any = None
    error: str | None = None
    exception: BaseException | None = field(default=None, repr=False)
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    position: int = 0  # the writer's count when queued: jobs run in this order

    @property
    def finished_ok(self) -> bool:
        return self.state == "done"

    def file(self, name: str) -> FileOutcome:
        return next(f for f in self.files if f.name == name)

    def to_dict(self) -> dict[str, Any]:
        counts = {status: sum(1 for f in self.files if f.status == status)
                  for status in ("processed", "skipped", "failed")}
        return {"id": self.id, "kind": self.kind, "state": self.state, "error": self.error,
                "files": [f.to_dict() for f in self.files], "counts": counts,
                "result": self.result if isinstance(self.result, (dict, list, int, str, type(None))) else None,
                "created": self.created, "started": self.started, "finished": self.finished}


class Writer:
    """One daemon thread running queued jobs in order; every state change wakes :meth:`wait` callers."""

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[Job, Callable[[Job], Any]] | None] = queue.Queue()
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._changed = threading.Condition()
        self._count = itertools.count(1)
        self._thread = threading.Thread(target=self._run, name="ragwire-writer", daemon=True)
        self._thread.start()

    def submit(self, kind: str, work: Callable[[Job], Any], files: list[FileOutcome] | None = None) -> Job:
        """Queue ``work(job)``; its return value becomes ``job.result``, a raised error ``job.error``."""
        job = Job(kind, files=list(files or []), position=next(self._count))
        with self._changed:
            self._jobs[job.id] = job
            while len(self._jobs) > KEEP_JOBS:
                oldest = next(iter(self._jobs.values()))
                if oldest.state in ("queued", "running"):
                    break
                self._jobs.popitem(last=False)
        self._queue.put((job, work))
        return job

    def get(self, job_id: str) -> Job:
        """The job of that id.

        Raises:
            NotFoundError: no job has that id (or it finished long ago and was forgotten).
        """
        with self._changed:
            job = self._jobs.get(job_id)
        if job is None:
            raise NotFoundError(f"no job {job_id!r}: it never existed or finished long ago (GET /api/jobs lists them)")
        return job

    def jobs(self) -> list[Job]:
        with self._changed:
            return list(self._jobs.values())

    def changed(self) -> None:
        """Wake :meth:`wait` callers: a job's files or state changed."""
        with self._changed:
            self._changed.notify_all()

    def wait(self, job: Job, timeout: float) -> bool:
        """Wait until ``job`` changes or ends, at most ``timeout`` seconds; True once it has ended."""
        with self._changed:
            if job.state not in ("done", "failed"):
                self._changed.wait(timeout)
            return job.state in ("done", "failed")

    def stop(self) -> None:
        self._queue.put(None)

    def _run(self) -> None:
        # Everything a job runs yields the cores to the threads answering reads (ragwire.pacing).
        pacing.background()
        while True:
            item = self._queue.get()
            if item is None:
                return
            job, work = item
            with self._changed:
                job.state, job.started = "running", time.time()
                self._changed.notify_all()
            try:
                result = work(job)
            except Exception as exc:  # the job's failure, reported by it; the writer goes on with the next
                log.warning("%s job %s failed: %s", job.kind, job.id, " ".join(str(exc).split()))
                with self._changed:
                    job.error, job.exception = " ".join(str(exc).split()), exc
                    job.state, job.finished = "failed", time.time()
                    self._changed.notify_all()
            else:
                with self._changed:
                    job.result = result
                    job.state, job.finished = "done", time.time()
                    self._changed.notify_all()
