"""A store this process may only read (a read-only mount, another user's folder) is searched, never written.

The runs are real `ragwire` processes without CAP_DAC_OVERRIDE, so permission bits bind
even when the tests run as root.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragwire import RAGWire

from .test_sync_integrity import make, stub, unprivileged  # noqa: F401


def run(cfg, *args) -> subprocess.CompletedProcess:
    ragwire = str(Path(sys.executable).with_name("ragwire"))
    return subprocess.run(unprivileged([ragwire, *args, "--config", str(cfg)]), capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def read_only():
    changed = []

    def lock(folder):
        for current, dirs, files in os.walk(folder):
            for name in files:
                os.chmod(os.path.join(current, name), 0o444)
        for current, _dirs, _files in sorted(os.walk(folder), reverse=True):
            os.chmod(current, 0o555)
        changed.append(folder)

    yield lock
    for folder in changed:
        for current, _dirs, files in os.walk(folder):
            os.chmod(current, 0o755)
            for name in files:
                os.chmod(os.path.join(current, name), 0o644)


def test_a_store_this_user_may_only_read_is_searched_from_a_private_copy(tmp_path, stub, read_only):
    # Guards: a read-only store could not be read at all ("cannot create the lock file", then
    # "If the folder is damaged, move it away and re-ingest" for an intact store).
    docs, cfg = make(tmp_path, stub, name="handbook")
    rag = RAGWire(cfg)
    assert rag.sync().processed == 3
    rag.close()
    read_only(tmp_path / "store")

    stats = run(cfg, "stats")
    assert stats.returncode == 0, stats.stderr
    assert "sources: 3" in stats.stdout
    assert "this process may only read it, so this process reads a private copy" in stats.stderr
    found = run(cfg, "retrieve", "conveyor belt tension")
    assert found.returncode == 0, found.stderr
    assert "top.md" in found.stdout or "a.md" in found.stdout

    removed = run(cfg, "delete", str(docs / "top.md"))
    assert removed.returncode == 1
    assert "cannot write to it: this process may only read its folder" in removed.stderr
    assert "move it away" not in removed.stderr
    leftovers = [p for p in Path(os.environ.get("TMPDIR", "/tmp")).glob("ragwire-readonly-*")]
    assert not any(p.stat().st_mtime > os.path.getmtime(cfg) for p in leftovers), "the private copy stays behind"
