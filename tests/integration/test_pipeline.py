"""End to end: RAGWire on the real embedded engine with the packaged MiniLM model."""

from __future__ import annotations

import pytest

from ragwire import RAGWire
from ragwire.errors import ConfigError, StoreError

from .helpers import write_config, write_topics


@pytest.fixture
def topics_rag(tmp_path):
    docs = write_topics(tmp_path / "docs")
    rag = RAGWire(write_config(tmp_path))
    stats = rag.ingest_documents([str(p) for p in docs])
    assert stats["processed"] == len(docs)
    return rag


def _names(docs):
    return [d.metadata["file_name"] for d in docs]


def test_hybrid_finds_an_exact_identifier_that_dense_only_misses(topics_rag):
    # Look-alike codes (ZX-9918-Q, ZX-8991-Q, ZX-9981-O) crowd the dense ranking.
    dense = topics_rag.retrieve("ZX-9981-Q", top_k=3, search_type="similarity")
    hybrid = topics_rag.retrieve("ZX-9981-Q", top_k=3, search_type="hybrid")
    assert "garden.md" not in _names(dense)
    assert "garden.md" in _names(hybrid)


def test_hybrid_finds_a_paraphrase_that_keyword_only_misses(topics_rag):
    query = "What is the recharge duration for the battery?"
    keyword = topics_rag.retrieve(query, top_k=3, search_type="keyword")
    hybrid = topics_rag.retrieve(query, top_k=3, search_type="hybrid")
    assert "charging.md" not in _names(keyword)
    assert "charging.md" in _names(hybrid)


def test_every_chunk_carries_identity_metadata(topics_rag):
    doc = topics_rag.retrieve("tomatoes", top_k=1)[0]
    meta = doc.metadata
    for key in ("source", "file_name", "file_type", "file_hash", "chunk_id", "chunk_index",
                "total_chunks", "content_hash"):
        assert key in meta, key
    assert meta["heading_path"] == "Garden"
    assert meta["file_type"] == "md"


def test_explicit_filters_restrict_results_case_insensitively(topics_rag):
    docs = topics_rag.retrieve("anything at all", top_k=5, filters={"file_name": "BIRDS.MD"})
    assert _names(docs) == ["birds.md"]
    docs = topics_rag.retrieve("anything", top_k=5, filters={"file_name": ["tax.md", "music.md"]})
    assert sorted(_names(docs)) == ["music.md", "tax.md"]


def test_mmr_returns_distinct_chunks(topics_rag):
    docs = topics_rag.retrieve("battery", top_k=3, search_type="mmr")
    assert len({d.id for d in docs}) == 3


def test_reingesting_unchanged_files_skips_them_and_writes_nothing(tmp_path):
    docs = write_topics(tmp_path / "docs")
    rag = RAGWire(write_config(tmp_path))
    first = rag.ingest_documents([str(p) for p in docs])
    before = {d.id: d.metadata["created_at"] for d in rag.retrieve("tomatoes", top_k=20, search_type="similarity")}
    second = rag.ingest_documents([str(p) for p in docs])
    after = {d.id: d.metadata["created_at"] for d in rag.retrieve("tomatoes", top_k=20, search_type="similarity")}
    assert first["chunks_created"] > 0
    assert second["skipped"] == len(docs) and second["processed"] == 0 and second["chunks_created"] == 0
    assert before == after
    assert rag.get_stats()["total_documents"] == first["chunks_created"]


def test_stats_identity_holds_with_failures_and_duplicates(tmp_path):
    docs = write_topics(tmp_path / "docs")
    broken = tmp_path / "docs" / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 this is not really a pdf")
    rag = RAGWire(write_config(tmp_path))
    paths = [str(docs[0]), str(broken), str(tmp_path / "missing.txt"), str(docs[0])]
    stats = rag.ingest_documents(paths)
    assert stats["total"] == 4
    assert stats["processed"] + stats["skipped"] + stats["failed"] == stats["total"]
    assert stats["failed"] == 2 and stats["processed"] == 1 and stats["skipped"] == 1
    errors = {e["file"].rsplit("/", 1)[-1]: e["error"] for e in stats["errors"]}
    assert "broken.pdf" in errors and "\n" not in errors["broken.pdf"]
    assert "not found" in errors["missing.txt"]


def test_ingest_directory_walks_the_bundled_examples(examples_store, examples_config):
    stats = examples_store.stats  # the shared store's ingest of examples/docs with this config
    assert stats["failed"] == 0, stats["errors"]
    rag = RAGWire(examples_config)
    assert stats["processed"] >= 7
    kinds = set(rag.get_field_values("file_type"))
    assert {"md", "txt", "pdf", "docx", "pptx", "xlsx", "html"} <= kinds
    top = rag.retrieve("E-4711", top_k=3)
    assert any("E-4711" in d.page_content for d in top)


def test_delete_document_removes_chunks_even_when_the_file_is_gone(tmp_path):
    docs = write_topics(tmp_path / "docs")
    rag = RAGWire(write_config(tmp_path))
    rag.ingest_documents([str(p) for p in docs])
    target = docs[0]
    target.unlink()
    removed = rag.delete_document(str(target))
    assert removed >= 1
    assert rag.delete_document(str(target)) == 0
    assert "garden.md" not in rag.get_field_values("file_name", limit=100)


def test_opening_a_collection_with_another_model_is_refused(tmp_path):
    docs = write_topics(tmp_path / "docs")
    RAGWire(write_config(tmp_path)).ingest_documents([str(docs[0])])
    other = write_config(tmp_path, embeddings={"provider": "huggingface", "model_name": "./other-model"})
    rag = RAGWire(other)
    with pytest.raises(StoreError, match="all-MiniLM-L6-v2.*other-model"):
        rag.retrieve("x")


def test_hybrid_on_a_dense_only_config_is_an_error_not_a_fallback(tmp_path):
    docs = write_topics(tmp_path / "docs")
    rag = RAGWire(write_config(tmp_path, vectorstore={"use_sparse": False}, retriever={"search_type": "similarity"}))
    rag.ingest_documents([str(docs[0])])
    with pytest.raises(ConfigError, match="needs sparse vectors"):
        rag.hybrid_search("tomatoes")


def test_the_server_engine_gives_the_same_ranking_as_the_embedded_one(tmp_path):
    docs = [str(p) for p in write_topics(tmp_path / "docs")]
    edge = RAGWire(write_config(tmp_path / "a"))
    server = RAGWire(write_config(tmp_path / "b", engine="qdrant"))
    edge.ingest_documents(docs)
    server.ingest_documents(docs)
    def ranked(rag, query):
        # RRF produces exact ties; the engines may order tied hits differently.
        hits = [(d.metadata["file_name"], round(d.metadata["score"], 5)) for d in rag.retrieve(query, top_k=4)]
        return sorted(hits, key=lambda h: (-h[1], h[0]))

    for query in ("battery recycling", "ZX-9981-Q", "bread crust"):
        assert ranked(edge, query) == ranked(server, query)


def test_hybrid_results_are_repeatable_and_ties_ordered_by_id(topics_rag):
    # Regression: tied RRF scores came back in a different order from call to call.
    runs = [[(d.id, d.metadata["score"]) for d in topics_rag.retrieve("ZX-9981-Q", top_k=4)] for _ in range(5)]
    assert all(run == runs[0] for run in runs)
    first = runs[0]
    for (id_a, score_a), (id_b, score_b) in zip(first, first[1:]):
        assert score_a > score_b or (score_a == score_b and id_a < id_b)
