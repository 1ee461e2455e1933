"""Sync never deletes what it could not see: unreadable folders, a walk cut short by a limit.

The unreadable-folder runs are real `ragwire sync` processes without the capability
that lets root read any folder (CAP_DAC_OVERRIDE), as a cron user runs them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import yaml

from ragwire import RAGWire
from ragwire.cli import EXIT_PARTIAL
from ragwire.loaders import walk_directory

from ..stubs import StubServer
from .helpers import write_config


@pytest.fixture
def stub():
    with StubServer(dim=16) as server:
        yield server


def doc(n: int) -> str:
    return f"# Note {n}\n\nConveyor {n} is inspected every week; belt tension is logged.\n"


def make(tmp_path, stub, **source):
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    for name in ("top.md", "sub/a.md", "sub/b.md"):
        (docs / name).write_text(doc(len(name)), encoding="utf-8")
    cfg = write_config(
        tmp_path,
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        ingestion={"retries": 1, "retry_backoff": 0.01},
        sources=[{"type": "local", "path": str(docs), "recursive": True, **source}],
    )
    return docs, cfg


def unprivileged(args: list[str]) -> list[str]:
    """``args`` run without the capabilities that let root read a chmod-000 folder."""
    if os.geteuid() != 0:
        return args
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot drop CAP_DAC_OVERRIDE to make a folder unreadable")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--", *args]


def cli_sync(cfg, *extra) -> subprocess.CompletedProcess:
    cmd = unprivileged([sys.executable, "-m", "ragwire.cli", "sync", "--config", str(cfg), "--json", *extra])
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=dict(os.environ))


def stored(cfg) -> set[str]:
    rag = RAGWire(cfg)
    try:
        with rag.collection.opened() as coll:
            return {os.path.basename(s) for s in coll.sources()}
    finally:
        rag.collection.close()  # the next `ragwire sync` process needs the store's folder lock


@pytest.fixture
def locked_folder():
    """chmod 000 a folder for the test, and give it back afterwards so tmp_path can be removed."""
    changed = []

    def lock(path):
        path.chmod(0)
        changed.append(path)

    yield lock
    for path in changed:
        path.chmod(0o755)


@pytest.mark.parametrize("name", [None, "handbook"], ids=["unnamed", "named"])
def test_sync_keeps_everything_under_a_folder_it_cannot_read(tmp_path, stub, locked_folder, name):
    # Guards: the refusal was recorded under the folder's own identity, so sub/a.md and sub/b.md were deleted.
    docs, cfg = make(tmp_path, stub, **({"name": name} if name else {}))
    first = cli_sync(cfg)
    assert first.returncode == 0, first.stderr
    assert stored(cfg) == {"top.md", "a.md", "b.md"}

    locked_folder(docs / "sub")
    second = cli_sync(cfg)
    assert second.returncode == EXIT_PARTIAL, second.stderr
    result = json.loads(second.stdout)
    assert result["deleted"] == 0
    assert f"{docs / 'sub'} could not be listed (permission denied)" in second.stderr
    assert stored(cfg) == {"top.md", "a.md", "b.md"}
    (unlisted,) = next(iter(result["sources"].values()))["unlisted"]
    assert unlisted == {"folder": str(docs / "sub"), "reason": "permission denied"}


def test_sync_of_an_unreadable_source_root_is_partial_and_deletes_nothing(tmp_path, stub, locked_folder):
    docs, cfg = make(tmp_path, stub, name="handbook")
    assert cli_sync(cfg).returncode == 0
    locked_folder(docs)
    run = cli_sync(cfg)
    assert run.returncode == EXIT_PARTIAL, run.stderr
    assert "handbook: not listed, so nothing of it is deleted this run" in run.stderr
    assert "permission denied" in run.stderr
    assert stored(cfg) == {"top.md", "a.md", "b.md"}


def test_sync_deletes_nothing_when_max_files_cuts_the_walk(tmp_path, stub):
    # Guards: with 5 files stored and max_files 3, the files past the limit were deleted.
    docs, cfg = make(tmp_path, stub, name="handbook")
    for n in range(2):
        (docs / f"extra{n}.md").write_text(doc(100 + n), encoding="utf-8")
    assert RAGWire(cfg).sync().processed == 5

    settings = yaml.safe_load(cfg.read_text())
    limited = tmp_path / "limited.yaml"
    limited.write_text(yaml.safe_dump({**settings, "loader": {"max_files": 3}}))
    stats = RAGWire(limited).sync()
    assert stats.partial and stats.deleted == 0
    assert stats.sources["handbook"].truncated
    assert any("listing incomplete" in w and "max_files (3)" in w for w in stats.warnings)
    assert len(stored(cfg)) == 5
    # a real deletion still happens once the walk sees everything again
    (docs / "extra0.md").unlink()
    assert RAGWire(cfg).sync().deleted == 1


def test_walk_reports_a_folder_it_cannot_read_as_unlisted(tmp_path, locked_folder):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.md").write_text("a")
    (tmp_path / "b.md").write_text("b")
    locked_folder(tmp_path / "sub")
    code = ("import json, sys; from ragwire.loaders import walk_directory; r = walk_directory(sys.argv[1], "
            "recursive=True); print(json.dumps([[str(p) for p in r.files], [[str(p), w] for p, w in r.unlisted]]))")
    out = subprocess.run(unprivileged([sys.executable, "-c", code, str(tmp_path)]), capture_output=True,
                         text=True, timeout=60, check=True).stdout
    files, unlisted = json.loads(out)
    assert files == [str(tmp_path / "b.md")]
    assert unlisted == [[str(tmp_path / "sub"), "permission denied"]]


def test_walk_says_when_max_files_cut_it_short(tmp_path):
    for n in range(4):
        (tmp_path / f"f{n}.md").write_text(f"file {n}")
    assert walk_directory(tmp_path, max_files=3).truncated
    assert not walk_directory(tmp_path, max_files=4).truncated


# -- ownership ------------------------------------------------------------------

def owned_setup(tmp_path, stub, **source):
    docs = tmp_path / "owned"
    docs.mkdir()
    for n in range(3):
        (docs / f"d{n}.md").write_text(doc(n), encoding="utf-8")
    cfg = write_config(
        tmp_path,
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        ingestion={"retries": 1, "retry_backoff": 0.01},
        sources=[{"type": "local", "path": str(docs), **source}],
    )
    return docs, cfg


@pytest.mark.parametrize("force", [False, True], ids=["ingest", "ingest-force"])
def test_a_hand_ingest_of_a_synced_file_keeps_it_owned_by_sync(tmp_path, stub, force):
    # Guards: `ragwire ingest` rewrote the chunks without sync_source, so the deleted file stayed searchable.
    docs, cfg = owned_setup(tmp_path, stub)
    rag = RAGWire(cfg)
    assert rag.sync().processed == 3
    (docs / "d1.md").write_text(doc(1) + "\nEdited by hand.\n", encoding="utf-8")
    if force:
        rag.reingest_documents([docs / "d1.md"])
    else:
        assert rag.ingest_directory(docs)["processed"] == 1
    (docs / "d1.md").unlink()
    stats = rag.sync()
    assert stats.deleted == 1, stats.summary()
    assert stored(cfg) == {"d0.md", "d2.md"}


def test_sync_takes_over_a_file_ingested_by_hand_without_re_embedding(tmp_path, stub):
    docs, cfg = owned_setup(tmp_path, stub)
    rag = RAGWire(cfg)
    rag.ingest_directory(docs)
    calls = len(stub.embedding_calls())
    first = rag.sync()
    assert (first.skipped, first.embedded_chunks) == (3, 0)
    assert len(stub.embedding_calls()) == calls, "an unchanged file was embedded again"
    (docs / "d2.md").unlink()
    assert rag.sync().deleted == 1
    assert stored(cfg) == {"d0.md", "d1.md"}


def test_naming_a_local_source_leaves_no_orphans(tmp_path, stub):
    docs, cfg = owned_setup(tmp_path, stub)
    RAGWire(cfg).sync()
    settings = yaml.safe_load(cfg.read_text())
    settings["sources"][0]["name"] = "handbook"
    cfg.write_text(yaml.safe_dump(settings))
    stats = RAGWire(cfg).sync()
    assert (stats.processed, stats.deleted) == (3, 3)
    with RAGWire(cfg).collection.opened() as coll:
        assert sorted(coll.sources()) == [f"local://handbook/d{n}.md" for n in range(3)]
    # and back: the unnamed source owns what the named one wrote from this folder
    settings["sources"][0].pop("name")
    cfg.write_text(yaml.safe_dump(settings))
    back = RAGWire(cfg).sync()
    assert (back.processed, back.deleted) == (3, 3)
    (docs / "d0.md").unlink()
    assert RAGWire(cfg).sync().deleted == 1
    assert stored(cfg) == {"d1.md", "d2.md"}


# -- S3: two sources on one bucket, odd keys, partial downloads -------------------

pytest.importorskip("boto3")
pytest.importorskip("moto.server")
from .test_sync import BUCKET, s3_server  # noqa: E402,F401  (the moto server on loopback)


@pytest.fixture
def s3(s3_server):  # noqa: F811
    url, client, _server = s3_server
    return url, client


def s3_config(tmp_path, stub, url, prefixes, **extra):
    sources = [{"type": "s3", "bucket": BUCKET, "prefix": p, "endpoint_url": url, "region": "us-east-1",
                "aws_access_key_id": "test", "aws_secret_access_key": "test",
                "cache_dir": str(tmp_path / "cache"), **extra} for p in prefixes]
    return write_config(
        tmp_path,
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        ingestion={"retries": 1, "retry_backoff": 0.01},
        sources=sources,
    )


def test_two_prefixes_of_one_bucket_download_nothing_on_the_second_run(tmp_path, stub, s3):
    # Guards: one manifest per bucket, overwritten by each source's close, so every run downloaded a/ again.
    url, client = s3
    for key in ("a/one.md", "a/two.md", "b/three.md"):
        client.put_object(Bucket=BUCKET, Key=key, Body=doc(len(key)).encode())
    cfg = s3_config(tmp_path, stub, url, ["a/", "b/"])
    assert RAGWire(cfg).sync().downloaded == 3
    keys = ("listed", "processed", "skipped", "deleted", "failed", "downloaded")
    predicted = RAGWire(cfg).sync(dry_run=True)
    real = RAGWire(cfg).sync()
    assert real.downloaded == 0 and real.skipped == 3
    assert {k: getattr(predicted, k) for k in keys} == {k: getattr(real, k) for k in keys}

    client.put_object(Bucket=BUCKET, Key="a/two.md", Body=doc(99).encode())
    predicted = RAGWire(cfg).sync(dry_run=True)
    real = RAGWire(cfg).sync()
    assert (real.downloaded, real.processed) == (1, 1)
    assert {k: getattr(predicted, k) for k in keys} == {k: getattr(real, k) for k in keys}


def test_naming_an_s3_source_keeps_its_documents_and_cache(tmp_path, stub, s3):
    # Guards: adding name: orphaned the source's documents, so deleted objects stayed searchable.
    url, client = s3
    for key in ("docs/one.md", "docs/two.md"):
        client.put_object(Bucket=BUCKET, Key=key, Body=doc(len(key)).encode())
    RAGWire(s3_config(tmp_path, stub, url, ["docs/"])).sync()
    named = s3_config(tmp_path, stub, url, ["docs/"], name="filings")
    stats = RAGWire(named).sync()
    assert (stats.downloaded, stats.processed, stats.skipped, stats.deleted) == (0, 0, 2, 0)
    client.delete_object(Bucket=BUCKET, Key="docs/two.md")
    assert RAGWire(named).sync().deleted == 1
    assert stored(named) == {"one.md"}


def test_keys_no_filesystem_path_can_mirror_still_ingest(tmp_path, stub, s3):
    # Guards: a key segment over 255 bytes, or x.md beside x.md/inner.md, failed on every run (exit 4 forever).
    url, client = s3
    long_name = "r" * 300 + ".md"
    for key in (f"k/{long_name}", "k/x.md", "k/x.md/inner.md"):
        client.put_object(Bucket=BUCKET, Key=key, Body=doc(len(key)).encode())
    cfg = s3_config(tmp_path, stub, url, ["k/"])
    stats = RAGWire(cfg).sync()
    assert (stats.processed, stats.failed) == (3, 0), stats.errors
    assert not stats.partial
    names = stored(cfg)
    assert {"x.md", "inner.md"} <= names
    assert any(n.startswith("r" * 100) and n.endswith(".md") for n in names)
    assert RAGWire(cfg).sync().downloaded == 0


def test_a_partial_download_left_by_a_killed_run_is_removed(tmp_path, stub, s3):
    url, client = s3
    client.put_object(Bucket=BUCKET, Key="p/one.md", Body=doc(1).encode())
    cfg = s3_config(tmp_path, stub, url, ["p/"])
    RAGWire(cfg).sync()
    stale = tmp_path / "cache" / BUCKET / "ab" / ".part-killed"
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_bytes(b"half a file")
    fresh = stale.with_name(".part-running")
    fresh.write_bytes(b"being written now")
    old = os.stat(stale).st_mtime - 3600
    os.utime(stale, (old, old))
    RAGWire(cfg).sync()
    assert not stale.exists() and fresh.exists()


def test_a_cache_of_the_earlier_layout_is_moved_not_downloaded_again(tmp_path, stub, s3):
    url, client = s3
    body = doc(7).encode()
    put = client.put_object(Bucket=BUCKET, Key="old/seven.md", Body=body)
    mirrored = tmp_path / "cache" / BUCKET / "old" / "seven.md"
    mirrored.parent.mkdir(parents=True)
    mirrored.write_bytes(body)
    etag = put["ETag"].strip('"')
    (tmp_path / "cache" / f".{BUCKET}.ragwire-cache.json").write_text(json.dumps({"old/seven.md": f"{etag}:{len(body)}"}))
    cfg = s3_config(tmp_path, stub, url, ["old/"])
    assert RAGWire(cfg).sync(dry_run=True).downloaded == 0
    stats = RAGWire(cfg).sync()
    assert (stats.downloaded, stats.processed) == (0, 1)
    assert not mirrored.exists()
    assert RAGWire(cfg).sync().downloaded == 0


# -- what a cron log shows ----------------------------------------------------------

HOLD_WRITING = """
import sys, time
from ragwire import RAGWire
rag = RAGWire(sys.argv[1])
with rag.collection.opened() as coll, coll.writing():
    print("HOLDING", flush=True)
    time.sleep(60)
"""


def test_a_reader_blocked_by_a_sync_is_told_who_writes_and_for_how_long(tmp_path, stub):
    docs, cfg = make(tmp_path, stub, name="handbook")
    assert cli_sync(cfg).returncode == 0
    settings = yaml.safe_load(cfg.read_text())
    settings["vectorstore"]["lock_wait_s"] = 0.5
    cfg.write_text(yaml.safe_dump(settings))
    holder = subprocess.Popen([sys.executable, "-c", HOLD_WRITING, str(cfg)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "HOLDING"
        stats = subprocess.run([sys.executable, "-m", "ragwire.cli", "stats", "--config", str(cfg)],
                               capture_output=True, text=True, timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert stats.returncode == 1
    (line,) = stats.stderr.strip().splitlines()
    assert f"in use by another process: process {holder.pid}" in line
    assert "writing it for" in line and "waited" in line
    assert "one process at a time" in line


def test_sync_in_a_pipe_prints_each_warning_and_the_summary_once(tmp_path, stub):
    # Guards: every warning came out twice (log line and `warning:`), and the summary twice at INFO.
    docs, cfg = make(tmp_path, stub, name="handbook")
    settings = yaml.safe_load(cfg.read_text())
    settings["logging"] = {"level": "INFO"}
    settings["sources"].append({"type": "local", "path": str(tmp_path / "missing"), "name": "gone"})
    cfg.write_text(yaml.safe_dump(settings))
    run = subprocess.run([sys.executable, "-m", "ragwire.cli", "sync", "--config", str(cfg)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == EXIT_PARTIAL
    assert run.stderr.count("gone: not listed, so nothing of it is deleted this run") == 1, run.stderr
    assert run.stderr.count("sync: 2 sources, 3 listed") == 1, run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("sync: 2 sources")


def test_a_duplicate_source_error_names_the_config_file_given(tmp_path, stub):
    docs, cfg = make(tmp_path, stub, name="handbook")
    settings = yaml.safe_load(cfg.read_text())
    settings["sources"].append(dict(settings["sources"][0]))
    other = tmp_path / "nightly.yaml"
    other.write_text(yaml.safe_dump(settings))
    run = subprocess.run([sys.executable, "-m", "ragwire.cli", "sync", "--config", str(other)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert run.stderr.startswith("error: nightly.yaml: sources[1]: same source as sources[0] (handbook)"), run.stderr
