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
