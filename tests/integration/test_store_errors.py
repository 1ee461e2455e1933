"""Engine failures leave as one-line StoreErrors, never raw: the server engine's against
real sockets on 127.0.0.1 (retryable exactly when a later attempt may succeed), and
the embedded engine's from Qdrant Edge itself."""

from __future__ import annotations

import socket

import pytest

from ragwire.errors import StoreError
from ragwire.store import Collection, EdgeEngine, Point, ServerEngine

from ..stubs.qdrant import QdrantStub


@pytest.fixture
def stub():
    with QdrantStub(collections={"docs": 3}) as server:
        yield server


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def raised(call) -> StoreError:
    with pytest.raises(StoreError) as info:
        call()
    assert "\n" not in str(info.value), "a store error must be one line"
    assert info.value.__cause__ is not None, "the original error is kept as the cause"
    return info.value


def test_the_stub_answers_like_qdrant(stub):
    engine = ServerEngine("docs", url=stub.url)
    assert engine.exists() and engine.count() == 3
    assert engine.search(dense=[0.1, 0.2]) == []
    assert not ServerEngine("other", url=stub.url).exists()


def test_a_refused_connection_is_retryable_and_names_the_url():
    url = f"http://127.0.0.1:{closed_port()}"
    err = raised(ServerEngine("docs", url=url, timeout=2).exists)
    assert err.retryable
    assert f"Qdrant at {url} is unreachable during collection_exists" in str(err)
    assert "Check vectorstore.url" in str(err)


def test_a_500_answer_is_retryable(stub):
    stub.status = 500
    err = raised(ServerEngine("docs", url=stub.url).count)
    assert err.retryable
    assert "HTTP 500" in str(err) and "stub failure" in str(err)


def test_a_slow_answer_times_out_as_retryable(stub):
    stub.delay = 2.5
    err = raised(ServerEngine("docs", url=stub.url, timeout=1).count)
    assert err.retryable
    assert "did not answer count within 1 s" in str(err) and "vectorstore.timeout" in str(err)


def test_a_missing_collection_is_not_retryable_and_says_what_to_do(stub):
    engine = ServerEngine("missing", url=stub.url)
    for call in (engine.count, lambda: engine.search(dense=[0.1, 0.2])):
        err = raised(call)
        assert not err.retryable
        assert "has no collection 'missing'" in str(err) and "HTTP 404" in str(err)
        assert "Run `ragwire ingest` first, or check vectorstore.collection_name" in str(err)


@pytest.mark.parametrize("status, fix", [(400, ""), (401, "Check vectorstore.api_key"), (403, "api_key")])
def test_other_refusals_are_not_retryable(stub, status, fix):
    stub.status = status
    err = raised(ServerEngine("docs", url=stub.url).count)
    assert not err.retryable
    assert f"refused count with HTTP {status}" in str(err) and fix in str(err)


def test_a_missing_collection_in_local_mode_is_a_store_error(tmp_path):
    err = raised(ServerEngine("missing", path=tmp_path / "q").count)
    assert not err.retryable and "has no collection 'missing'" in str(err)


# -- the embedded engine ---------------------------------------------------------


def test_an_edge_failure_is_wrapped_with_the_store_and_the_operation(tmp_path):
    coll = Collection(EdgeEngine(tmp_path, "c"), "c")
    with coll.opened():
        coll.ensure(embedding_model="m", dimension=8, sparse=False)
        bad = Point(id="6f1c3f0e-2b1d-4c55-9a57-5d0b0c1e7a22", payload={}, dense=[0.1] * 3)
        err = raised(lambda: coll._engine.upsert([bad]))
    assert not err.retryable
    assert str(err).startswith(f"embedded store at {tmp_path / 'c'}: upsert failed: ")
    assert "expected dim: 8, got 3" in str(err)


def test_a_damaged_edge_store_names_its_folder_and_the_fix(tmp_path):
    coll = Collection(EdgeEngine(tmp_path, "c"), "c")
    with coll.opened():
        coll.ensure(embedding_model="m", dimension=8, sparse=False)
    (tmp_path / "c" / "edge_config.json").write_text("{damaged")
    err = raised(lambda: coll.opened().__enter__())
    assert f"cannot open the embedded store at {tmp_path / 'c'}" in str(err)
    assert "If the folder is damaged, move it away and re-ingest." in str(err)
    free = EdgeEngine(tmp_path, "c").lock
    assert free.acquire(0), "a failed open must not keep the lock"
    free.release()
