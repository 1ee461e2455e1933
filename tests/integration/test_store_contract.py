"""One contract, two engines: Qdrant Edge (embedded) and qdrant-client (server API, local mode)."""

from __future__ import annotations

import hashlib
import math

import pytest

from ragwire.chunk import Chunk
from ragwire.errors import StoreError, StoreLockedError
from ragwire.store import (
    Collection,
    EdgeEngine,
    Fusion,
    ServerEngine,
    StoreOptions,
    build_filter,
    chunk_point_id,
)

DIM = 8


def fake_dense(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    vec = [b - 127.5 for b in digest[:DIM]]
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec]


@pytest.fixture(scope="module")
def bm25():
    import qdrant_edge

    return qdrant_edge.Bm25(qdrant_edge.Bm25Config(language="english"))


def sparse_of(bm25, text: str, query: bool = False):
    vec = bm25.embed_query(text) if query else bm25.embed_document(text)
    return (list(vec.indices), list(vec.values))


def make_chunks(bm25, source: str, file_hash: str, texts: list[str], extra: dict | None = None):
    out = []
    for i, text in enumerate(texts):
        meta = {
            "source": source,
            "file_name": source.rsplit("/", 1)[-1],
            "file_type": "txt",
            "file_hash": file_hash,
            "chunk_index": i,
            "total_chunks": len(texts),
            "content_hash": hashlib.sha256(text.encode()).hexdigest(),
            **(extra or {}),
        }
        out.append(Chunk.from_metadata(text, meta).placed(chunk_point_id(source, file_hash, i), fake_dense(text),
                                                         sparse_of(bm25, text)))
    return out


@pytest.fixture(params=["edge", "qdrant-local"])
def collection(request, tmp_path):
    if request.param == "edge":
        engine = EdgeEngine(tmp_path / "store", "docs")
    else:
        engine = ServerEngine("docs", path=tmp_path / "qdrant")
    coll = Collection(engine, "docs")
    with coll.opened():
        coll.ensure(embedding_model="test:fake", dimension=DIM, sparse=True)
        yield coll


def ingest(coll, bm25, source, file_hash, texts, run="r1", extra=None):
    chunks = make_chunks(bm25, source, file_hash, texts, extra)
    coll.ensure_indexes(chunks[0].metadata)
    coll.write_pending(chunks, run)
    return coll.commit_source(source, file_hash, run)


def test_pending_chunks_are_invisible_until_commit(collection, bm25):
    chunks = make_chunks(bm25, "/d/a.txt", "h1", ["alpha text", "beta text"])
    collection.write_pending(chunks, "run-1")
    assert collection.count() == 0
    assert collection.search(dense=fake_dense("alpha text"), limit=5) == []
    collection.commit_source("/d/a.txt", "h1", "run-1")
    assert collection.count() == 2


def test_commit_replaces_the_older_version_of_a_source(collection, bm25):
    ingest(collection, bm25, "/d/a.txt", "old", ["one", "two", "three"])
    removed = ingest(collection, bm25, "/d/a.txt", "new", ["uno", "dos"], run="r2")
    assert removed == 3
    state = collection.source_state("/d/a.txt")
    assert state.complete == {"new": 2} and state.pending == 0


def test_source_state_reports_two_complete_versions_as_unclean(collection, bm25):
    for run, fh in (("r1", "v1"), ("r2", "v2")):
        chunks = make_chunks(bm25, "/d/a.txt", fh, ["x", "y"])
        collection.write_pending(chunks, run)
        collection._engine.set_payload(build_filter({"file_hash": fh}) , {"_state": "complete"})
    state = collection.source_state("/d/a.txt")
    assert state.pending == 0 and set(state.complete) == {"v1", "v2"}
    assert collection.remove_other_versions("/d/a.txt", "v2") == 2
    after = collection.source_state("/d/a.txt")
    assert after.pending == 0 and after.complete == {"v2": 2}


def test_discard_pending_removes_only_unfinished_chunks(collection, bm25):
    ingest(collection, bm25, "/d/a.txt", "h1", ["kept"])
    collection.write_pending(make_chunks(bm25, "/d/a.txt", "h2", ["half", "written"]), "crashed")
    assert collection.discard_pending("/d/a.txt") == 2
    assert collection.source_state("/d/a.txt").complete == {"h1": 1}


def test_string_filters_match_case_insensitively(collection, bm25):
    ingest(collection, bm25, "/d/a.txt", "h1", ["apple report"], extra={"company": "Apple Inc."})
    ingest(collection, bm25, "/d/b.txt", "h2", ["orange report"], extra={"company": "Orange"})
    hits = collection.search(dense=fake_dense("report"), flt=build_filter({"company": "APPLE INC."}), limit=5)
    assert [h.payload["metadata"]["company"] for h in hits] == ["Apple Inc."]


def test_list_filter_means_any_of_and_dict_means_range(collection, bm25):
    for i, year in enumerate([2021, 2022, 2023, 2024]):
        ingest(collection, bm25, f"/d/{i}.txt", f"h{i}", [f"doc {i}"], extra={"year": year, "kind": f"K{i}"})
    assert collection.count(build_filter({"year": {"gte": 2022, "lte": 2023}})) == 2
    assert collection.count(build_filter({"kind": ["k0", "K3"]})) == 2
    assert collection.count(build_filter({"year": [2021, 2024]})) == 2
    assert collection.count(build_filter({"year": 2022, "kind": "k1"})) == 1


def test_bool_filters_match_true_and_false(collection, bm25):
    ingest(collection, bm25, "/d/scan.txt", "h1", ["scanned page", "second scanned page"], extra={"ocr": True})
    ingest(collection, bm25, "/d/text.txt", "h2", ["text page"], extra={"ocr": False})
    assert collection.count(build_filter({"ocr": True})) == 2
    assert collection.count(build_filter({"ocr": False})) == 1
    assert collection.count(build_filter({"ocr": [True, False]})) == 3
    hits = collection.search(dense=fake_dense("text page"), flt=build_filter({"ocr": True}), limit=5)
    assert {h.payload["metadata"]["source"] for h in hits} == {"/d/scan.txt"}


def test_sparse_search_finds_an_exact_identifier(collection, bm25):
    ingest(collection, bm25, "/d/a.txt", "h1", ["The fault E-4711 means lidar drift", "Charging takes three hours"])
    hits = collection.search(sparse=sparse_of(bm25, "E-4711", query=True), limit=1)
    assert "E-4711" in hits[0].payload["page_content"]


def test_hybrid_search_is_fused_by_the_engine(collection, bm25):
    ingest(collection, bm25, "/d/a.txt", "h1", ["red apples", "green pears", "blue berries"])
    hits = collection.search(dense=fake_dense("green pears"), sparse=sparse_of(bm25, "pears", True), limit=3,
                             fusion=Fusion(method="rrf"))
    assert hits[0].payload["page_content"] == "green pears"
    # RRF scores are rank-based, far below cosine similarities.
    assert hits[0].score < 0.5


def test_facets_return_distinct_values(collection, bm25):
    ingest(collection, bm25, "/d/a.txt", "h1", ["a1", "a2"], extra={"team": "red"})
    ingest(collection, bm25, "/d/b.txt", "h2", ["b1"], extra={"team": "blue"})
    assert sorted(collection.facet("team")) == ["blue", "red"]
    assert set(collection.sources()) == {"/d/a.txt", "/d/b.txt"}


def test_delete_source_returns_the_number_of_chunks_removed(collection, bm25):
    ingest(collection, bm25, "/d/a.txt", "h1", ["1", "2", "3"])
    ingest(collection, bm25, "/d/b.txt", "h2", ["4"])
    assert collection.delete_source("/d/a.txt") == 3
    assert collection.delete_source("/d/a.txt") == 0
    assert collection.count() == 1


def test_stored_vectors_are_returned_by_content_hash(collection, bm25):
    chunks = make_chunks(bm25, "/d/a.txt", "h1", ["reusable paragraph"])
    ingest(collection, bm25, "/d/a.txt", "h1", ["reusable paragraph"])
    stored = collection.stored_vectors("/d/a.txt")
    dense, sparse = stored[chunks[0].metadata["content_hash"]]
    assert dense == pytest.approx(chunks[0].dense, abs=1e-5)
    assert sparse[0] == chunks[0].sparse[0]


def test_opening_with_another_embedding_model_fails_clearly(collection):
    with pytest.raises(StoreError, match=r"test:fake \(8-d\).*other:model \(16-d\)"):
        collection.ensure(embedding_model="other:model", dimension=16, sparse=True)


def test_force_recreate_starts_an_empty_collection(collection, bm25):
    ingest(collection, bm25, "/d/a.txt", "h1", ["x"])
    collection.ensure(embedding_model="other:model", dimension=DIM, sparse=True, force_recreate=True)
    assert collection.count() == 0
    assert collection.meta().embedding_model == "other:model"


def test_use_sparse_on_a_dense_only_collection_is_refused(tmp_path):
    coll = Collection(EdgeEngine(tmp_path, "dense_only"), "dense_only")
    with coll.opened():
        coll.ensure(embedding_model="m", dimension=DIM, sparse=False)
        with pytest.raises(StoreError, match="without sparse vectors"):
            coll.ensure(embedding_model="m", dimension=DIM, sparse=True)


@pytest.mark.parametrize("kind", ["edge", "qdrant-local"])
def test_collection_survives_reopening(kind, tmp_path, bm25):
    def make():
        engine = EdgeEngine(tmp_path / "s", "c") if kind == "edge" else ServerEngine("c", path=tmp_path / "q")
        return Collection(engine, "c")

    first = make()
    with first.opened():
        first.ensure(embedding_model="m", dimension=DIM, sparse=True)
        ingest(first, bm25, "/d/a.txt", "h1", ["persisted text"])
    second = make()
    with second.opened():
        second.ensure(embedding_model="m", dimension=DIM, sparse=True)
        assert second.count() == 1


def test_a_second_open_of_an_edge_folder_is_reported_as_locked(tmp_path):
    holder = Collection(EdgeEngine(tmp_path, "c"), "c")
    with holder.opened():
        holder.ensure(embedding_model="m", dimension=DIM, sparse=True)
        other = EdgeEngine(tmp_path, "c", lock_wait_s=0.3)
        with pytest.raises(StoreLockedError, match="in use by another process"):
            other.open()


def test_the_store_stays_open_briefly_between_calls_then_releases_its_lock(tmp_path):
    import time

    coll = Collection(EdgeEngine(tmp_path, "c"), "c", StoreOptions(hold_open_s=0.3))
    with coll.opened():
        coll.ensure(embedding_model="m", dimension=DIM, sparse=True)
    shard = coll._engine._shard
    with coll.opened():
        assert coll._engine._shard is shard  # the second call reused the open shard
    deadline = time.monotonic() + 5
    while coll._engine._shard is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert coll._engine._shard is None
    other = EdgeEngine(tmp_path, "c", lock_wait_s=0.2)
    other.open()
    other.close()


def test_pipelines_on_one_folder_share_one_open_store(tmp_path):
    from types import SimpleNamespace

    from ragwire.store import open_collection

    config = SimpleNamespace(collection_name="c", resolved_engine="edge", path=tmp_path, hold_open_s=1.0)
    assert open_collection(config) is open_collection(config)


# Three chunks the dense and the sparse branch rank differently: dense prefers the first,
# BM25 finds only the third (the only one with the word "zebra").
_DISAGREE = ["alpha beta gamma", "delta epsilon", "zebra crossing"]


def _disagreeing_search(collection, bm25, fusion):
    ingest(collection, bm25, "/d/z.txt", "hz", _DISAGREE)
    return collection.search(dense=fake_dense(_DISAGREE[0]), sparse=sparse_of(bm25, "zebra", True), limit=3,
                              fusion=fusion)


def test_rrf_weights_let_one_branch_decide_the_order(collection, bm25):
    # a small k makes ranks count, so the weights decide between the two branches' favourites
    dense_led = _disagreeing_search(collection, bm25, Fusion(method="rrf", k=1, weights=(1.0, 0.1)))
    assert dense_led[0].payload["page_content"] == _DISAGREE[0]
    sparse_led = collection.search(dense=fake_dense(_DISAGREE[0]), sparse=sparse_of(bm25, "zebra", True), limit=3,
                                   fusion=Fusion(method="rrf", k=1, weights=(0.1, 1.0)))
    assert sparse_led[0].payload["page_content"] == _DISAGREE[2]


def test_dbsf_fuses_scaled_scores_not_ranks(collection, bm25):
    hits = _disagreeing_search(collection, bm25, Fusion(method="dbsf"))
    rrf = collection.search(dense=fake_dense(_DISAGREE[0]), sparse=sparse_of(bm25, "zebra", True), limit=3,
                            fusion=Fusion(method="rrf"))
    # RRF with k=60 stays near 2/61; each DBSF branch contributes up to 1.
    assert max(h.score for h in rrf) < 2 / 60
    assert max(h.score for h in hits) > 0.1
    assert {h.payload["page_content"] for h in hits} >= {_DISAGREE[0], _DISAGREE[2]}


def test_branch_prefetch_limits_bound_the_candidates(collection, bm25):
    texts = [f"common word number {i}" for i in range(8)]
    ingest(collection, bm25, "/d/many.txt", "hm", texts)
    query = (fake_dense(texts[0]), sparse_of(bm25, "common word", True))
    narrow = collection.search(dense=query[0], sparse=query[1], limit=1, fusion=Fusion(dense_limit=1, sparse_limit=1))
    wide = collection.search(dense=query[0], sparse=query[1], limit=8, fusion=Fusion(dense_limit=8, sparse_limit=8))
    assert len(narrow) == 1 and len(wide) == 8


def test_a_commit_makes_its_chunks_visible_only_when_its_block_ends(collection, bm25):
    ingest(collection, bm25, "/d/a.txt", "h1", ["old"])
    with collection.commit("/d/a.txt", "r2", file_hash="h2") as txn:
        txn.write(make_chunks(bm25, "/d/a.txt", "h2", ["new one", "new two"]))
        assert [r.payload["page_content"] for r in collection.scroll(limit=10)[0]] == ["old"]
    assert txn.removed == 1
    assert sorted(r.payload["page_content"] for r in collection.scroll(limit=10)[0]) == ["new one", "new two"]


def test_a_commit_that_raises_shows_nothing_and_the_next_one_discards_its_chunks(collection, bm25):
    with pytest.raises(RuntimeError, match="killed"):
        with collection.commit("/d/a.txt", "r1", file_hash="h1") as txn:
            txn.write(make_chunks(bm25, "/d/a.txt", "h1", ["half", "written"]))
            raise RuntimeError("killed")
    assert collection.count() == 0 and collection.source_state("/d/a.txt").pending == 2
    with collection.commit("/d/a.txt", "r2", file_hash="h2") as txn:
        txn.write(make_chunks(bm25, "/d/a.txt", "h2", ["whole"]))
    state = collection.source_state("/d/a.txt")
    assert state.pending == 0 and state.complete == {"h2": 1}


def test_a_commit_without_a_file_hash_adds_beside_the_stored_chunks(collection, bm25):
    ingest(collection, bm25, "/d/a.txt", "h1", ["kept"])
    with collection.commit("/d/a.txt", "r2") as txn:
        txn.write(make_chunks(bm25, "/d/a.txt", "h9", ["added"]))
    assert txn.removed == 0
    assert sorted(r.payload["page_content"] for r in collection.scroll(limit=10)[0]) == ["added", "kept"]


def test_commit_notes_are_read_once_per_open_of_an_embedded_store(tmp_path, bm25, monkeypatch):
    # guards issue 36: every read of the collection read the commit notes again
    import ragwire.store.collection as collection_module

    reads = []
    real = collection_module.read_notes
    monkeypatch.setattr(collection_module, "read_notes", lambda engine: reads.append(1) or real(engine))
    coll = Collection(EdgeEngine(tmp_path, "c"), "c")
    with coll.opened():
        coll.ensure(embedding_model="m", dimension=DIM, sparse=True)
        ingest(coll, bm25, "/d/a.txt", "h1", ["one", "two"])
        before = len(reads)
        for _ in range(5):
            assert coll.count() == 2
        assert len(reads) - before <= 1
