"""Access labels at ingest and sync (issue 39 step 2): every chunk carries its document's labels, and a
relabel (a source's access: changed, ingest --access on an unchanged file) embeds nothing.

Embeddings come from the stub OpenAI-compatible server, so calls can be counted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragwire import RAGWire
from ragwire.errors import ConfigError

from .test_sync import BUCKET, config, s3_entry, s3_server, stub  # noqa: F401 - fixtures

ALL_SOURCES = ("intro.md", "hr/leave.md", "hr/pay/bands.md")


def labels_of(rag: RAGWire) -> dict[str, list[str]]:
    """Each stored document's file path within the source → the labels on its chunks (one set per document)."""
    out: dict[str, list[str]] = {}
    for doc in rag.list_documents():
        seen = {tuple(chunk["metadata"]["access"]) for chunk in rag.document_chunks(doc.source)}
        assert len(seen) == 1, f"{doc.source}: chunks disagree on labels {seen}"
        out[doc.source.split("/", 3)[-1]] = list(seen.pop())
    return out


def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    for name in ALL_SOURCES:
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(f"# {name}\n\nThe {name} page explains the rules of {name}.\n", encoding="utf-8")
    return docs


def local(tmp_path: Path, **access) -> dict:
    return {"type": "local", "path": str(tmp_path / "docs"), "recursive": True, "name": "corp", **access}


def test_sync_labels_each_document_by_source_then_longest_sub_folder(tmp_path, stub):
    folder(tmp_path)
    rag = RAGWire(config(tmp_path, stub, [local(tmp_path, access=["staff"], access_paths={"hr": ["hr"]})]))
    rag.sync()
    assert labels_of(rag) == {"intro.md": ["staff"], "hr/leave.md": ["hr"], "hr/pay/bands.md": ["hr"]}


def test_changing_a_sources_labels_relabels_on_the_next_sync_without_embedding(tmp_path, stub):
    folder(tmp_path)
    rag = RAGWire(config(tmp_path, stub, [local(tmp_path, access=["staff"], access_paths={"hr": ["hr"]})]))
    rag.sync()
    assert rag.as_principal(name="fay", groups=["finance"]).list_documents() == []
    rag.close()
    stub.reset()
    narrowed = local(tmp_path, access=["staff"], access_paths={"hr": ["hr"], "hr/pay": ["finance", "hr"]})
    rag = RAGWire(config(tmp_path, stub, [narrowed]))
    again = rag.sync()
    assert (again.skipped, again.processed, again.embedded_chunks) == (3, 0, 0)
    assert stub.embedding_calls() == []
    assert labels_of(rag) == {"intro.md": ["staff"], "hr/leave.md": ["hr"], "hr/pay/bands.md": ["finance", "hr"]}
    finance = rag.as_principal(name="fay", groups=["finance"])
    assert [d.source.split("/", 3)[-1] for d in finance.list_documents()] == ["hr/pay/bands.md"]
    assert {d.metadata["file_name"] for d in finance.retrieve("rules", top_k=5)} == {"bands.md"}


def test_an_unlabelled_document_gets_access_default(tmp_path, stub):
    folder(tmp_path)
    path = config(tmp_path, stub, [local(tmp_path)])
    rag = RAGWire(path)
    rag.sync()
    assert set(map(tuple, labels_of(rag).values())) == {()}  # deny: no label, no restricted reader
    rag.close()
    text = path.read_text() + "access:\n  default: public\n"
    path.write_text(text)
    stub.reset()
    rag = RAGWire(path)
    rag.sync()
    assert set(map(tuple, labels_of(rag).values())) == {("public",)} and stub.embedding_calls() == []


def test_ingest_access_labels_and_relabels_an_unchanged_file_without_embedding(tmp_path, stub):
    docs = folder(tmp_path)
    rag = RAGWire(config(tmp_path, stub, []))
    rag.ingest_documents([docs / "intro.md"], access="HR,finance")
    assert list(labels_of(rag).values()) == [["finance", "hr"]]
    stub.reset()
    stats = rag.ingest_documents([docs / "intro.md"], access=["legal"])
    assert (stats["skipped"], stats["embedded_chunks"]) == (1, 0) and stub.embedding_calls() == []
    assert list(labels_of(rag).values()) == [["legal"]]
    rag.ingest_documents([docs / "intro.md"])  # naming no labels keeps those stored
    assert list(labels_of(rag).values()) == [["legal"]]
    with pytest.raises(ConfigError, match="is not a label"):
        rag.ingest_documents([docs / "intro.md"], access="no spaces")


def test_an_s3_object_tag_labels_the_object_and_a_changed_tag_relabels_it(tmp_path, stub, s3_server):
    url, client, _server = s3_server
    client.put_object(Bucket=BUCKET, Key="docs/a.md", Body=b"# A\n\nAlpha text.\n", Tagging="acl=hr%2Bfinance")
    client.put_object(Bucket=BUCKET, Key="docs/b.md", Body=b"# B\n\nBeta text.\n")
    path = config(tmp_path, stub, [s3_entry(url, tmp_path, access=["staff"])])
    path.write_text(path.read_text() + "access:\n  s3_tag_key: acl\n")
    rag = RAGWire(path)
    rag.sync()
    found = {d.source.rsplit("/", 1)[-1]: d.source for d in rag.list_documents()}
    assert labels_of(rag) == {found["a.md"].split("/", 3)[-1]: ["finance", "hr"],
                              found["b.md"].split("/", 3)[-1]: ["staff"]}
    client.put_object_tagging(Bucket=BUCKET, Key="docs/a.md", Tagging={"TagSet": [{"Key": "acl", "Value": "legal"}]})
    stub.reset()
    rag.sync()
    assert labels_of(rag)[found["a.md"].split("/", 3)[-1]] == ["legal"] and stub.embedding_calls() == []


def test_ragwire_ingest_access_labels_a_folder_and_refuses_a_bad_label(tmp_path, stub):
    from click.testing import CliRunner

    from ragwire.cli import main

    docs = folder(tmp_path)
    path = config(tmp_path, stub, [])
    done = CliRunner().invoke(main, ["ingest", str(docs / "hr"), "-r", "--access", "HR", "--config", str(path)])
    assert done.exit_code == 0, done.output
    rag = RAGWire(path)
    assert set(map(tuple, labels_of(rag).values())) == {("hr",)}
    rag.close()
    bad = CliRunner().invoke(main, ["ingest", str(docs / "intro.md"), "--access", "h r", "--config", str(path)])
    assert bad.exit_code == 1 and "'h r' is not a label" in bad.output
