"""The writer lease: one write run at a time per collection (issue #10 item 4).

The lease logic runs against the server engine's API (qdrant-client local mode
stands in for a server) with a fake clock, so expiry and takeover need no real waiting.
"""

from __future__ import annotations

import threading
import time

import pytest

from ragwire import RAGWire
from ragwire.chunk import Chunk
from ragwire.errors import StoreLockedError
from ragwire.ingest import source_id
from ragwire.store import Collection, ServerEngine, chunk_point_id
from ragwire.store.lease import WriterLease

from ..stubs import StubServer
from .helpers import write_config
from .test_ingest_safety import chunks_per_source, write_corpus


class FakeClock:
    """Time that moves only when someone sleeps."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def coll(tmp_path):
    collection = Collection(ServerEngine("lease_test", path=tmp_path / "qdrant"), "lease_test")
    with collection.opened():
        collection.ensure(embedding_model="fake", dimension=4, sparse=False)
        yield collection


def lease(coll: Collection, clock: FakeClock, ttl_s: float = 60.0) -> WriterLease:
    """One writer: in production, another process or machine with its own lease object."""
    return WriterLease(coll._engine, ttl_s=ttl_s, clock=clock, sleep=clock.sleep)


def test_a_free_lease_is_taken_and_invisible_to_readers(coll):
    clock = FakeClock()
    a = lease(coll, clock)
    a.acquire(0)
    held = a.current()
    assert held is not None and held.holder == a.holder and held.expires_at == pytest.approx(clock.now + 60 - 0.2)
    assert coll.count() == 0 and coll.sources() == {}
    a.release()
    assert a.current() is None


def test_a_live_lease_refuses_a_second_writer_after_its_wait(coll):
    clock = FakeClock()
    a, b = lease(coll, clock), lease(coll, clock)
    a.acquire(0)
    with pytest.raises(StoreLockedError, match=r"being written by another run .*pid \d+.*expires in 60 s"):
        b.acquire(0)
    start = clock.now
    with pytest.raises(StoreLockedError, match="being written by another run"):
        b.acquire(30)
    assert clock.now - start == pytest.approx(30)
    assert a.current().holder == a.holder


def test_a_waiter_takes_over_once_a_dead_holders_lease_expires(coll):
    clock = FakeClock()
    a, b = lease(coll, clock), lease(coll, clock)
    a.acquire(0)
    expires = a.current().expires_at
    # a is "killed": it never renews nor releases.
    b.acquire(120)
    assert b.current().holder == b.holder
    assert clock.now >= expires
    # The old holder finds out at its next renewal and stops, every time it tries.
    with pytest.raises(StoreLockedError, match="lapsed .* another run"):
        a.renew(force=True)
    with pytest.raises(StoreLockedError, match="lapsed"):
        a.renew()
    # Its release leaves the new holder's lease alone.
    a.release()
    assert b.current().holder == b.holder
    b.release()
    assert b.current() is None


def test_a_holder_that_renews_keeps_the_lease_past_its_ttl(coll):
    clock = FakeClock()
    a, b = lease(coll, clock), lease(coll, clock)
    a.acquire(0)
    for _ in range(5):
        clock.now += 30
        a.renew()
        with pytest.raises(StoreLockedError):
            b.acquire(0)
    assert a.current().holder == a.holder


def test_renewal_writes_at_most_every_third_of_the_ttl(coll):
    clock = FakeClock()
    a = lease(coll, clock)
    a.acquire(0)
    first = a.current().expires_at
    clock.now += 10
    a.renew()
    assert a.current().expires_at == first
    clock.now += 15
    a.renew()
    assert a.current().expires_at == pytest.approx(clock.now + 60)


def test_a_rival_that_writes_during_the_confirm_pause_wins(coll):
    # Both read "free"; the rival's write lands last, so the re-read shows it and we wait.
    clock = FakeClock()
    a, rival = lease(coll, clock), lease(coll, clock)

    def rival_writes_then_sleep(seconds: float) -> None:
        if rival.holder is None:
            rival._write("rival", clock.now)
            rival.holder = "rival"
        clock.sleep(seconds)

    a.sleep = rival_writes_then_sleep
    with pytest.raises(StoreLockedError):
        a.acquire(0)
    assert a.holder is None and a.current().holder == "rival"


def test_threads_of_one_process_queue_on_the_collection(coll):
    inside, proceed, results = threading.Event(), threading.Event(), []

    def first() -> None:
        with coll.writing(wait_s=0):
            inside.set()
            proceed.wait(10)

    worker = threading.Thread(target=first)
    worker.start()
    assert inside.wait(10)
    with pytest.raises(StoreLockedError, match="another thread of this process"):
        with coll.writing(wait_s=0):
            pass
    proceed.set()
    worker.join(10)
    with coll.writing(wait_s=0):
        results.append(coll.lease.current().holder == coll.lease.holder)
    assert results == [True]
    assert coll.lease.current() is None


def test_nested_write_blocks_share_one_lease(coll):
    with coll.writing(wait_s=0):
        holder = coll.lease.holder
        with coll.writing(wait_s=0):
            assert coll.lease.holder == holder
        assert coll.lease.current().holder == holder
    assert coll.lease.current() is None


@pytest.fixture
def stub():
    with StubServer(dim=16) as server:
        yield server


def stub_qdrant_config(tmp_path, stub):
    return write_config(
        tmp_path, engine="qdrant",
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        splitter={"strategy": "markdown", "chunk_size": 200, "chunk_overlap": 0},
        ingestion={"retries": 2, "retry_backoff": 0.01, "batch_size": 4},
        vectorstore={"write_wait_s": 120},
    )


def test_two_threads_ingesting_overlapping_folders_store_each_file_once(tmp_path, stub):
    # Guards the interleaving of two runs' pending / flip / delete on one server collection.
    docs = tmp_path / "docs"
    write_corpus(docs, 20)
    write_corpus(docs / "more", 20)

    clean = RAGWire(stub_qdrant_config(tmp_path / "clean", stub))
    clean.ingest_directory(docs, recursive=True)
    expected = chunks_per_source(clean)
    clean.close()

    config = stub_qdrant_config(tmp_path / "shared", stub)
    writers = [RAGWire(config), RAGWire(config)]
    assert writers[0].collection is writers[1].collection
    start, results, errors = threading.Barrier(2), [], []

    def ingest(rag: RAGWire, folder, recursive: bool) -> None:
        try:
            start.wait(10)
            results.append(rag.ingest_directory(folder, recursive=recursive))
        except Exception as exc:  # reported below, with the thread's failure
            errors.append(exc)

    threads = [threading.Thread(target=ingest, args=(writers[0], docs, True)),
               threading.Thread(target=ingest, args=(writers[1], docs / "more", False))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert sorted(r["processed"] + r["skipped"] for r in results) == [20, 40]
    assert sum(r["processed"] for r in results) == 40
    assert chunks_per_source(writers[0]) == expected
    with writers[0].collection.opened() as coll:
        assert coll.count() == sum(expected.values())
        assert coll.lease.current() is None
    writers[0].close()


def test_another_runs_pending_chunks_are_cleaned_only_once_its_lease_expired(tmp_path, stub):
    # Guards against a run discarding the pending chunks of a run that is still writing.
    docs = write_corpus(tmp_path / "docs", 3)
    config = write_config(
        tmp_path, engine="qdrant",
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        splitter={"strategy": "markdown", "chunk_size": 200, "chunk_overlap": 0},
        vectorstore={"write_wait_s": 0},
    )
    rag = RAGWire(config)
    rag.ingest_documents(docs)
    coll, source = rag.collection, source_id(docs[0])
    with coll.opened():
        file_hash = next(iter(coll.source_state(source).complete))
        half = Chunk.from_metadata("half written", {"source": source, "file_hash": file_hash, "content_hash": "x"}) \
            .placed(chunk_point_id(source, file_hash, 0, "other-run"), None, None)
        coll.write_pending([half], "other-run")
        other = WriterLease(coll._engine, clock=lambda: time.time() + 1000, sleep=lambda s: None)
        other.acquire(0)

    with pytest.raises(StoreLockedError, match="being written by another run"):
        rag.ingest_documents(docs)
    with coll.opened():
        assert coll.source_state(source).pending == 1
        # The other run is killed: its lease is left behind and runs out.
        other._write(other.holder, time.time() - 1000)

    stats = rag.ingest_documents(docs)
    assert stats["skipped"] == 3
    with coll.opened():
        assert coll.source_state(source).pending == 0
        assert coll.lease.current() is None
    rag.close()
