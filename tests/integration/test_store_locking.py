"""One process at a time in an embedded store, through a lock file of ragwire's own:
the others wait for it, or give up with a one-line error, and never disturb the holder."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ragwire import RAGWire
from ragwire.errors import StoreLockedError
from ragwire.store import Collection, EdgeEngine

from ..stubs import StubServer
from .helpers import write_config
from .test_ingest_safety import write_corpus

DIM = 8
RAGWIRE = str(Path(sys.executable).parent / "ragwire")
FILES = 12


def held_collection(root) -> Collection:
    coll = Collection(EdgeEngine(root, "c"), "c")
    with coll.opened():
        coll.ensure(embedding_model="m", dimension=DIM, sparse=False)
    return coll


def test_a_waiter_never_asks_edge_to_load_a_store_another_holds(tmp_path, monkeypatch):
    # Bug guarded: a waiter retried EdgeShard.load, and each failed load damaged the holder's next flush.
    import qdrant_edge

    holder = held_collection(tmp_path)
    loads = []
    load = qdrant_edge.EdgeShard.load
    with holder.opened():
        monkeypatch.setattr(qdrant_edge.EdgeShard, "load",
                            staticmethod(lambda *a, **k: loads.append(a) or load(*a, **k)))
        other = EdgeEngine(tmp_path, "c", lock_wait_s=0.5)
        with pytest.raises(StoreLockedError, match="in use by another process"):
            other.open()
        assert loads == []
    other.open()
    assert len(loads) == 1
    other.close()


def test_a_waiter_gets_the_store_as_soon_as_the_holder_closes(tmp_path):
    holder = held_collection(tmp_path)
    holding = threading.Event()

    def hold_for_half_a_second():
        with holder.opened():
            holding.set()
            time.sleep(0.5)

    thread = threading.Thread(target=hold_for_half_a_second)
    thread.start()
    assert holding.wait(10)
    other = EdgeEngine(tmp_path, "c", lock_wait_s=20)
    started = time.monotonic()
    other.open()
    waited = time.monotonic() - started
    thread.join()
    assert 0.2 < waited < 5
    assert other.count() == 1  # the meta point
    other.close()


def test_the_lock_file_sits_next_to_the_collection_folder_and_is_free_after_close(tmp_path):
    held_collection(tmp_path)
    assert (tmp_path / ".c.lock").is_file()
    import fcntl

    with open(tmp_path / ".c.lock") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if a closed store kept its lock


# -- real processes ---------------------------------------------------------------


@pytest.fixture
def stub():
    # A little latency per embedding request keeps the ingest running while others poll.
    with StubServer(dim=16, delay=0.05) as server:
        yield server


def make_config(folder, stub):
    return write_config(
        folder,
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        splitter={"strategy": "markdown", "chunk_size": 200, "chunk_overlap": 0},
        ingestion={"batch_size": 4, "retries": 0},
    )


def start(*args) -> subprocess.Popen:
    return subprocess.Popen([RAGWIRE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ))


def stored_once(config) -> dict[str, int]:
    """source → complete chunks; asserts one complete version per source and nothing else."""
    rag = RAGWire(config)
    out = {}
    with rag.collection.opened() as coll:
        for source in coll.sources():
            state = coll.source_state(source)
            assert state.pending == 0 and len(state.complete) == 1, f"{source}: {state}"
            out[source] = sum(state.complete.values())
        assert coll._engine.count(None) == sum(out.values()) + 1  # + the meta point
    rag.close()
    return out


def test_stats_polled_during_a_first_ingest_never_disturb_it(tmp_path, stub):
    docs = tmp_path / "docs"
    write_corpus(docs, FILES, paragraphs=10)
    config = make_config(tmp_path, stub)
    ingest = start("ingest", str(docs), "--config", str(config))
    polls = []
    while ingest.poll() is None:
        stats = start("stats", "--config", str(config))
        out, err = stats.communicate(timeout=120)
        polls.append((stats.returncode, out, err))
        time.sleep(0.2)
    out, err = ingest.communicate(timeout=120)

    assert ingest.returncode == 0, err
    assert f"{FILES} files, {FILES} processed, 0 skipped, 0 failed" in out
    assert "Traceback" not in err and "error" not in err.lower(), err
    assert polls, "the ingest ended before the first poll"
    for rc, out, err in polls:
        assert "Traceback" not in err, err
        if rc != 0:  # the only way a poll may fail: it waited and gave up, saying so on one line
            assert rc == 1 and err.count("\n") == 1 and "is in use by another process" in err, err
        else:
            assert "total_documents:" in out
    assert len(stored_once(config)) == FILES


def test_two_first_ingests_started_together_both_finish_cleanly(tmp_path, stub):
    # Bug guarded: both created the store at once and one died with a raw WouldBlock traceback.
    docs = tmp_path / "docs"
    write_corpus(docs, FILES, paragraphs=3)
    config = make_config(tmp_path, stub)
    first, second = (start("ingest", str(docs), "--config", str(config)) for _ in range(2))
    results = [proc.communicate(timeout=180) + (proc.returncode,) for proc in (first, second)]

    for out, err, rc in results:
        assert "Traceback" not in err, err
        assert rc == 0, err  # the later one waits for the earlier one, then finds nothing to do
        assert f"{FILES} files" in out
    processed = sorted(int(out.split(" files, ")[1].split(" processed")[0]) for out, _, _ in results)
    assert processed == [0, FILES], "each file is ingested by exactly one of the two runs"
    assert len(stored_once(config)) == FILES
