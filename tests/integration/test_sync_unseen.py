"""Sync integrity, round 2: what sync could not see is never deleted, and what it stores is what it read.

Permission cases run real `ragwire sync` processes without CAP_DAC_OVERRIDE, so the
permission bits bind even when the tests run as root (as a cron user's run does).
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from ragwire import RAGWire
from ragwire.cli import EXIT_PARTIAL

from .test_sync_integrity import cli_sync, doc, make, owned_setup, stored, stub  # noqa: F401


@pytest.fixture
def chmodded():
    """chmod paths for the test, and give them back afterwards so tmp_path can be removed."""
    changed = []

    def chmod(path, mode, recursive=False):
        targets = [path]
        if recursive:
            targets += [os.path.join(d, n) for d, dirs, files in os.walk(path) for n in dirs + files]
        for target in reversed(targets):  # children first, while the parent is still searchable
            os.chmod(target, mode)
            changed.append(target)

    yield chmod
    for target in reversed(changed):
        os.chmod(target, 0o755)


@pytest.mark.parametrize("name", [None, "handbook"], ids=["unnamed", "named"])
def test_sync_keeps_a_subtree_whose_folder_can_be_read_but_not_searched(tmp_path, stub, chmodded, name):
    # Guards: `chmod -R 644 docs/sub` made sub/a.md and sub/b.md "refused" or unseen, and sync deleted them (exit 0).
    docs, cfg = make(tmp_path, stub, **({"name": name} if name else {}))
    (docs / "sub" / "deeper").mkdir()
    (docs / "sub" / "deeper" / "c.md").write_text(doc(7), encoding="utf-8")
    assert cli_sync(cfg).returncode == 0
    assert stored(cfg) == {"top.md", "a.md", "b.md", "c.md"}

    chmodded(docs / "sub", 0o644, recursive=True)
    run = cli_sync(cfg)
    assert run.returncode == EXIT_PARTIAL, run.stderr
    result = json.loads(run.stdout)
    assert result["deleted"] == 0
    (unlisted,) = next(iter(result["sources"].values()))["unlisted"]
    assert unlisted["folder"] == str(docs / "sub")
    assert "cannot be searched" in unlisted["reason"]
    assert stored(cfg) == {"top.md", "a.md", "b.md", "c.md"}


def test_sync_of_a_source_root_readable_but_not_searchable_is_partial(tmp_path, stub, chmodded):
    # Guards: a root with r but not x listed zero files and exited 0.
    docs, cfg = make(tmp_path, stub, name="handbook")
    assert cli_sync(cfg).returncode == 0
    chmodded(docs, 0o644)
    run = cli_sync(cfg)
    assert run.returncode == EXIT_PARTIAL, run.stderr
    assert "handbook: not listed, so nothing of it is deleted this run" in run.stderr
    assert "cannot be searched" in run.stderr
    assert stored(cfg) == {"top.md", "a.md", "b.md"}


@pytest.mark.parametrize("name", [None, "handbook"], ids=["unnamed", "named"])
def test_a_folder_source_replaced_by_a_placeholder_file_deletes_nothing(tmp_path, stub, name):
    # Guards: an unmounted folder with a placeholder file at its path was synced as a one-file source: all deleted.
    docs, cfg = make(tmp_path, stub, **({"name": name} if name else {}))
    assert RAGWire(cfg).sync().processed == 3
    docs.rename(tmp_path / "unmounted")
    docs.write_text("placeholder: the share is not mounted\n", encoding="utf-8")

    stats = RAGWire(cfg).sync()
    assert stats.partial and stats.deleted == 0 and stats.processed == 0
    assert any("is a file now" in w and "nothing of it is ingested or deleted" in w for w in stats.warnings)
    assert stored(cfg) == {"top.md", "a.md", "b.md"}

    # mounted again: everything is current, nothing was lost
    docs.unlink()
    (tmp_path / "unmounted").rename(docs)
    again = RAGWire(cfg).sync()
    assert (again.skipped, again.deleted, again.partial) == (3, 0, False)


def test_a_one_file_source_still_syncs_its_file(tmp_path, stub):
    docs, cfg = owned_setup(tmp_path, stub)
    single = tmp_path / "single.yaml"
    settings = json.loads(json.dumps(__import__("yaml").safe_load(cfg.read_text())))
    settings["sources"] = [{"type": "local", "path": str(docs / "d0.md"), "name": "one"}]
    single.write_text(__import__("yaml").safe_dump(settings))
    assert RAGWire(single).sync().processed == 1
    (docs / "d0.md").write_text(doc(0) + "\nChanged.\n", encoding="utf-8")
    stats = RAGWire(single).sync()
    assert (stats.processed, stats.deleted, stats.partial) == (1, 0, False)


def test_a_hand_ingest_inside_a_named_source_reaches_its_document(tmp_path, stub):
    # Guards: `ragwire ingest docs/d1.md` stored a second, unowned copy under the absolute path,
    # which outlived the file; `ragwire delete docs/d1.md` removed 0 chunks.
    docs, cfg = owned_setup(tmp_path, stub, name="handbook")
    rag = RAGWire(cfg)
    assert rag.sync().processed == 3
    (docs / "d1.md").write_text(doc(1) + "\nEdited by hand.\n", encoding="utf-8")
    assert rag.ingest_documents([str(docs / "d1.md")])["processed"] == 1
    with rag.collection.opened() as coll:
        assert sorted(coll.sources()) == [f"local://handbook/d{n}.md" for n in range(3)]
    (docs / "d1.md").unlink()
    assert rag.sync().deleted == 1
    assert stored(cfg) == {"d0.md", "d2.md"}

    assert rag.delete_document(docs / "d2.md") > 0
    assert stored(cfg) == {"d0.md"}


def test_a_file_rewritten_while_it_is_loaded_is_not_stored_half_read(tmp_path, stub, monkeypatch):
    # Guards: the hash was taken before the load, so a file rewritten in between was stored
    # half-read under the whole file's hash and skipped as unchanged by every later sync.
    docs, cfg = owned_setup(tmp_path, stub, name="handbook")
    target = docs / "d1.md"
    full = doc(1) + "".join(f"\nParagraph {n} of the finished file.\n" for n in range(40))
    target.write_text(doc(1), encoding="utf-8")  # the writer has not finished yet

    import ragwire.ingest.prepare as prepare

    real_load = prepare.load_text

    def load_then_writer_finishes(loader, path):
        loaded = real_load(loader, path)
        if path == target:
            target.write_text(full, encoding="utf-8")
        return loaded

    monkeypatch.setattr(prepare, "load_text", load_then_writer_finishes)
    first = RAGWire(cfg).sync()
    assert first.failed == 1 and first.partial
    (error,) = first.errors
    assert "changed while it was being read" in error["error"]
    monkeypatch.undo()

    second = RAGWire(cfg).sync()
    assert (second.processed, second.failed) == (1, 0)
    rag = RAGWire(cfg)
    text = " ".join(c["text"] for c in rag.document_chunks("local://handbook/d1.md"))
    assert "Paragraph 39 of the finished file." in text


def test_a_file_name_that_is_not_utf8_fails_alone(tmp_path, stub):
    # Guards: one such name stopped every sync and `ingest DIR` with a UnicodeEncodeError, the file not named.
    docs, cfg = owned_setup(tmp_path, stub)
    bad = os.path.join(os.fsencode(docs), b"caf\xe9-notes.md")
    with open(bad, "wb") as handle:
        handle.write(doc(42).encode())

    rag = RAGWire(cfg)
    stats = rag.sync()
    rag.close()  # the CLI run below needs the store's folder lock
    assert (stats.processed, stats.failed) == (3, 1), stats.errors
    (error,) = stats.errors
    assert "caf\\xe9-notes.md: the file name is not valid UTF-8" in error["error"]
    run = cli_sync(cfg)
    assert run.returncode == EXIT_PARTIAL, run.stderr
    assert "Traceback" not in run.stderr
    assert json.loads(run.stdout)["failed"] == 1

    walked = RAGWire(cfg).ingest_directory(docs)
    assert (walked["failed"], walked["skipped"]) == (1, 3)


def test_moving_the_folder_back_from_a_copy_keeps_chunks_single(tmp_path, stub):
    # the one-file identity rule must not claim files of a sibling folder that shares a prefix
    docs, cfg = owned_setup(tmp_path, stub, name="handbook")
    sibling = tmp_path / "owned-archive"
    shutil.copytree(docs, sibling)
    rag = RAGWire(cfg)
    rag.sync()
    rag.ingest_documents([str(sibling / "d0.md")])
    with rag.collection.opened() as coll:
        sources = sorted(coll.sources())
    assert str(sibling / "d0.md") in sources
    assert len(sources) == 4



def test_a_long_running_process_rebuilds_a_store_deleted_under_it(tmp_path, stub):
    # Guards: `serve --sync-every` kept its "checked" mark for a store folder deleted while it ran, and
    # every later sync failed with "collection does not exist … run ragwire ingest first".
    docs, cfg = owned_setup(tmp_path, stub, name="handbook")
    rag = RAGWire(cfg)  # one process, as the server's sync loop is
    assert rag.sync().processed == 3
    rag.close()
    shutil.rmtree(tmp_path / "store")
    again = rag.sync()
    assert (again.processed, again.failed) == (3, 0), again.errors
    assert rag.get_stats()["total_documents"] == 3



def test_a_readable_file_the_sources_extensions_leave_out_is_named_in_a_warning(tmp_path, stub):
    # Guards: a PNG dropped into a synced folder whose source lists only text types was ignored without a word.
    docs, cfg = owned_setup(tmp_path, stub, name="handbook", extensions=[".md"])
    (docs / "scan.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(32))
    (docs / "notes.txt").write_text("Plain notes.\n", encoding="utf-8")
    stats = RAGWire(cfg).sync()
    assert stats.processed == 3 and not stats.partial
    assert any("handbook: 2 files of a type left out of loader.extensions (.png ×1, .txt ×1)" in w
               for w in stats.warnings), stats.warnings

# -- S3: the version downloaded is the version recorded ----------------------------

pytest.importorskip("boto3")
pytest.importorskip("moto.server")
from .test_sync_integrity import BUCKET, s3, s3_config, s3_server  # noqa: E402,F401


def test_an_object_overwritten_between_list_and_get_is_downloaded_again(tmp_path, stub, s3, monkeypatch):
    # Guards: the cache manifest took the listing's ETag, so version B downloaded under version A's
    # ETag was kept and skipped forever once A was put back.
    url, client = s3
    version_a = "# Policy\n\nVisitors sign in at the front desk.\n"
    version_b = "# Policy\n\nVisitors are not admitted for now!!\n"
    assert len(version_a) == len(version_b)  # a size change alone would give the swap away
    client.put_object(Bucket=BUCKET, Key="p/policy.md", Body=version_a.encode())
    cfg = s3_config(tmp_path, stub, url, ["p/"])

    from ragwire.sync.s3 import S3BucketSource

    real_list = S3BucketSource.list

    def list_then_overwrite(self):
        listing = real_list(self)
        client.put_object(Bucket=BUCKET, Key="p/policy.md", Body=version_b.encode())
        return listing

    monkeypatch.setattr(S3BucketSource, "list", list_then_overwrite)
    RAGWire(cfg).sync()
    monkeypatch.undo()
    client.put_object(Bucket=BUCKET, Key="p/policy.md", Body=version_a.encode())  # put back

    stats = RAGWire(cfg).sync()
    assert (stats.downloaded, stats.processed) == (1, 1)
    text = " ".join(c["text"] for c in RAGWire(cfg).document_chunks(f"s3://{BUCKET}/p/policy.md"))
    assert "front desk" in text and "not admitted" not in text
