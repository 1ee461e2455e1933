"""Failure containment, settings that take effect, isolated embedding clients, forced re-ingest.

Embeddings come from the stub OpenAI-compatible server through the real
langchain-openai client, except where the packaged local model is the point.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ragwire import RAGWire
from ragwire.cli import main
from ragwire.errors import IngestAborted, StoreError
from ragwire.ingest import source_id
from ragwire.store import collection as collection_module

from ..stubs import StubServer
from .helpers import write_config
from .test_ingest_safety import chunks_per_source, stub_config, write_corpus


@pytest.fixture
def stub():
    with StubServer(dim=16) as server:
        yield server


def test_two_api_keys_give_two_embedding_clients(tmp_path, stub):
    def rag_with(key, where):
        embeddings = {"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": key}
        return RAGWire(write_config(tmp_path / where, embeddings=embeddings))

    first, second, same = rag_with("key-one", "a"), rag_with("key-two", "b"), rag_with("key-one", "c")
    assert first.embedding is not second.embedding
    assert first.embedding is same.embedding  # one client per distinct behaviour, still shared


def test_changing_chunk_size_reprocesses_and_reuses_unchanged_chunk_texts(tmp_path, stub):
    paths = write_corpus(tmp_path / "docs", 6, paragraphs=4)
    # One long section per file: a smaller chunk_size re-cuts it, the short ones stay identical.
    for path in paths[:3]:
        path.write_text(path.read_text() + "\n## Long\n\n" + " ".join(["Belt tension log entry."] * 30) + "\n")
    def config_with(size):
        embeddings = {"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"}
        return write_config(tmp_path, embeddings=embeddings,
                            splitter={"strategy": "markdown", "chunk_size": size, "chunk_overlap": 0})

    config = config_with(300)
    first = RAGWire(config).ingest_documents(paths)
    assert first["processed"] == 6

    config = config_with(250)
    stub.reset()
    second = RAGWire(config).ingest_documents(paths)
    assert second["processed"] == 6 and second["skipped"] == 0
    assert second["replaced"] == 6
    assert second["reused_chunks"] > 0, "unchanged chunk texts must keep their vectors"
    assert 0 < second["embedded_chunks"] < second["chunks_created"]
    # Only re-cut texts were sent to the provider.
    assert all("Belt tension log entry." in text for text in stub.embedding_inputs())
    assert set(chunks_per_source(RAGWire(config))) == {source_id(p) for p in paths}

    third = RAGWire(config).ingest_documents(paths)
    assert third["skipped"] == 6 and third["processed"] == 0


def test_a_local_model_error_on_one_batch_fails_only_that_file(tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    paths = write_corpus(folder, 4)
    paths[1].write_text(paths[1].read_text() + "\n\nBOOM paragraph the model chokes on.\n")
    rag = RAGWire(write_config(tmp_path, ingestion={"batch_size": 64}))
    model_class = type(rag.embedding)
    real = model_class.embed_documents

    def flaky(self, texts):
        if any("BOOM" in t for t in texts):
            raise RuntimeError("CUDA-style kernel failure inside the model")
        return real(self, texts)

    monkeypatch.setattr(model_class, "embed_documents", flaky)
    stats = rag.ingest_documents(paths)
    assert stats["processed"] == 3 and stats["failed"] == 1
    error = stats["errors"][0]
    assert error["file"] == str(paths[1])
    assert "RuntimeError" in error["error"] and "\n" not in error["error"]


def test_a_model_that_cannot_load_stops_the_run_and_json_keeps_the_stats(tmp_path):
    docs = tmp_path / "docs"
    write_corpus(docs, 2)
    config = write_config(tmp_path, embeddings={"provider": "huggingface", "model_name": "./no-such-model"})
    result = CliRunner().invoke(main, ["ingest", str(docs), "--config", str(config), "--json"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("error: ") and "no-such-model" in lines[-1]
    stats = json.loads("\n".join(lines[:-1]))
    assert stats["total"] == 2 and stats["processed"] == 0 and "aborted" in stats


def test_a_store_unreachable_after_retries_stops_the_run_with_the_stats_so_far(tmp_path, stub, monkeypatch):
    paths = write_corpus(tmp_path / "docs", 5)
    rag = RAGWire(stub_config(tmp_path, stub, ingestion={"retries": 1, "retry_backoff": 0.0}))
    real = collection_module.Collection.write_pending
    calls = {"n": 0}

    def down_after_two_files(self, chunks, run_id, **kwargs):
        if chunks[0].metadata["file_name"] in ("doc-002.md", "doc-003.md", "doc-004.md"):
            calls["n"] += 1
            raise StoreError("Qdrant at http://127.0.0.1:9 is unreachable during upsert", retryable=True)
        return real(self, chunks, run_id, **kwargs)

    monkeypatch.setattr(collection_module.Collection, "write_pending", down_after_two_files)
    with pytest.raises(IngestAborted, match="unreachable") as caught:
        rag.ingest_documents(paths)
    stats = caught.value.stats
    assert stats["processed"] == 2 and stats["not_started"] == 3
    assert calls["n"] == 2, "the first failing file is retried once, then the run stops"
    monkeypatch.setattr(collection_module.Collection, "write_pending", real)
    again = rag.ingest_documents(paths)
    assert again["skipped"] == 2 and again["processed"] == 3


def test_a_raw_engine_error_on_one_files_write_fails_that_file_only(tmp_path, stub, monkeypatch):
    from ragwire.store import edge

    paths = write_corpus(tmp_path / "docs", 4)
    rag = RAGWire(stub_config(tmp_path, stub))
    real = edge.EdgeEngine._native_points

    def engine_refuses_one(self, points):
        if any(p.payload.get("metadata", {}).get("file_name") == "doc-001.md" for p in points):
            # What the Rust engine raises: a plain exception type with its own text.
            raise RuntimeError("Service internal error: wrong input: payload too large")
        return real(self, points)

    monkeypatch.setattr(edge.EdgeEngine, "_native_points", engine_refuses_one)
    stats = rag.ingest_documents(paths)
    assert stats["processed"] == 3 and stats["failed"] == 1
    error = stats["errors"][0]
    assert error["file"] == str(paths[1]) and "payload too large" in error["error"] and "\n" not in error["error"]
    monkeypatch.setattr(edge.EdgeEngine, "_native_points", real)
    with rag.collection.opened() as coll:
        assert coll.source_state(source_id(paths[1])).pending == 0, "no invisible leftovers of the failed file"
    assert rag.ingest_documents(paths)["processed"] == 1


def test_ingest_force_and_reingest_rewrite_unchanged_files_from_the_cli(tmp_path, stub):
    docs = tmp_path / "docs"
    paths = write_corpus(docs, 3)
    config = str(stub_config(tmp_path, stub))
    runner = CliRunner()
    first = runner.invoke(main, ["ingest", str(docs), "--config", config, "--json"])
    assert first.exit_code == 0, first.output
    before = chunks_per_source(RAGWire(config))

    forced = runner.invoke(main, ["ingest", str(docs), "--config", config, "--force", "--json"])
    assert forced.exit_code == 0, forced.output
    stats = json.loads(forced.output)
    assert stats["processed"] == 3 and stats["skipped"] == 0 and stats["reused_chunks"] == stats["chunks_created"]

    again = runner.invoke(main, ["reingest", str(paths[0]), str(paths[2]), "--config", config])
    assert again.exit_code == 0, again.output
    assert again.output.count("1 processed") == 2
    assert chunks_per_source(RAGWire(config)) == before, "a rewrite never duplicates or loses chunks"


def test_vectors_made_under_other_encode_options_are_never_reused(tmp_path, stub):
    """Vectors made under other encode options are never reused for the same text."""
    paths = write_corpus(tmp_path / "docs", 2)
    base = {"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"}
    config = write_config(tmp_path, embeddings=base)
    RAGWire(config).ingest_documents(paths)
    stub.reset()
    changed = write_config(tmp_path, embeddings={**base, "encode_kwargs": {"normalize_embeddings": False}})
    stats = RAGWire(changed).ingest_documents(paths)
    assert stats["processed"] == 2 and stats["reused_chunks"] == 0
    assert stats["embedded_chunks"] == stats["chunks_created"]


def test_a_failed_file_keeps_its_error_type_and_retryable(tmp_path, stub):
    # Regression: a LoaderError became a plain string on its way to the stats, losing its class.
    paths = write_corpus(tmp_path / "docs", 2)
    broken = tmp_path / "docs" / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 this is not really a pdf")
    stats = RAGWire(stub_config(tmp_path, stub)).ingest_documents([*paths, broken])
    assert stats["processed"] == 2 and stats["failed"] == 1
    error = stats["errors"][0]
    assert error["file"] == str(broken) and error["error"].startswith("broken.pdf: ")
    assert (error["error_type"], error["retryable"]) == ("LoaderError", False)


def test_on_file_is_told_each_files_outcome_as_the_run_records_it(tmp_path, stub):
    paths = write_corpus(tmp_path / "docs", 2)
    broken = tmp_path / "docs" / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 this is not really a pdf")
    rag = RAGWire(stub_config(tmp_path, stub))
    told: list[dict] = []
    stats = rag.ingest_documents([*paths, broken], on_file=told.append)
    assert [t["file"] for t in told] == [str(p) for p in [*paths, broken]]
    assert [t["status"] for t in told] == ["processed", "processed", "failed"]
    assert sum(t["chunks"] for t in told) == stats["chunks_created"] > 0
    assert told[2]["error"] == stats["errors"][0]["error"] and told[2]["error_type"] == "LoaderError"
    again: list[dict] = []
    rag.ingest_documents(paths[:1], on_file=again.append)
    assert again == [{"file": str(paths[0]), "status": "skipped", "chunks": 0, "reason": "unchanged"}]
