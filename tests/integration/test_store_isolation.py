"""Each collection gets its own handle, and a handle never trusts a model record that
another process may have replaced."""

from __future__ import annotations

import hashlib
import logging
import subprocess
import sys
from types import SimpleNamespace

import pytest

from ragwire.chunk import Chunk
from ragwire.store import (
    Collection,
    EdgeEngine,
    ServerEngine,
    StoreOptions,
    chunk_point_id,
    open_collection,
)
from ragwire.store.collection import META_POINT_ID
from ragwire.store.engine import Point

DIM = 8


def chunks(source: str, texts: list[str]) -> list[Chunk]:
    out = []
    for i, text in enumerate(texts):
        digest = hashlib.sha256(text.encode()).digest()
        dense = [b / 255 + 0.01 for b in digest[:DIM]]
        meta = {"source": source, "file_hash": "h1", "chunk_index": i, "total_chunks": len(texts)}
        out.append(Chunk.from_metadata(text, meta).placed(chunk_point_id(source, "h1", i), dense, None))
    return out


def write(coll: Collection, source: str, texts: list[str]) -> None:
    coll.write_pending(chunks(source, texts), "run-1")
    coll.commit_source(source, "h1", "run-1")


def test_two_collections_on_one_server_url_get_separate_handles_and_data(monkeypatch, tmp_path):
    # Bug guarded: handles were shared per URL, so the second collection wrote into the first.
    from qdrant_client import QdrantClient

    server = QdrantClient(location=":memory:")  # the one server behind the URL

    def connect(self):
        if self._client is None:
            self._client = server
            self.generation += 1

    monkeypatch.setattr(ServerEngine, "open", connect)
    monkeypatch.setattr(ServerEngine, "close", lambda self: setattr(self, "_client", None))
    url = f"http://qdrant-{tmp_path.name}.invalid:6333"

    def config(name):
        return SimpleNamespace(collection_name=name, resolved_engine="qdrant", url=url, path=None,
                               api_key=None, timeout=5, hold_open_s=0.0)

    alpha, beta = open_collection(config("alpha")), open_collection(config("beta"))
    assert alpha is not beta
    assert (alpha._engine.collection, beta._engine.collection) == ("alpha", "beta")
    assert open_collection(config("alpha")) is alpha  # one handle per collection, still shared

    with alpha.opened():
        alpha.ensure(embedding_model="m", dimension=DIM, sparse=False)
        write(alpha, "/d/a.txt", ["one", "two"])
    with beta.opened():
        beta.ensure(embedding_model="m", dimension=DIM, sparse=False)
        write(beta, "/d/b.txt", ["three"])
    with alpha.opened(), beta.opened():
        assert (alpha.count(), beta.count()) == (2, 1)
        assert set(alpha.sources()) == {"/d/a.txt"} and set(beta.sources()) == {"/d/b.txt"}
    assert sorted(c.name for c in server.get_collections().collections) == ["alpha", "beta"]


RECREATE = """
import sys
from pathlib import Path
from ragwire.store import Collection, EdgeEngine
coll = Collection(EdgeEngine(Path(sys.argv[1]), "c"), "c")
with coll.opened():
    coll.ensure(embedding_model="other:model", dimension=8, sparse=False, force_recreate=True)
"""


def test_a_collection_recreated_by_another_process_is_read_again(tmp_path):
    coll = Collection(EdgeEngine(tmp_path, "c"), "c", StoreOptions(hold_open_s=0.2))
    with coll.opened():
        coll.ensure(embedding_model="m", dimension=DIM, sparse=False)
        first = coll.meta()
    assert first.instance_id and first.embedding_model == "m"

    # The other process waits for this one's lock (held for hold_open_s), then recreates.
    subprocess.run([sys.executable, "-c", RECREATE, str(tmp_path)], check=True, timeout=120)

    with coll.opened():
        again = coll.meta()
    assert again.embedding_model == "other:model"
    assert again.instance_id != first.instance_id


def test_the_model_record_is_cached_only_while_the_store_stays_open(tmp_path):
    coll = Collection(EdgeEngine(tmp_path, "c"), "c")
    with coll.opened():
        coll.ensure(embedding_model="m", dimension=DIM, sparse=False)
        first = coll.meta()
        assert coll.meta() is first  # no re-read while open
    # Rewrite the record behind the handle's back, from another handle.
    other = Collection(EdgeEngine(tmp_path, "c"), "c")
    with other.opened():
        payload = dict(other._engine.retrieve([META_POINT_ID])[0].payload, embedding_model="edited")
        other._engine.upsert([Point(id=META_POINT_ID, payload=payload)])
    with coll.opened():
        assert coll.meta().embedding_model == "edited"


def test_a_record_without_instance_id_falls_back_to_its_creation_time(tmp_path):
    coll = Collection(EdgeEngine(tmp_path, "c"), "c")
    with coll.opened():
        coll.ensure(embedding_model="m", dimension=DIM, sparse=False)
        payload = dict(coll._engine.retrieve([META_POINT_ID])[0].payload)
        del payload["instance_id"]
        coll._engine.upsert([Point(id=META_POINT_ID, payload=payload)])
    with coll.opened():
        assert coll.meta().instance_id == str(payload["created_at"])


@pytest.mark.parametrize("kind", ["edge", "qdrant-local"])
def test_force_recreate_logs_a_warning_with_the_number_of_chunks_deleted(tmp_path, caplog, kind):
    engine = EdgeEngine(tmp_path, "c") if kind == "edge" else ServerEngine("c", path=tmp_path / "q")
    coll = Collection(engine, "c")
    with coll.opened():
        coll.ensure(embedding_model="m", dimension=DIM, sparse=False)
        write(coll, "/d/a.txt", ["one", "two", "three"])
        coll.write_pending(chunks("/d/b.txt", ["pending"]), "run-2")  # a crashed run's leftover counts too
        with caplog.at_level(logging.WARNING, logger="ragwire"):
            coll.ensure(embedding_model="m", dimension=DIM, sparse=False, force_recreate=True)
            coll.ensure(embedding_model="m", dimension=DIM, sparse=False, force_recreate=True)
        assert coll.count() == 0
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2, "every force_recreate warns"
    assert "force_recreate: deleted collection 'c'" in warnings[0] and "its 4 chunks" in warnings[0]
    assert "its 0 chunks" in warnings[1]
    coll.close()
