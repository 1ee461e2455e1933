"""Ingestion never loses or duplicates data: replace, reingest, retries, workers, vector reuse.

Embeddings come from a stub OpenAI-compatible server through the real
langchain-openai client, so calls can be counted and failures scripted.
"""

from __future__ import annotations

import json

import pytest

from ragwire import RAGWire
from ragwire.ingest import source_id

from ..stubs import StubServer
from .helpers import write_config

PARAGRAPH = (
    "Section {i} of document {n}. The maintenance crew inspects conveyor {n}-{i} every week, "
    "records belt tension, and replaces worn rollers before they fail in service."
)


def write_corpus(folder, count: int, paragraphs: int = 3):
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(count):
        path = folder / f"doc-{n:03d}.md"
        body = "\n\n".join(f"## Part {i}\n\n" + PARAGRAPH.format(i=i, n=n) for i in range(paragraphs))
        path.write_text(f"# Document {n}\n\n{body}\n", encoding="utf-8")
        paths.append(path)
    return paths


@pytest.fixture
def stub():
    with StubServer(dim=16) as server:
        yield server


def stub_config(tmp_path, stub, **sections):
    sections.setdefault("ingestion", {})
    sections["ingestion"] = {"retries": 2, "retry_backoff": 0.01, "batch_size": 16, **sections["ingestion"]}
    return write_config(
        tmp_path,
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        splitter={"strategy": "markdown", "chunk_size": 200, "chunk_overlap": 0},
        **sections,
    )


def chunks_per_source(rag) -> dict[str, int]:
    counts: dict[str, int] = {}
    with rag.collection.opened() as coll:
        for source in coll.sources():
            state = coll.source_state(source)
            assert state.pending == 0, f"{source}: {state.pending} pending chunks left"
            assert len(state.complete) == 1, f"{source}: {len(state.complete)} versions stored"
            counts[source] = sum(state.complete.values())
    return counts


def test_changing_one_file_of_100_reembeds_only_its_changed_chunks(tmp_path, stub):
    paths = write_corpus(tmp_path / "docs", 100)
    rag = RAGWire(stub_config(tmp_path, stub))
    first = rag.ingest_documents(paths)
    assert first["processed"] == 100 and first["reused_chunks"] == 0
    before = chunks_per_source(rag)

    target = paths[42]
    text = target.read_text()
    old_paragraph = PARAGRAPH.format(i=1, n=42)
    target.write_text(text.replace(old_paragraph, "Part one was rewritten: rollers are now ceramic."))
    stub.reset()
    second = rag.ingest_documents(paths)

    assert second["processed"] == 1 and second["skipped"] == 99 and second["replaced"] == 1
    assert second["embedded_chunks"] == 1
    assert second["reused_chunks"] == before[source_id(target)] - 1
    assert stub.embedding_inputs() == ["## Part 1\n\nPart one was rewritten: rollers are now ceramic."]
    assert chunks_per_source(rag) == before


def test_two_server_errors_then_success_goes_through_retries(tmp_path, stub):
    paths = write_corpus(tmp_path / "docs", 3)
    rag = RAGWire(stub_config(tmp_path, stub))
    rag.parts.dimension()  # the dimension probe is not part of what is being tested
    stub.reset()
    stub.script_failures([500, 500])
    stats = rag.ingest_documents(paths)
    assert stats["failed"] == 0 and stats["processed"] == 3
    statuses = [r.status for r in stub.embedding_calls()]
    assert statuses[:3] == [500, 500, 200]


def test_a_file_whose_embedding_always_fails_is_failed_and_others_go_in(tmp_path, stub):
    paths = write_corpus(tmp_path / "docs", 4)
    poisoned = paths[2]
    poisoned.write_text(poisoned.read_text() + "\n\nPOISON paragraph that the provider rejects.\n")
    rag = RAGWire(stub_config(tmp_path, stub))
    rag.parts.dimension()
    stub.reset()
    stub.fail_marker = "POISON"
    stub.fail_always = 500
    stats = rag.ingest_documents(paths)
    assert stats["processed"] == 3 and stats["failed"] == 1
    assert stats["errors"][0]["file"] == str(poisoned)
    assert "after 3 attempts" in stats["errors"][0]["error"] and "\n" not in stats["errors"][0]["error"]
    stored = chunks_per_source(rag)
    assert source_id(poisoned) not in stored and len(stored) == 3
    # It is retried on the next run, and goes in once the provider recovers.
    stub.fail_always = None
    again = rag.ingest_documents(paths)
    assert again["processed"] == 1 and again["skipped"] == 3


def test_workers_do_not_change_results_or_their_order(tmp_path, stub):
    paths = write_corpus(tmp_path / "docs", 12)
    broken = tmp_path / "docs" / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 not really")
    order = [str(p) for p in paths[:6]] + [str(broken)] + [str(p) for p in paths[6:]]
    results = []
    for workers in (1, 3):
        rag = RAGWire(stub_config(tmp_path / f"w{workers}", stub, ingestion={"workers": workers}))
        stats = rag.ingest_documents(order)
        results.append((stats, chunks_per_source(rag)))
    (one, one_chunks), (three, three_chunks) = results
    assert one == three
    assert one_chunks == three_chunks


def test_embedding_is_batched_across_small_documents(tmp_path, stub):
    paths = write_corpus(tmp_path / "docs", 20, paragraphs=1)
    rag = RAGWire(stub_config(tmp_path, stub, ingestion={"batch_size": 64}))
    rag.parts.dimension()
    stub.reset()
    stats = rag.ingest_documents(paths)
    calls = stub.embedding_calls()
    assert stats["chunks_created"] == 20
    assert len(calls) == 1 and len(calls[0].inputs) == 20


def test_replace_changed_false_keeps_the_old_version_beside_the_new(tmp_path, stub):
    paths = write_corpus(tmp_path / "docs", 1)
    rag = RAGWire(stub_config(tmp_path, stub, ingestion={"replace_changed": False}))
    rag.ingest_documents(paths)
    paths[0].write_text(paths[0].read_text() + "\n\n## Extra\n\nA new closing section.\n")
    stats = rag.ingest_documents(paths)
    assert stats["processed"] == 1 and stats["replaced"] == 0
    with rag.collection.opened() as coll:
        assert len(coll.source_state(source_id(paths[0])).complete) == 2


def test_reingest_rewrites_an_unchanged_file_without_duplicating_it(tmp_path, stub):
    paths = write_corpus(tmp_path / "docs", 2)
    rag = RAGWire(stub_config(tmp_path, stub))
    rag.ingest_documents(paths)
    before = chunks_per_source(rag)
    stats = rag.reingest_documents([paths[0]])
    assert stats["processed"] == 1 and stats["replaced"] == 1 and stats["skipped"] == 0
    assert stats["reused_chunks"] == before[source_id(paths[0])]
    assert chunks_per_source(rag) == before


def test_dedup_chunks_drops_repeated_text_within_a_document(tmp_path, stub):
    path = tmp_path / "docs" / "boiler.md"
    path.parent.mkdir()
    block = "## Notice\n\nThis filing contains forward-looking statements."
    path.write_text("# Filing\n\nAnnual report.\n\n" + "\n\n".join([block, "## Revenue\n\nRevenue grew.", block, block]))
    plain = RAGWire(stub_config(tmp_path / "plain", stub)).ingest_documents([path])
    dedup = RAGWire(stub_config(tmp_path / "dedup", stub, ingestion={"dedup_chunks": True})).ingest_documents([path])
    assert dedup["chunks_created"] == plain["chunks_created"] - 2


def test_ingest_state_lives_in_the_collection_not_beside_it(tmp_path, stub):
    paths = write_corpus(tmp_path / "docs", 3)
    config = stub_config(tmp_path, stub)
    RAGWire(config).ingest_documents(paths)
    # A fresh pipeline (another machine, say) sees the same state.
    again = RAGWire(config).ingest_documents(paths)
    assert again["skipped"] == 3
    store = tmp_path / "store"
    # Beside the collection there is only its lock file, which holds no state: at most
    # a note of who holds the store now, for the messages of processes that wait.
    assert sorted(p.name for p in store.iterdir()) == [".test_docs.lock", "test_docs"]
    note = (store / ".test_docs.lock").read_text()
    assert note == "" or set(json.loads(note)) == {"pid", "command", "role", "since"}
    # Only the engine's own files: its config, write-ahead log and segments.
    assert {p.name for p in (store / "test_docs").iterdir()} <= {"edge_config.json", "wal", "segments"}


def test_two_pipelines_with_disjoint_sources_share_one_collection(tmp_path, stub):
    a = write_corpus(tmp_path / "a", 3)
    b = [p.rename(p.with_name("b-" + p.name)) for p in write_corpus(tmp_path / "b", 2)]
    config = stub_config(tmp_path, stub)
    RAGWire(config).ingest_documents(a)
    RAGWire(config).ingest_documents(b)
    counts = chunks_per_source(RAGWire(config))
    assert len(counts) == 5
    assert RAGWire(config).ingest_documents(a)["skipped"] == 3
    assert len(chunks_per_source(RAGWire(config))) == 5


def test_embedding_calls_are_full_batches_across_files(tmp_path, stub):
    # Regression: a flush used to embed a partial batch for every few files.
    paths = write_corpus(tmp_path / "docs", 9, paragraphs=3)
    rag = RAGWire(stub_config(tmp_path, stub, ingestion={"batch_size": 8}))
    rag.parts.dimension()
    stub.reset()
    stats = rag.ingest_documents(paths)
    sizes = [len(call.inputs) for call in stub.embedding_calls()]
    assert sum(sizes) == stats["chunks_created"]
    assert all(size == 8 for size in sizes[:-1]) and 0 < sizes[-1] <= 8


def test_reingest_replaces_the_old_version_even_with_replace_changed_off(tmp_path, stub):
    paths = write_corpus(tmp_path / "docs", 1)
    rag = RAGWire(stub_config(tmp_path, stub, ingestion={"replace_changed": False}))
    rag.ingest_documents(paths)
    paths[0].write_text(paths[0].read_text() + "\n\n## Extra\n\nA new closing section.\n")
    rag.ingest_documents(paths)
    stats = rag.reingest_documents(paths)
    assert stats["replaced"] == 1
    with rag.collection.opened() as coll:
        assert len(coll.source_state(source_id(paths[0])).complete) == 1


def test_a_skipped_file_loses_the_pending_leftovers_of_an_interrupted_run(tmp_path, stub):
    from ragwire.chunk import Chunk
    from ragwire.store import chunk_point_id

    paths = write_corpus(tmp_path / "docs", 1)
    rag = RAGWire(stub_config(tmp_path, stub))
    rag.ingest_documents(paths)
    source = source_id(paths[0])
    with rag.collection.opened() as coll:
        file_hash = next(iter(coll.source_state(source).complete))
        meta = {"source": source, "file_hash": file_hash, "content_hash": "x", "total_chunks": 1}
        leftover = Chunk.from_metadata("half", meta).placed(chunk_point_id(source, file_hash, 0, "dead-run"),
                                                            stub.vector("half"), None)
        coll.write_pending([leftover], "dead-run")
        assert coll.source_state(source).pending == 1
    assert rag.ingest_documents(paths)["skipped"] == 1
    with rag.collection.opened() as coll:
        assert coll.source_state(source).pending == 0


def test_a_query_embedding_outage_is_a_one_line_provider_error(tmp_path, stub):
    from ragwire.errors import ProviderError

    paths = write_corpus(tmp_path / "docs", 1)
    rag = RAGWire(stub_config(tmp_path, stub))
    rag.ingest_documents(paths)
    stub.fail_always = 503
    with pytest.raises(ProviderError, match="query embedding failed after 3 attempts"):
        rag.retrieve("conveyor")


def test_top_k_zero_is_an_error_not_the_default(tmp_path, stub):
    from ragwire.errors import ConfigError

    rag = RAGWire(stub_config(tmp_path, stub))
    rag.ingest_documents(write_corpus(tmp_path / "docs", 1))
    with pytest.raises(ConfigError, match="at least 1"):
        rag.retrieve("conveyor", top_k=0)


def test_an_unchanged_resync_never_loads_or_calls_the_embedding_model(tmp_path, stub):
    paths = write_corpus(tmp_path / "docs", 5)
    config = stub_config(tmp_path, stub)
    RAGWire(config).ingest_documents(paths)
    stub.reset()
    fresh = RAGWire(config)
    assert fresh.ingest_documents(paths)["skipped"] == 5
    assert fresh.parts._embedding is None
    assert stub.requests == []


def test_workers_send_embedding_batches_to_an_http_provider_concurrently(tmp_path):
    with StubServer(dim=16, delay=0.2) as slow:
        paths = write_corpus(tmp_path / "docs", 12, paragraphs=4)
        results = {}
        for workers in (1, 3):
            rag = RAGWire(stub_config(tmp_path / f"w{workers}", slow, ingestion={"workers": workers, "batch_size": 8}))
            rag.parts.dimension()
            slow.reset()
            stats = rag.ingest_documents(paths)
            results[workers] = (slow.max_concurrent, stats, chunks_per_source(rag))
    assert results[1][0] == 1
    assert results[3][0] >= 2
    assert results[1][1] == results[3][1] and results[1][2] == results[3][2]
