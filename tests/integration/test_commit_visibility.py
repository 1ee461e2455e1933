"""A process SIGKILLed between the steps of one document's commit shows exactly one
complete version of it, through every read path, with and without a filter.

The child is a real ingest instrumented from outside the library: at the chosen
step of the commit (note written, chunks flipped, old version deleted) it
announces itself and waits to be killed, so each kill lands deterministically.
"""

from __future__ import annotations

import os

import pytest

from ragwire import RAGWire

from .helpers import write_config
from .test_crash_safety import run_and_kill, stub  # noqa: F401  (stub: the embedding stub fixture)

CHILD = """
import sys, time
from ragwire.store import collection, edge
from ragwire import RAGWire

config, folder, step = sys.argv[1], sys.argv[2], sys.argv[3]  # argv[4]: the n-th time, always the first
seen = {"note": 0, "flip": 0, "delete": 0}

def mark(name):
    seen[name] += 1
    if name == step:
        print("KILL-ME", name, file=sys.stderr, flush=True)
        time.sleep(120)

upsert = edge.EdgeEngine.upsert
def wrapped_upsert(self, points):
    upsert(self, points)
    if any(p.payload.get("_kind") == "commit" for p in points):
        mark("note")
edge.EdgeEngine.upsert = wrapped_upsert

set_payload = edge.EdgeEngine.set_payload
def wrapped_flip(self, *args, **kwargs):
    set_payload(self, *args, **kwargs)
    mark("flip")
edge.EdgeEngine.set_payload = wrapped_flip

finish = collection.Collection._delete_counted
def wrapped_delete(self, flt):
    removed = finish(self, flt)
    if removed and seen["flip"]:
        mark("delete")
    return removed
collection.Collection._delete_counted = wrapped_delete

RAGWire(config).ingest_directory(folder)
"""

PARAGRAPH = ("Section {i} of the {name} manual explains how the conveyor belt tension is checked "
             "with the rollers, and which torque the bolts of frame {i} need after service.")


def write_manual(path, name: str, sections: int, extra: str = "") -> None:
    body = "\n\n".join(f"## Section {i}\n\n{PARAGRAPH.format(i=i, name=name)}" for i in range(sections))
    path.write_text(f"# {name} manual\n\n{body}\n{extra}", encoding="utf-8")


def make_config(folder, stub):
    return write_config(
        folder,
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        splitter={"strategy": "markdown", "chunk_size": 200, "chunk_overlap": 0},
        ingestion={"batch_size": 4, "retries": 0},
    )


def versions(docs) -> dict[str, dict[str, int]]:
    """source → {file_hash: chunks seen}."""
    out: dict[str, dict[str, int]] = {}
    for doc in docs:
        per = out.setdefault(doc.metadata["source"], {})
        per[doc.metadata["file_hash"]] = per.get(doc.metadata["file_hash"], 0) + 1
    return out


@pytest.fixture
def replaced_mid_commit(tmp_path, stub, request):  # noqa: F811
    """Three manuals stored; one changed (5 → 7 sections) and its replacement killed at ``request.param``."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("alpha", "beta", "gamma"):
        write_manual(docs / f"{name}.md", name, 5)
    config = make_config(tmp_path, stub)
    RAGWire(config).ingest_directory(docs)
    before = versions(RAGWire(config).retrieve("conveyor belt tension", top_k=200, search_type="keyword"))
    write_manual(docs / "beta.md", "beta", 7, extra="\nA later revision adds two sections.\n")
    assert run_and_kill(config, docs, request.param, 1, child=CHILD), "the ingest finished before the kill"
    return config, docs, before


@pytest.mark.parametrize("replaced_mid_commit", ["note", "flip", "delete"], indirect=True)
def test_a_kill_at_any_commit_step_shows_one_complete_version_everywhere(replaced_mid_commit):
    # Guards: Filter.and_ dropped must_not (two versions with a filter), and a note written
    # before the flip hid the only complete version (none without one).
    config, docs, before = replaced_mid_commit
    rag = RAGWire(config)
    for filters in (None, {"file_type": "md"}):
        for search_type in ("similarity", "keyword", "hybrid", "mmr"):
            what = f"{search_type} search, filters={filters}"
            hits = rag.retrieve("conveyor belt tension rollers", top_k=200, search_type=search_type,
                                filters=filters)
            found = versions(hits)
            assert set(found) == set(before), f"{what}: a document vanished or appeared"
            for source, seen in found.items():
                assert len(seen) == 1, f"{what}: {os.path.basename(source)} shows {len(seen)} versions"
            if search_type == "similarity":  # top 200 of 16 chunks: every visible chunk
                for doc in hits:
                    seen = found[doc.metadata["source"]][doc.metadata["file_hash"]]
                    assert seen == doc.metadata["total_chunks"], f"{what}: half a version is visible"

    # count and facets agree with what search shows
    shown = versions(rag.retrieve("conveyor belt tension", top_k=200))
    assert rag.get_stats()["total_documents"] == sum(sum(v.values()) for v in shown.values())
    assert rag.get_stats()["sources"] == 3
    hashes = rag.get_field_values("file_hash", limit=50)
    assert sorted(hashes) == sorted(h for v in shown.values() for h in v), "facets show another set of versions"

    # the next write run finishes the interrupted commit
    assert RAGWire(config).ingest_directory(docs)["failed"] == 0
    with RAGWire(config).collection.opened() as coll:
        for source in coll.sources():
            state = coll.source_state(source)
            assert len(state.complete) == 1 and state.pending == 0, f"{source}: {state}"
        beta = next(s for s in coll.sources() if s.endswith("beta.md"))
        assert sum(coll.source_state(beta).complete.values()) > 5, "the changed version is not the one kept"
