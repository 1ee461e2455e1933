"""`ragwire sync`: summary line, --json, --dry-run, --no-delete and the exit codes (0, 4, 5)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ragwire.cli import EXIT_LOCKED, EXIT_PARTIAL, main
from ragwire.store.lock import StoreLock

from ..stubs import StubServer
from .helpers import write_config


@pytest.fixture
def stub():
    with StubServer(dim=16) as server:
        yield server


def setup(tmp_path, stub, sources=None):
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(2):
        (folder / f"d{n}.md").write_text(f"# Doc {n}\n\nBelt tension of conveyor {n} is logged weekly.\n")
    cfg = write_config(
        tmp_path,
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        ingestion={"retries": 1, "retry_backoff": 0.01},
        sources=sources or [{"type": "local", "path": str(folder), "name": "docs"}],
    )
    return folder, str(cfg)


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_sync_json_summary_and_dry_run(tmp_path, stub):
    folder, cfg = setup(tmp_path, stub)
    dry = run("sync", "--config", cfg, "--dry-run", "--json")
    assert dry.exit_code == 0
    assert json.loads(dry.stdout)["processed"] == 2 and json.loads(dry.stdout)["dry_run"] is True

    done = run("sync", "--config", cfg, "--json")
    assert done.exit_code == 0
    stats = json.loads(done.stdout)
    assert stats["processed"] == 2 and stats["sources"]["docs"]["listed"] == 2
    assert done.stderr.strip().splitlines()[-1].startswith("sync: 1 sources, 2 listed, 2 processed")

    (folder / "d1.md").unlink()
    kept = run("sync", "--config", cfg, "--no-delete")
    assert kept.exit_code == 0 and "0 deleted" in kept.stderr
    gone = run("sync", "--config", cfg)
    assert gone.exit_code == 0 and "1 deleted" in gone.stderr


def test_unlistable_source_exits_partial(tmp_path, stub):
    _, cfg = setup(tmp_path, stub, [{"type": "local", "path": str(tmp_path / "missing"), "name": "gone"}])
    result = run("sync", "--config", cfg)
    assert result.exit_code == EXIT_PARTIAL
    assert "warning: gone: not listed, so nothing of it is deleted this run" in result.stderr


def test_failed_file_exits_partial(tmp_path, stub):
    folder, cfg = setup(tmp_path, stub)
    (folder / "empty.md").write_text("   \n")
    result = run("sync", "--config", cfg)
    assert result.exit_code == EXIT_PARTIAL and "1 failed" in result.stderr


def test_locked_store_exits_5_after_wait(tmp_path, stub):
    _, cfg = setup(tmp_path, stub)
    assert run("sync", "--config", cfg).exit_code == 0
    from ragwire.store import close_all

    close_all()
    holder = StoreLock(tmp_path / "store" / ".test_docs.lock")
    assert holder.acquire(0)
    try:
        result = run("sync", "--config", cfg, "--wait", "0.2")
    finally:
        holder.release()
    assert result.exit_code == EXIT_LOCKED
    assert "in use by another process" in result.stderr


def test_sync_waits_for_a_holder_that_lets_go_within_wait(tmp_path, stub):
    import threading

    _, cfg = setup(tmp_path, stub)
    assert run("sync", "--config", cfg).exit_code == 0
    from ragwire.store import close_all

    close_all()
    holder = StoreLock(tmp_path / "store" / ".test_docs.lock")
    assert holder.acquire(0)
    threading.Timer(0.5, holder.release).start()
    result = run("sync", "--config", cfg, "--wait", "10")
    assert result.exit_code == 0 and "2 skipped" in result.stderr
