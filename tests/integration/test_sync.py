"""Sync against real sources: local folders and a moto S3 server on 127.0.0.1.

Embeddings come from the stub OpenAI-compatible server, so calls can be counted.
"""

from __future__ import annotations

import shutil
import urllib.request
from pathlib import Path

import pytest

from ragwire import RAGWire
from ragwire.config import LocalSource, S3Source
from ragwire.ingest import source_id

from ..stubs import StubServer
from .helpers import write_config

boto3 = pytest.importorskip("boto3")
moto_server = pytest.importorskip("moto.server")

BUCKET = "sync-bucket"


def doc(n: int, extra: str = "") -> str:
    return f"# Document {n}\n\nConveyor {n} is inspected every week; belt tension is logged. {extra}\n"


@pytest.fixture
def stub():
    with StubServer(dim=16) as server:
        yield server


@pytest.fixture
def s3_server():
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    # moto keeps its buckets in the process: start every test from an empty server.
    urllib.request.urlopen(urllib.request.Request(f"{url}/moto-api/reset", method="POST")).close()
    client = boto3.client("s3", endpoint_url=url, region_name="us-east-1",
                          aws_access_key_id="test", aws_secret_access_key="test")
    client.create_bucket(Bucket=BUCKET)
    yield url, client, server
    server.stop()


def config(tmp_path: Path, stub: StubServer, sources: list[dict]) -> Path:
    return write_config(
        tmp_path,
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        splitter={"strategy": "markdown", "chunk_size": 200, "chunk_overlap": 0},
        ingestion={"retries": 1, "retry_backoff": 0.01, "batch_size": 16},
        sources=sources,
    )


def s3_entry(url: str, tmp_path: Path, prefix: str = "docs/", **extra) -> dict:
    return {"type": "s3", "bucket": BUCKET, "prefix": prefix, "endpoint_url": url, "region": "us-east-1",
            "aws_access_key_id": "test", "aws_secret_access_key": "test",
            "cache_dir": str(tmp_path / "cache"), **extra}


def stored(rag: RAGWire) -> set[str]:
    with rag.collection.opened() as coll:
        return set(coll.sources()) if coll.exists() else set()


def test_s3_collection_follows_adds_changes_and_deletes(tmp_path, stub, s3_server):
    url, client, _ = s3_server
    for n in range(3):
        client.put_object(Bucket=BUCKET, Key=f"docs/d{n}.md", Body=doc(n).encode())
    rag = RAGWire(config(tmp_path, stub, [s3_entry(url, tmp_path)]))

    first = rag.sync()
    assert (first.listed, first.processed, first.downloaded, first.deleted) == (3, 3, 3, 0)
    assert stored(rag) == {f"s3://{BUCKET}/docs/d{n}.md" for n in range(3)}
    hit = rag.retrieve("conveyor 1 belt tension", top_k=1)[0]
    assert hit.metadata["source"].startswith(f"s3://{BUCKET}/docs/")
    assert hit.metadata["sync_source"] == f"s3://{BUCKET}/docs/"

    client.put_object(Bucket=BUCKET, Key="docs/d1.md", Body=doc(1, "Rollers are now ceramic.").encode())
    client.put_object(Bucket=BUCKET, Key="docs/d3.md", Body=doc(3).encode())
    client.delete_object(Bucket=BUCKET, Key="docs/d2.md")
    second = rag.sync()
    assert (second.processed, second.replaced, second.skipped, second.deleted) == (2, 1, 1, 1)
    assert second.downloaded == 2 and second.deleted_chunks > 0
    assert stored(rag) == {f"s3://{BUCKET}/docs/d{n}.md" for n in (0, 1, 3)}

    stub.reset()
    third = rag.sync()
    assert (third.skipped, third.processed, third.downloaded, third.embedded_chunks) == (3, 0, 0, 0)
    assert stub.embedding_calls() == []


def test_unreachable_server_and_empty_prefix_delete_nothing(tmp_path, stub, s3_server):
    url, client, server = s3_server
    client.put_object(Bucket=BUCKET, Key="docs/d0.md", Body=doc(0).encode())
    rag = RAGWire(config(tmp_path, stub, [s3_entry(url, tmp_path)]))
    assert rag.sync().processed == 1

    client.delete_object(Bucket=BUCKET, Key="docs/d0.md")
    empty = rag.sync()
    assert empty.deleted == 0 and stored(rag) == {f"s3://{BUCKET}/docs/d0.md"}
    assert "listed zero files" in empty.warnings[0] and "nothing of it is deleted" in empty.warnings[0]

    server.stop()  # connection refused from now on
    down = rag.sync()
    assert down.deleted == 0 and down.partial and stored(rag) == {f"s3://{BUCKET}/docs/d0.md"}
    assert "not listed" in down.warnings[0] and "cannot be listed" in down.warnings[0]


def test_key_escaping_the_cache_is_refused(tmp_path, stub, s3_server):
    url, client, _ = s3_server
    client.put_object(Bucket=BUCKET, Key="docs/../../etc/passwd.md", Body=b"# root\n\nroot:x:0:0\n")
    client.put_object(Bucket=BUCKET, Key="docs/ok.md", Body=doc(0).encode())
    rag = RAGWire(config(tmp_path, stub, [s3_entry(url, tmp_path)]))
    before = {p for p in tmp_path.rglob("*")}

    stats = rag.sync()

    assert stats.processed == 1 and stats.refused == 1
    assert stats.to_dict()["refused_files"][0]["file"] == f"s3://{BUCKET}/docs/../../etc/passwd.md"
    assert "escapes cache_dir" in stats.to_dict()["refused_files"][0]["reason"]
    written = {p for p in tmp_path.rglob("*")} - before
    cache = tmp_path / "cache"
    assert all(p.is_relative_to(cache) or p.is_relative_to(tmp_path / "store") for p in written)
    assert not any("passwd" in p.name for p in tmp_path.rglob("*"))


def test_relative_and_absolute_spellings_of_one_folder_are_one_source(tmp_path, stub, monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(3):
        (folder / f"d{n}.md").write_text(doc(n))
    rag = RAGWire(config(tmp_path, stub, [{"type": "local", "path": str(folder)}]))
    monkeypatch.chdir(tmp_path)
    assert rag.sync(sources=[LocalSource(path="docs")]).processed == 3
    assert stored(rag) == {source_id(folder / f"d{n}.md") for n in range(3)}
    stub.reset()
    again = rag.sync(sources=[LocalSource(path=str(folder.resolve()))])
    assert (again.skipped, again.deleted, again.embedded_chunks) == (3, 0, 0)


def test_named_folder_moved_elsewhere_is_the_same_documents(tmp_path, stub):
    first_home = tmp_path / "mnt-a" / "docs"
    first_home.mkdir(parents=True)
    (first_home / "sub").mkdir()
    for n in range(2):
        (first_home / f"d{n}.md").write_text(doc(n))
    (first_home / "sub" / "deep.md").write_text(doc(9))
    entry = {"type": "local", "name": "handbook", "recursive": True}
    rag = RAGWire(config(tmp_path, stub, [{**entry, "path": str(first_home)}]))
    assert rag.sync().processed == 3
    assert stored(rag) == {"local://handbook/d0.md", "local://handbook/d1.md", "local://handbook/sub/deep.md"}

    second_home = tmp_path / "elsewhere" / "copy"
    shutil.copytree(first_home, second_home)
    stub.reset()
    moved = rag.sync(sources=[LocalSource(**entry, path=str(second_home))])
    assert (moved.skipped, moved.processed, moved.deleted, moved.embedded_chunks) == (3, 0, 0, 0)
    assert stub.embedding_calls() == []


def test_dry_run_changes_nothing_and_predicts_the_real_run(tmp_path, stub, s3_server):
    url, client, _ = s3_server
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(3):
        (folder / f"d{n}.md").write_text(doc(n))
        client.put_object(Bucket=BUCKET, Key=f"docs/s{n}.md", Body=doc(10 + n).encode())
    rag = RAGWire(config(tmp_path, stub, [{"type": "local", "path": str(folder), "name": "local-docs"},
                                          s3_entry(url, tmp_path)]))
    fresh = rag.sync(dry_run=True)
    assert (fresh.processed, fresh.downloaded) == (6, 3) and not rag.collection.exists()
    assert not (tmp_path / "cache").exists()
    rag.sync()

    (folder / "d0.md").write_text(doc(0, "Changed."))
    (folder / "d1.md").unlink()
    (folder / "d3.md").write_text(doc(3))
    client.put_object(Bucket=BUCKET, Key="docs/s0.md", Body=doc(10, "Changed too.").encode())
    client.delete_object(Bucket=BUCKET, Key="docs/s2.md")
    before = stored(rag)
    stub.reset()

    predicted = rag.sync(dry_run=True)
    assert stored(rag) == before and stub.embedding_calls() == []
    assert predicted.to_dict()["sources"]["local-docs"]["deleted_sources"] == ["local://local-docs/d1.md"]
    real = rag.sync()
    keys = ("listed", "processed", "replaced", "skipped", "deleted", "deleted_chunks", "failed", "downloaded")
    assert {k: getattr(predicted, k) for k in keys} == {k: getattr(real, k) for k in keys}
    assert (real.processed, real.replaced, real.deleted) == (3, 2, 2)


def test_hand_ingested_document_survives_sync(tmp_path, stub):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "synced.md").write_text(doc(1))
    by_hand = tmp_path / "manual.md"
    by_hand.write_text(doc(2))
    rag = RAGWire(config(tmp_path, stub, [{"type": "local", "path": str(folder), "name": "docs"}]))
    rag.ingest_documents([by_hand])
    rag.sync()
    (folder / "other.md").write_text(doc(3))
    (folder / "synced.md").unlink()
    stats = rag.sync()
    assert stats.deleted == 1
    assert stored(rag) == {source_id(by_hand), "local://docs/other.md"}


def test_no_sources_is_a_config_error(tmp_path, stub):
    rag = RAGWire(config(tmp_path, stub, []))
    with pytest.raises(ValueError, match="nothing to sync"):
        rag.sync()


def test_a_single_file_source_works(tmp_path, stub):
    one = tmp_path / "one.md"
    one.write_text(doc(1))
    rag = RAGWire(config(tmp_path, stub, [{"type": "local", "path": str(one), "name": "single"}]))
    assert rag.sync().processed == 1
    assert stored(rag) == {"local://single/one.md"}


def test_s3_source_config_keeps_keys_and_endpoint(tmp_path):
    source = S3Source(bucket=BUCKET, endpoint_url="http://127.0.0.1:9", aws_access_key_id="a",
                      aws_secret_access_key="b", cache_dir=tmp_path)
    from ragwire.sync import make_source

    built = make_source(source)
    assert built.key == f"s3://{BUCKET}/" and built.cache_root == tmp_path.resolve() / BUCKET


def test_unreachable_source_does_not_stop_the_others(tmp_path, stub):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "d0.md").write_text(doc(0))
    closed = {"type": "s3", "bucket": BUCKET, "endpoint_url": "http://127.0.0.1:9", "region": "us-east-1",
              "aws_access_key_id": "test", "aws_secret_access_key": "test", "cache_dir": str(tmp_path / "cache")}
    rag = RAGWire(config(tmp_path, stub, [{"type": "local", "path": str(folder), "name": "docs"}, closed]))
    stats = rag.sync()
    assert stats.processed == 1 and stats.partial
    assert stats.to_dict()["sources"][f"s3://{BUCKET}/"]["list_failed"] is True
    assert stored(rag) == {"local://docs/d0.md"}


def test_sources_left_out_of_the_run_are_not_reconciled(tmp_path, stub):
    # Guards: deletion only touches documents of the sources in this run's configuration.
    a, b = tmp_path / "a", tmp_path / "b"
    for folder in (a, b):
        folder.mkdir()
        (folder / "x.md").write_text(doc(1))
    rag = RAGWire(config(tmp_path, stub, [{"type": "local", "path": str(a), "name": "a"},
                                          {"type": "local", "path": str(b), "name": "b"}]))
    rag.sync()
    (b / "y.md").write_text(doc(2))
    only_b = rag.sync(sources=[LocalSource(path=str(b), name="b")])
    assert only_b.deleted == 0 and only_b.processed == 1
    assert stored(rag) == {"local://a/x.md", "local://b/x.md", "local://b/y.md"}
