"""SIGKILL an ingest at many points: the next run leaves every file present exactly once.

The child is a real `ragwire` process; embeddings come from a stub server so it
runs fast and the kills land while files are being written.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from ragwire import RAGWire

from ..conftest import isolate
from ..stubs import StubServer
from .helpers import write_config
from .test_ingest_safety import write_corpus

# The child is a real ingest, instrumented from outside the library: at the
# chosen write it announces itself and waits to be killed, so every kill lands
# at an exact point: after the n-th batch of pending chunks, after the n-th
# flip to complete, or after the n-th delete.
CHILD = """
import sys, time
from ragwire import RAGWire
from ragwire.store import collection, edge

config, folder, kind, target = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
seen = {"pending": 0, "flipped": 0, "deleted": 0}

def mark(name):
    seen[name] += 1
    if name == kind and seen[name] == target:
        print("KILL-ME", name, target, file=sys.stderr, flush=True)
        time.sleep(120)

write_pending = collection.Collection.write_pending
def wrapped_write(self, *args, **kwargs):
    write_pending(self, *args, **kwargs)
    mark("pending")
collection.Collection.write_pending = wrapped_write

set_payload = edge.EdgeEngine.set_payload
def wrapped_flip(self, *args, **kwargs):
    set_payload(self, *args, **kwargs)
    mark("flipped")
edge.EdgeEngine.set_payload = wrapped_flip

delete = edge.EdgeEngine.delete
def wrapped_delete(self, *args, **kwargs):
    delete(self, *args, **kwargs)
    mark("deleted")
edge.EdgeEngine.delete = wrapped_delete

RAGWire(config).ingest_directory(folder)
"""

# (where, n): mid-file after the n-th pending batch, right after the n-th flip,
# or right after the n-th delete (a replacement removes the old version).
FIRST_INGEST_KILLS = [("pending", 1), ("pending", 14), ("flipped", 1), ("pending", 77), ("flipped", 50)]
REPLACE_KILLS = [("pending", 1), ("flipped", 1), ("deleted", 3), ("pending", 77), ("flipped", 26), ("deleted", 50)]


def run_and_kill(config, folder, kind: str, target: int, child: str = CHILD) -> bool:
    """Start an ingest (``child``) and SIGKILL it at the chosen point; True if it was killed there."""
    proc = subprocess.Popen(
        [sys.executable, "-c", child, str(config), str(folder), kind, str(target)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=dict(os.environ),
    )
    killed = False
    try:
        for line in proc.stderr:
            if line.startswith("KILL-ME"):
                proc.send_signal(signal.SIGKILL)
                killed = True
                break
    finally:
        if not killed:
            proc.kill()
        proc.wait(timeout=60)
    return killed and proc.returncode == -signal.SIGKILL


def visible_state(config) -> dict[str, dict[str, int]]:
    """source → {file_hash: complete chunks}; asserts no visible version is partial."""
    rag = RAGWire(config)
    if not rag.collection.exists():
        return {}
    out = {}
    with rag.collection.opened() as coll:
        for source in coll.sources():
            state = coll.source_state(source)
            for file_hash, count in state.complete.items():
                assert count == state.expected[file_hash], f"{source}: half a document is visible"
            out[source] = dict(state.complete)
    return out


def final_counts(config) -> dict[str, int]:
    state = visible_state(config)
    for source, versions in state.items():
        assert len(versions) == 1, f"{source}: {len(versions)} versions after a clean run"
    rag = RAGWire(config)
    with rag.collection.opened() as coll:
        assert coll._engine.count(None) == sum(sum(v.values()) for v in state.values()) + 1  # + the meta point
    return {source: sum(v.values()) for source, v in state.items()}


# Ten chunks per file and four chunks per write: each file takes three writes.
PARAGRAPHS = 10


@pytest.fixture
def stub():
    with StubServer(dim=16) as server:
        yield server


def make_config(folder, stub):
    return write_config(
        folder,
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        splitter={"strategy": "markdown", "chunk_size": 200, "chunk_overlap": 0},
        ingestion={"batch_size": 4, "retries": 0},
        logging={"level": "INFO"},
    )


def by_name(counts: dict[str, int]) -> dict[str, int]:
    return {os.path.basename(source): n for source, n in counts.items()}


def add_addendum(paths) -> None:
    for path in paths:
        path.write_text(path.read_text() + "\n## Addendum\n\nA closing note added later.\n")


@pytest.fixture(scope="module")
def references(tmp_path_factory, ragwire_home):
    """Chunk counts per file name from clean, uninterrupted runs of both corpus versions.

    Only numbers: computed once for the module, not once per kill point.
    """
    root = tmp_path_factory.mktemp("reference")
    docs = root / "docs"
    paths = write_corpus(docs, 50, paragraphs=PARAGRAPHS)
    with pytest.MonkeyPatch.context() as monkeypatch, StubServer(dim=16) as stub:
        isolate(monkeypatch, root, ragwire_home)
        config = make_config(root, stub)
        RAGWire(config).ingest_directory(docs)
        first = by_name(final_counts(config))
        add_addendum(paths)
        RAGWire(config).ingest_directory(docs)
        return first, by_name(final_counts(config))


@pytest.mark.parametrize("kind, target", FIRST_INGEST_KILLS)
def test_sigkill_during_a_first_ingest_then_rerun_stores_each_file_once(tmp_path, stub, references, kind, target):
    docs = tmp_path / "run" / "docs"
    write_corpus(docs, 50, paragraphs=PARAGRAPHS)
    config = make_config(tmp_path / "run", stub)
    assert run_and_kill(config, docs, kind, target), "the ingest finished before the kill"
    visible_state(config)
    RAGWire(config).ingest_directory(docs)
    assert by_name(final_counts(config)) == references[0]


@pytest.mark.parametrize("kind, target", REPLACE_KILLS)
def test_sigkill_while_replacing_changed_files_never_hides_one(tmp_path, stub, references, kind, target):
    docs = tmp_path / "run" / "docs"
    paths = write_corpus(docs, 50, paragraphs=PARAGRAPHS)
    config = make_config(tmp_path / "run", stub)
    RAGWire(config).ingest_directory(docs)
    add_addendum(paths)
    assert run_and_kill(config, docs, kind, target), "the ingest finished before the kill"
    assert len(visible_state(config)) == 50, "a file disappeared while it was being replaced"
    RAGWire(config).ingest_directory(docs)
    assert by_name(final_counts(config)) == references[1]


def test_a_kill_between_flip_and_delete_never_shows_two_versions_in_search(tmp_path, stub):
    docs = tmp_path / "run" / "docs"
    paths = write_corpus(docs, 5, paragraphs=PARAGRAPHS)
    config = make_config(tmp_path / "run", stub)
    RAGWire(config).ingest_directory(docs)
    add_addendum(paths)
    assert run_and_kill(config, docs, "flipped", 2), "the ingest finished before the kill"
    stored = visible_state(config)
    assert sorted(len(versions) for versions in stored.values()) == [1, 1, 1, 1, 2], "the kill left no leftover"

    rag = RAGWire(config)
    found = rag.retrieve("conveyor belt tension rollers", top_k=500)
    versions: dict[str, set[str]] = {}
    for doc in found:
        versions.setdefault(doc.metadata["source"], set()).add(doc.metadata["file_hash"])
    assert len(versions) == 5 and all(len(v) == 1 for v in versions.values()), "search showed two versions"
    shown = rag.get_stats()["total_documents"]
    assert shown == len(found)

    # The next write run finishes the interrupted cleanup.
    RAGWire(config).ingest_directory(docs)
    assert len(final_counts(config)) == 5
