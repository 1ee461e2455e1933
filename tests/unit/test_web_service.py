"""`ragwire serve --sync-every`: the duration parsed, and the sync run in the server process under the request lock."""

from __future__ import annotations

import threading
import time

import pytest

from ragwire.errors import ConfigError, SourceError
from ragwire.web import parse_duration
from ragwire.web.service import Service


@pytest.mark.parametrize(("text", "seconds"), [("30s", 30), ("10m", 600), ("1.5h", 5400), ("1d", 86400),
                                               ("45", 45), (" 2 min ", 120)])
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(("text", "message"), [("soon", "write a duration such as 30s"),
                                               ("10 parsecs", "write a duration"),
                                               ("0.5s", "sync at most once a second")])
def test_a_bad_duration_is_a_config_error_naming_the_flag(text, message):
    with pytest.raises(ConfigError, match=f"--sync-every {text!r}: {message}"):
        parse_duration(text)


class FakeStats:
    def to_dict(self) -> dict:
        return {"added": 1, "deleted": 0}


class FakeRag:
    """Counts syncs; the first fails, as a source that is briefly unreachable would."""

    def __init__(self) -> None:
        self.service: Service | None = None
        self.syncs = 0
        self.locked: list[bool] = []
        self.done = threading.Event()

    def sync(self) -> FakeStats:
        self.syncs += 1
        assert self.service is not None
        self.locked.append(threading.current_thread().name == "ragwire-writer")
        if self.syncs >= 3:
            self.done.set()
        if self.syncs == 1:
            raise SourceError("s3://bucket: unreachable")
        return FakeStats()


def test_the_sync_runs_at_once_then_every_interval_in_the_one_writer_and_survives_a_failure(caplog):
    rag = FakeRag()
    service = Service(rag)  # type: ignore[arg-type]
    rag.service = service
    started = time.monotonic()
    thread = service.sync_every(0.05)
    assert rag.done.wait(10), rag.syncs
    service.stop()
    thread.join(5)
    assert not thread.is_alive() and rag.syncs >= 3 and all(rag.locked)
    assert time.monotonic() - started >= 0.1  # two intervals between three runs
    assert "sync failed: s3://bucket: unreachable" in caplog.text
