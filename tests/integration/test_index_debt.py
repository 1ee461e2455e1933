"""A serving process never builds the embedded store's vector index inline: the build holds
the interpreter lock, so every read would wait for it (minutes on a large collection).
It leaves the build owed, and the next write run in a process that serves nothing pays it."""

from __future__ import annotations

import pytest

from ragwire import RAGWire, pacing
from ragwire.store import Collection, index_debt

from .helpers import write_config, write_topics


@pytest.fixture
def builds(monkeypatch) -> list[str]:
    """The collection locations whose index was built, in order."""
    done: list[str] = []
    real = Collection.optimize

    def counted(self: Collection) -> bool:
        built = real(self)
        done.append(self.location)
        return built

    monkeypatch.setattr(Collection, "optimize", counted)
    return done


def test_a_serving_process_leaves_the_index_build_owed_instead_of_running_it(tmp_path, monkeypatch, builds):
    write_topics(tmp_path / "docs")
    rag = RAGWire(write_config(tmp_path, vectorstore={"optimize_after_points": 1}))
    monkeypatch.setattr(pacing, "_serving", True)
    try:
        stats = rag.ingest_directory(tmp_path / "docs")
        assert stats["chunks_created"] >= 1
        assert builds == []
        assert index_debt.owed(rag.parts.collection)
    finally:
        rag.close()


def test_the_next_run_with_no_server_builds_the_owed_index_though_it_writes_nothing(tmp_path, monkeypatch, builds):
    write_topics(tmp_path / "docs")
    config = write_config(tmp_path, vectorstore={"optimize_after_points": 1})
    rag = RAGWire(config)
    monkeypatch.setattr(pacing, "_serving", True)
    rag.ingest_directory(tmp_path / "docs")
    rag.close()
    monkeypatch.setattr(pacing, "_serving", False)
    rag = RAGWire(config)
    try:
        stats = rag.ingest_directory(tmp_path / "docs")
        assert stats["chunks_created"] == 0 and stats["skipped"] >= 1
        assert builds == [rag.parts.collection.location]
        assert not index_debt.owed(rag.parts.collection)
        assert rag.retrieve("How long does a full charge take?", top_k=1)[0].metadata["file_name"] == "charging.md"
    finally:
        rag.close()


def test_a_run_below_the_threshold_with_nothing_owed_builds_no_index(tmp_path, builds):
    write_topics(tmp_path / "docs")
    rag = RAGWire(write_config(tmp_path, vectorstore={"optimize_after_points": 10_000}))
    try:
        rag.ingest_directory(tmp_path / "docs")
        assert builds == []
        assert not index_debt.owed(rag.parts.collection)
    finally:
        rag.close()
