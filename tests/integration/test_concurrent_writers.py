"""Concurrent writers on one embedded collection: real `ragwire` processes started together, and a killed sync.

Embeddings come from the stub server, so each run is quick and the runs overlap.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ragwire import RAGWire
from ragwire.store import make_engine

from ..stubs import StubServer
from .helpers import write_config
from .test_ingest_safety import chunks_per_source, write_corpus

RAGWIRE = str(Path(sys.executable).with_name("ragwire"))


@pytest.fixture
def stub():
    # A little latency per request keeps each run going long enough to overlap the other.
    with StubServer(dim=16, delay=0.02) as server:
        yield server


def config_for(folder: Path, stub, **sections) -> Path:
    return write_config(
        folder,
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "test"},
        splitter={"strategy": "markdown", "chunk_size": 200, "chunk_overlap": 0},
        ingestion={"batch_size": 4, "retries": 0},
        vectorstore={"path": str(folder / "store"), "collection_name": "test_docs", "lock_wait_s": 60},
        **sections,
    )


def corpus(root: Path) -> None:
    write_corpus(root, 6, paragraphs=4)
    write_corpus(root / "more", 6, paragraphs=4)


def started_together(*argvs: list[str]) -> list[subprocess.CompletedProcess]:
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
             for argv in argvs]
    out = []
    for proc, argv in zip(procs, argvs):
        stdout, stderr = proc.communicate(timeout=240)
        out.append(subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr))
    return out


def clean_counts(tmp_path: Path, stub, root: Path) -> dict[str, int]:
    config = config_for(tmp_path / "reference", stub)
    RAGWire(config).ingest_directory(root, recursive=True)
    return chunks_per_source(RAGWire(config))


def test_two_ingest_processes_on_overlapping_folders_store_each_file_once(tmp_path, stub):
    root = tmp_path / "docs"
    corpus(root)
    config = config_for(tmp_path / "run", stub)
    first, second = started_together(
        [RAGWIRE, "ingest", str(root), "-r", "--config", str(config)],
        [RAGWIRE, "ingest", str(root / "more"), "--config", str(config)],
    )
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert chunks_per_source(RAGWire(config)) == clean_counts(tmp_path, stub, root)


def test_two_syncs_started_together_leave_the_collection_equal_to_the_sources(tmp_path, stub):
    root = tmp_path / "docs"
    corpus(root)
    config = config_for(tmp_path / "run", stub, sources=[{"type": "local", "path": str(root), "recursive": True,
                                                          "name": "docs"}])
    runs = started_together(*[[RAGWIRE, "sync", "--config", str(config), "--wait", "120"] for _ in range(2)])
    for run in runs:
        assert run.returncode == 0, run.stderr
    stored = chunks_per_source(RAGWire(config))
    assert len(stored) == 12 and sorted(stored.values()) == sorted(clean_counts(tmp_path, stub, root).values())
    again = RAGWire(config).sync()
    assert again.to_dict()["processed"] == 0 and again.to_dict()["deleted"] == 0


KILLED_SYNC = """
import sys, time
from ragwire import RAGWire
from ragwire.store import collection

write_pending = collection.Collection.write_pending
def wrapped(self, *args, **kwargs):
    write_pending(self, *args, **kwargs)
    print("KILL-ME", file=sys.stderr, flush=True)
    time.sleep(120)
collection.Collection.write_pending = wrapped
RAGWire(sys.argv[1]).sync()
"""


def test_a_sync_killed_mid_write_leaves_a_lock_the_next_sync_takes_over(tmp_path, stub):
    root = tmp_path / "docs"
    corpus(root)
    config = config_for(tmp_path / "run", stub, sources=[{"type": "local", "path": str(root), "recursive": True,
                                                          "name": "docs"}])
    proc = subprocess.Popen([sys.executable, "-c", KILLED_SYNC, str(config)], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True, env=dict(os.environ))
    try:
        for line in proc.stderr:
            if line.startswith("KILL-ME"):
                proc.send_signal(signal.SIGKILL)
                break
    finally:
        proc.kill()
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    done = subprocess.run([RAGWIRE, "sync", "--config", str(config), "--wait", "30"], capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    stored = chunks_per_source(RAGWire(config))  # also asserts no pending leftovers
    assert len(stored) == 12


def test_lock_wait_s_reaches_the_embedded_engine(tmp_path):
    config = RAGWire(write_config(tmp_path, vectorstore={"lock_wait_s": 2.5})).config
    assert make_engine(config.vectorstore).lock_wait_s == 2.5
