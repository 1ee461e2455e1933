"""`ragwire migrate` / RAGWire.migrate: a collection copied to another engine or place, never re-embedded."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from ragwire import RAGWire
from ragwire.chunk import Chunk
from ragwire.cli import main
from ragwire.errors import StoreError
from ragwire.store import close_all
from ragwire.store.commits import Note
from ragwire.store.filters import RUN_KEY, STATE_KEY, STATE_PENDING, Cond, Filter, meta_path
from ragwire.store.records import all_chunks, chunk_point_id

from ..stubs import StubServer
from .helpers import write_config
from .test_crash_safety import run_and_kill
from .test_ingest_safety import write_corpus

WORDS = ("belt roller bearing motor sensor valve pump filter gasket spring lever gear shaft clutch brake "
         "hinge bolt nut washer seal hose cable switch relay fuse panel frame bracket pulley chain "
         "torque pressure voltage speed noise heat wear leak crack rust grease oil coolant airflow").split()
QUERIES = ["belt tension and roller wear", "pump pressure leak", "relay fuse switch", "grease the chain",
           "motor heat and noise", "coolant hose crack"]


def write_manuals(folder, count: int):
    """Manuals of distinct sentences (few exact score ties), three sections each."""
    import random

    rng = random.Random(24)
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        sections = [f"## Section {i}\n\n" + " ".join(
            " ".join(rng.choice(WORDS) for _ in range(9)).capitalize() + "." for _ in range(4))
            for i in range(3)]
        (folder / f"manual-{n:02d}.md").write_text(f"# Manual {n}\n\n" + "\n\n".join(sections), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def stub():
    with StubServer(dim=16) as server:
        yield server


def config(folder, stub, engine="edge", model="stub-embed"):
    return write_config(
        folder, engine=engine,
        embeddings={"provider": "openai", "model": model, "base_url": stub.openai_url, "api_key": "test"},
        splitter={"strategy": "markdown", "chunk_size": 200, "chunk_overlap": 0},
        ingestion={"retries": 0},
    )


@pytest.fixture(scope="module")
def ingested(tmp_path_factory, stub):
    """One ingest for the module; each test gets its own copy of the store."""
    folder = tmp_path_factory.mktemp("ingested")
    path = config(folder, stub)
    RAGWire(path).ingest_directory(write_manuals(folder / "docs", 12))
    close_all()
    return folder / "store"


@pytest.fixture
def source(tmp_path, stub, ingested):
    path = config(tmp_path / "source", stub)
    shutil.copytree(ingested, tmp_path / "source" / "store")
    return path


def top5(path, query):
    return [(d.metadata["source"], d.metadata["chunk_index"]) for d in RAGWire(path).retrieve(query, top_k=5)]


def per_source(path):
    rag = RAGWire(path)
    with rag.collection.opened() as coll:
        return dict(coll._engine.facet(meta_path("source"), limit=1000, flt=all_chunks()))


@pytest.mark.parametrize("engine", ["edge", "qdrant"])
def test_migrate_copies_counts_results_indexes_and_model_without_embedding(tmp_path, stub, source, engine):
    target = config(tmp_path / "target", stub, engine=engine)
    calls = len(stub.embedding_calls())
    stats = RAGWire(source).migrate(target, batch_size=16)
    assert len(stub.embedding_calls()) == calls, "the migration called the embedding model"
    assert stats.ok, stats.problems
    assert stats.points_copied == stats.chunks == sum(per_source(source).values()) > 40
    assert stats.queries_compared >= 10
    assert per_source(target) == per_source(source)
    old, new = RAGWire(source).get_stats(), RAGWire(target).get_stats()
    assert (new["total_documents"], new["sources"], new["embedding_model"], new["vector_size"]) == (
        old["total_documents"], old["sources"], old["embedding_model"], old["vector_size"])
    assert set(RAGWire(source).collection.indexes()) <= set(RAGWire(target).collection.indexes())
    for query in QUERIES:
        assert top5(target, query) == top5(source, query), query


def test_migrate_shows_an_interrupted_commit_exactly_as_the_source_did(tmp_path, stub, source):
    # A replacement interrupted after its note: readers see only the new version of doc-000.
    rag = RAGWire(source)
    with rag.collection.opened() as coll, coll.writing():
        name = next(s for s in coll.sources() if s.endswith("manual-00.md"))
        old = coll._engine.scroll(Filter(must=[Cond(meta_path("source"), value=name)]), limit=100,
                                 with_vectors=True)[0]
        chunks = [Chunk.from_metadata("new " + r.payload["page_content"],
                                      {**r.payload["metadata"], "file_hash": "new-hash"})
                  .placed(chunk_point_id(name, "new-hash", i), r.dense, r.sparse)
                  for i, r in enumerate(old)]
        coll.write_pending(chunks, "run-2")
        coll.write_note(Note(name, "run-2", None, "new-hash"))
        shown = coll.count()
    target = config(tmp_path / "target", stub, engine="qdrant")
    assert RAGWire(source).migrate(target).ok
    with RAGWire(target).collection.opened() as coll:
        assert coll.count() == shown
        visible = {r.payload["metadata"]["file_hash"] for r in coll.scroll(limit=1000)[0]
                   if r.payload["metadata"]["source"] == name}
        assert visible == {"new-hash"}
        pending = Filter(must=[Cond(RUN_KEY, value="run-2"), Cond(STATE_KEY, value=STATE_PENDING)])
        assert coll._engine.count(pending) == len(chunks)
    # A write run on the copy finishes the commit, as it would have on the source.
    with RAGWire(target).collection.opened() as coll, coll.writing():
        assert coll.repair_interrupted_commits() == 1
        assert coll.source_state(name).complete == {"new-hash": len(chunks)}


# Announces the n-th upsert of a batch of chunks into the target, then waits to be killed.
CHILD = """
import sys, time
from ragwire.cli import main
from ragwire.store import edge

source, target, kind, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
seen = [0]
upsert = edge.EdgeEngine.upsert
def counted(self, points):
    upsert(self, points)
    if self.path.parent.parent.name == "target" and len(points) > 1:
        seen[0] += 1
        if seen[0] == n:
            print("KILL-ME", file=sys.stderr, flush=True)
            time.sleep(120)
edge.EdgeEngine.upsert = counted
main(["migrate", "-c", source, "--to-config", target, "--batch-size", "8"])
"""


def test_a_killed_migration_resumes_and_ends_with_no_duplicates(tmp_path, stub, source):
    target = config(tmp_path / "target", stub, engine="edge")
    assert run_and_kill(source, target, "upsert", 3, child=CHILD), "the migration finished before the kill"
    partial = sum(per_source(target).values())
    assert 0 < partial < sum(per_source(source).values())
    result = CliRunner().invoke(main, ["migrate", "-c", str(source), "--to-config", str(target), "--json",
                                       "--batch-size", "8"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert stats["ok"] and stats["resumed"]
    assert stats["points_copied"] < stats["chunks"]  # the batches copied before the kill were not redone
    assert per_source(target) == per_source(source)
    with RAGWire(target).collection.opened() as coll:
        # every chunk once, plus the model record and the migration point
        assert coll._engine.count(None) == stats["chunks"] + 2


def test_migrate_refuses_a_target_made_with_another_model(tmp_path, stub, source):
    other = config(tmp_path / "target", stub, engine="edge", model="other-embed")
    RAGWire(other).ingest_documents([str(write_corpus(tmp_path / "other", 1)[0])])
    before = per_source(other)
    # The target's config embeds like the source; the collection it names does not.
    target = config(tmp_path / "target", stub, engine="edge")
    with pytest.raises(StoreError, match="holds vectors from openai:other-embed .* but the source holds"):
        RAGWire(source).migrate(target)
    result = CliRunner().invoke(main, ["migrate", "-c", str(source), "--to-config", str(target)])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: the target collection 'test_docs'")
    assert per_source(target) == before  # untouched


def test_migrate_refuses_a_target_config_with_another_model_before_copying(tmp_path, stub, source):
    target = config(tmp_path / "target", stub, engine="qdrant", model="other-embed")
    with pytest.raises(StoreError, match="searches of the copy would be refused"):
        RAGWire(source).migrate(target)
    assert not RAGWire(target).collection.exists()


def test_a_large_copy_into_an_empty_server_collection_builds_its_index_once_even_after_a_failure(
        tmp_path, stub, source, monkeypatch):
    # qdrant-client's local mode has no HNSW graph; what is checked here is when migrate asks for it.
    from ragwire.store import ServerEngine, migrate

    calls: list = []
    monkeypatch.setattr(migrate, "DEFER_INDEX_POINTS", 10)
    monkeypatch.setattr(ServerEngine, "defer_index", lambda self: calls.append("defer") or 16)
    monkeypatch.setattr(ServerEngine, "restore_index", lambda self, m: calls.append(("restore", m)))
    upsert, batches = ServerEngine.upsert, [0]

    def failing(self, points):
        batches[0] += len(points) > 1
        if batches[0] == 3:
            raise StoreError("Qdrant at http://qdrant:6333 is unreachable during upsert")
        upsert(self, points)

    monkeypatch.setattr(ServerEngine, "upsert", failing)
    target = config(tmp_path / "target", stub, engine="qdrant")
    with pytest.raises(StoreError, match="unreachable"):
        RAGWire(source).migrate(target, batch_size=8)
    assert calls == ["defer"]
    monkeypatch.setattr(ServerEngine, "upsert", upsert)
    stats = RAGWire(source).migrate(target, batch_size=8)
    assert stats.ok and stats.resumed and stats.index_deferred
    assert calls == ["defer", ("restore", 16)]
    # Copied again over a full target: nothing to defer, nothing left to restore.
    again = RAGWire(source).migrate(target)
    assert again.ok and not again.index_deferred and calls == ["defer", ("restore", 16)]


def test_migrating_again_makes_the_target_equal_to_the_source(tmp_path, stub, source):
    # Guards: a second `ragwire migrate` after documents were deleted (or replaced) in the source kept
    # them in the target (exit 4, 12 differences, no hint).
    extra = tmp_path / "docs" / "extra.md"
    extra.parent.mkdir()
    extra.write_text("# Extra\n\n## One\n\nThe pump pressure is checked weekly.\n", encoding="utf-8")
    rag = RAGWire(source)
    rag.ingest_documents([str(extra)])
    target = config(tmp_path / "target", stub, engine="edge")
    assert rag.migrate(target, batch_size=16).ok

    gone = sorted(s for s in per_source(source) if s != str(extra))[:2]
    for identity in gone:
        assert rag.delete_document(identity) > 0
    extra.write_text("# Extra\n\n## Two\n\nThe relay fuse is swapped every spring.\n", encoding="utf-8")
    assert rag.ingest_documents([str(extra)])["replaced"] == 1
    rag.close()

    result = CliRunner().invoke(main, ["migrate", "-c", str(source), "--to-config", str(target), "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert stats["ok"], stats["problems"]
    assert stats["points_removed"] == 15  # two manuals of 7 chunks, and the replaced version of one
    assert per_source(target) == per_source(source)
    assert not set(gone) & set(per_source(target))
    texts = [d.page_content for d in RAGWire(target).retrieve("relay fuse pump pressure", top_k=10)
             if d.metadata["source"] == str(extra)]
    assert texts and all("pump pressure" not in t for t in texts)


def test_a_half_copied_target_says_so_on_every_read_until_a_migration_finishes(tmp_path, stub, source, caplog):
    # Guards: a target a killed migration left half-copied was searchable with no sign.
    target = config(tmp_path / "target", stub, engine="edge")
    assert run_and_kill(source, target, "upsert", 3, child=CHILD), "the migration finished before the kill"
    summary = RAGWire(target).get_stats()
    assert "is an unfinished copy of" in summary["unfinished_migration"]
    assert "run ragwire migrate again to finish it" in summary["unfinished_migration"]
    with caplog.at_level("WARNING"):
        RAGWire(target).retrieve("belt tension", top_k=3)
    assert any("is an unfinished copy of" in r.getMessage() for r in caplog.records)

    assert RAGWire(source).migrate(target, batch_size=16).ok
    assert RAGWire(target).get_stats()["unfinished_migration"] is None
    caplog.clear()
    with caplog.at_level("WARNING"):
        RAGWire(target).retrieve("belt tension", top_k=3)
    assert not any("unfinished copy" in r.getMessage() for r in caplog.records)
