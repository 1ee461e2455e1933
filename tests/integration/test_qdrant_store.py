"""The low-level QdrantStore and the LangChain helpers, on both engines."""

from __future__ import annotations

import threading

import pytest

from ragwire import QdrantStore, get_embedding, get_retriever, hybrid_search, mmr_search
from ragwire.errors import ConfigError, StoreLockedError


@pytest.fixture(scope="module")
def embedding():
    return get_embedding({"provider": "huggingface", "model_name": "sentence-transformers/all-MiniLM-L6-v2"})


@pytest.fixture(params=["edge", "qdrant"])
def store(request, tmp_path, embedding):
    config = {"path": str(tmp_path / "s"), "engine": request.param}
    s = QdrantStore(config, embedding, collection_name="low_level")
    s.create_collection(use_sparse=True)
    vs = s.get_store(use_sparse=True)
    vs.add_texts(
        ["Part SKU-88213-B is the left wheel", "Charging takes three hours", "Bread bakes for forty minutes"],
        metadatas=[{"kind": "parts", "file_hash": "abc"}, {"kind": "manual"}, {"kind": "Recipes"}],
    )
    return s


def test_store_searches_through_the_langchain_interface(store):
    vs = store.get_store()
    assert vs.similarity_search("how long to recharge", k=1)[0].page_content.startswith("Charging")
    assert hybrid_search(vs, "SKU-88213-B", k=1)[0].page_content.startswith("Part")
    assert len(mmr_search(vs, "anything", k=2)) == 2
    docs = get_retriever(vs, top_k=1, search_type="hybrid").invoke("bread")
    assert docs[0].metadata["kind"] == "Recipes"


def test_store_filters_and_facets(store):
    vs = store.get_store()
    hits = vs.similarity_search("anything", k=5, filter={"kind": "recipes"})
    assert [h.metadata["kind"] for h in hits] == ["Recipes"]
    assert sorted(store.get_field_values(["kind"])["kind"]) == ["Recipes", "manual", "parts"]
    assert store.file_hash_exists("abc") and not store.file_hash_exists("zzz")
    assert "kind" in store.get_metadata_keys()
    info = store.get_collection_info()
    assert info["points_count"] == 3 and info["vector_size"] == 384


def test_indexes_asked_for_by_name_are_made_even_for_ragwires_own_fields(store):
    vs = store.get_store()
    vs.add_texts(["Page two of the manual"], metadatas=[{"kind": "manual", "page_number": 2, "heading_path": "A > B"}])
    indexed = store.get_collection_info()["payload_indexes"]
    assert "metadata.page_number" not in indexed and "_ci.heading_path" not in indexed
    store.create_payload_indexes(["page_number", "heading_path"])
    indexed = store.get_collection_info()["payload_indexes"]
    assert indexed["metadata.page_number"] == "integer" and indexed["_ci.heading_path"] == "keyword"
    assert [h.page_content for h in vs.similarity_search("manual", k=5, filter={"page_number": 2})] == [
        "Page two of the manual"]


def test_add_texts_adds_beside_what_is_stored_and_leaves_nothing_pending(store):
    store.get_store().add_texts(["Tyres need 2.1 bar"], metadatas=[{"kind": "manual"}])
    with store.collection.opened() as coll:
        state = coll.source_state("langchain")
        assert state.pending == 0 and sum(state.complete.values()) == 4
        assert coll.count() == 4


def test_add_texts_waits_for_the_run_writing_the_collection(tmp_path, embedding):
    # guards issue 36: add_texts marked its chunks complete beside a running write, with no lease and no commit
    s = QdrantStore({"path": str(tmp_path / "s"), "write_wait_s": 0.2}, embedding, collection_name="busy")
    s.create_collection(use_sparse=False)
    vs = s.get_store(use_sparse=False)
    held, done = threading.Event(), threading.Event()

    def writer() -> None:
        with s.collection.writing():
            held.set()
            done.wait(10)

    thread = threading.Thread(target=writer)
    thread.start()
    assert held.wait(10)
    try:
        with pytest.raises(StoreLockedError, match="being written by another thread"):
            vs.add_texts(["Tyres need 2.1 bar"])
    finally:
        done.set()
        thread.join()
    vs.add_texts(["Tyres need 2.1 bar"])
    with s.collection.opened() as coll:
        assert coll.count() == 1


def test_get_retriever_rejects_unknown_search_types(store):
    with pytest.raises(ConfigError, match="not one of"):
        get_retriever(store.get_store(), search_type="fuzzy")


def test_store_config_errors_name_the_key(embedding):
    with pytest.raises(ConfigError, match="collection_name"):
        QdrantStore({"path": "/tmp/x"}, embedding, collection_name="bad name!")
