"""Creating a store is atomic: a run killed while creating one leaves nothing the next
run trips over, and folders half-created by older versions are rebuilt, never called foreign."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys

import pytest

from ragwire import RAGWire
from ragwire.chunk import Chunk
from ragwire.errors import StoreError
from ragwire.store import Collection, EdgeEngine, ServerEngine, chunk_point_id

from ..stubs import StubServer
from .helpers import write_config
from .test_ingest_safety import write_corpus

DIM = 8
COLLECTION = "test_docs"  # write_config's collection name

# A real ingest, stopped at one point of creating its store and left to be killed:
#   shard-built  the new shard exists in its hidden folder, not yet renamed into place
#   renamed      the complete folder is in place, not yet opened
#   legacy       what older ragwire did: the shard created in place, no model record yet
CHILD = """
import os, sys, time
import qdrant_edge

config, folder, point, target = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]

def stop_here():
    print("KILL-ME", point, file=sys.stderr, flush=True)
    time.sleep(120)

if point == "shard-built":
    create = qdrant_edge.EdgeShard.create
    def created(path, config):
        shard = create(path, config)
        stop_here()
    qdrant_edge.EdgeShard.create = staticmethod(created)
elif point == "renamed":
    rename = os.rename
    def renamed(src, dst, *args, **kwargs):
        rename(src, dst, *args, **kwargs)
        if os.fspath(dst) == target:
            stop_here()
    os.rename = renamed
elif point == "legacy":
    config = qdrant_edge.EdgeConfig(
        vectors={"dense": qdrant_edge.EdgeVectorParams(size=16, distance=qdrant_edge.Distance.Cosine)})
    qdrant_edge.EdgeShard.create(target, config)
    stop_here()

from ragwire import RAGWire
RAGWire(config).ingest_directory(folder)
"""


@pytest.fixture
def stub():
    with StubServer(dim=16) as server:
        yield server


def stub_config(folder, stub, **sections):
    return write_config(
        folder,
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        splitter={"strategy": "markdown", "chunk_size": 200, "chunk_overlap": 0},
        ingestion={"retries": 0},
        **sections,
    )


def kill_at(config, docs, point: str, target) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(config), str(docs), point, str(target)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=dict(os.environ),
    )
    seen = []
    try:
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("KILL-ME"):
                proc.send_signal(signal.SIGKILL)
                break
    finally:
        proc.kill()
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL and seen and seen[-1].startswith("KILL-ME"), "".join(seen)


@pytest.mark.parametrize("point", ["shard-built", "renamed", "legacy"])
def test_a_kill_while_the_store_is_created_leaves_a_store_the_next_run_uses(tmp_path, stub, point):
    docs = tmp_path / "docs"
    write_corpus(docs, 3)
    config = stub_config(tmp_path, stub)
    store = tmp_path / "store"
    kill_at(config, docs, point, store / COLLECTION)

    stats = RAGWire(config).ingest_directory(docs)
    assert (stats["processed"], stats["failed"]) == (3, 0)
    rag = RAGWire(config)
    assert rag.get_stats()["sources"] == 3
    assert rag.retrieve("belt tension", top_k=1)
    assert not [p.name for p in store.iterdir() if ".creating-" in p.name], "the hidden leftover stayed"


def test_a_store_left_without_its_config_by_an_older_version_is_rebuilt(tmp_path, stub, caplog):
    import qdrant_edge as q

    docs = tmp_path / "docs"
    write_corpus(docs, 2)
    config = stub_config(tmp_path, stub)
    # Older versions created the shard in place; killed before Edge wrote its config,
    # the folder made every later open fail with "edge config is not provided".
    path = tmp_path / "store" / COLLECTION
    q.EdgeShard.create(str(path), q.EdgeConfig(vectors={"dense": q.EdgeVectorParams(size=16, distance=q.Distance.Cosine)})).close()
    (path / "edge_config.json").unlink()

    rag = RAGWire(config)
    assert rag.get_stats()["total_documents"] == 0  # readers see no collection, not a broken one
    with caplog.at_level(logging.WARNING, logger="ragwire"):
        stats = rag.ingest_directory(docs)
    assert stats["processed"] == 2
    assert "left half-created by an interrupted run" in caplog.text


def bare_collection(kind: str, tmp_path):
    """A collection made outside ragwire's create: no model record, no points."""
    if kind == "edge":
        import qdrant_edge as q

        engine = EdgeEngine(tmp_path, "c")
        config = q.EdgeConfig(vectors={"dense": q.EdgeVectorParams(size=DIM, distance=q.Distance.Cosine)})
        q.EdgeShard.create(str(engine.path), config).close()
    else:
        from qdrant_client import models as m

        engine = ServerEngine("c", path=tmp_path / "q")
        engine.open()
        engine.client.create_collection("c", vectors_config={"dense": m.VectorParams(size=DIM, distance=m.Distance.COSINE)})
    return Collection(engine, "c")


@pytest.mark.parametrize("kind", ["edge", "qdrant-local"])
def test_a_collection_without_model_record_or_points_is_rebuilt(tmp_path, caplog, kind):
    coll = bare_collection(kind, tmp_path)
    with caplog.at_level(logging.WARNING, logger="ragwire"), coll.opened():
        coll.ensure(embedding_model="m", dimension=DIM, sparse=False)
        assert coll.meta().embedding_model == "m"
    assert "left half-created by an interrupted run (no model record, no points); rebuilding it" in caplog.text
    coll.close()


@pytest.mark.parametrize("kind", ["edge", "qdrant-local"])
def test_a_collection_with_points_but_no_model_record_is_still_refused(tmp_path, kind):
    coll = bare_collection(kind, tmp_path)
    with coll.opened():
        record = Chunk.from_metadata("text", {"source": "/d/a.txt"}).placed(chunk_point_id("/d/a.txt", "h", 0),
                                                                            [0.1] * DIM, None)
        coll.write_pending([record], "r1")
        with pytest.raises(StoreError, match="not created by ragwire"):
            coll.ensure(embedding_model="m", dimension=DIM, sparse=False)
    coll.close()


def test_creation_leaves_no_hidden_folders_behind(tmp_path):
    coll = Collection(EdgeEngine(tmp_path, "c"), "c")
    with coll.opened():
        coll.ensure(embedding_model="m", dimension=DIM, sparse=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".c.lock", "c"]


def test_a_store_path_that_is_a_file_fails_clearly(tmp_path):
    afile = tmp_path / "store"
    afile.write_text("not a folder")
    coll = Collection(EdgeEngine(afile, "c"), "c")
    with pytest.raises(StoreError, match=r"vectorstore.path .*store is a file, not a folder; point vectorstore.path"):
        coll.exists()
    with pytest.raises(StoreError, match="is a file, not a folder"), coll.opened():
        coll.ensure(embedding_model="m", dimension=DIM, sparse=False)
    server = ServerEngine("c", path=afile / "c")
    with pytest.raises(StoreError, match="is a file, not a folder"):
        server.open()


def test_a_file_where_the_collection_folder_should_be_fails_clearly(tmp_path):
    (tmp_path / "c").write_text("stray")
    with pytest.raises(StoreError, match="is a file where the collection folder should be"):
        EdgeEngine(tmp_path, "c").exists()
