"""The free-space check before a write walks the store's files only when the answer could change."""

from __future__ import annotations

import pytest

from ragwire.errors import StoreFullError
from ragwire.store import space


@pytest.fixture
def measured(monkeypatch):
    """Counts the walks of the store (write_need) and lets a test set the free space."""
    calls = {"walks": 0, "free": 100 * space.TIGHT, "need": 64 * space.MiB}

    def write_need(folder):
        calls["walks"] += 1
        return calls["need"]

    monkeypatch.setattr(space, "write_need", write_need)
    monkeypatch.setattr(space, "free_bytes", lambda path: calls["free"])
    monkeypatch.setattr(space, "claim_holes", lambda folder: None)
    return calls


def test_writes_in_quick_succession_on_a_roomy_disk_measure_the_store_once(tmp_path, measured):
    room = space.WriteRoom(tmp_path)
    for _ in range(20):
        room.check()
    assert measured["walks"] == 1


def test_every_write_on_a_tight_disk_measures_the_store_afresh(tmp_path, measured):
    measured["free"] = space.ROOMY  # room for the write, but not so much that a measure may stand
    room = space.WriteRoom(tmp_path)
    for _ in range(5):
        room.check()
    assert measured["walks"] == 5


def test_a_measure_older_than_its_freshness_is_taken_again(tmp_path, measured, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(space.time, "monotonic", lambda: clock[0])
    room = space.WriteRoom(tmp_path)
    room.check()
    clock[0] += space.FRESH_S + 0.1
    room.check()
    assert measured["walks"] == 2


def test_a_disk_that_filled_since_the_last_measure_stops_the_write(tmp_path, measured):
    room = space.WriteRoom(tmp_path)
    room.check()
    measured["free"] = 10 * space.MiB  # another process filled the disk a moment later
    with pytest.raises(StoreFullError, match="cannot write to it"):
        room.check()
