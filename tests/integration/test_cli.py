"""The `ragwire` command, driven end to end on the bundled examples."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import yaml
from click.testing import CliRunner

from ragwire.cli import main

from .helpers import TOPICS, write_config, write_topics


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_ingest_twice_skips_every_file_the_second_time(examples_store, examples_config):
    # The first ingest is the shared store's: `ragwire ingest --json` of examples/docs with this config.
    stats = examples_store.stats
    assert stats["processed"] == stats["total"] >= 7 and stats["failed"] == 0
    second = run("ingest", str(examples_store.docs), "--config", str(examples_config), "--json")
    again = json.loads(second.stdout)
    assert again["skipped"] == again["total"] == stats["total"]
    assert again["chunks_created"] == 0 and again["embedded_chunks"] == 0


def test_retrieve_prints_ranked_results_with_file_names(examples_config):
    result = run("retrieve", "What does error E-4711 mean?", "--config", str(examples_config), "--top-k", "3")
    assert result.exit_code == 0
    lines = [line for line in result.stdout.splitlines() if line[:2] in ("1.", "2.", "3.")]
    assert len(lines) == 3
    assert "troubleshooting.txt" in lines[0]


def test_retrieve_filters_and_json_output(examples_config):
    result = run("retrieve", "warranty", "--config", str(examples_config), "--filter", "file_type=PDF", "--json")
    hits = json.loads(result.stdout)
    assert hits and {h["metadata"]["file_type"] for h in hits} == {"pdf"}


def test_stats_reports_the_collection(tmp_path):
    config = str(write_config(tmp_path))
    docs = write_topics(tmp_path / "docs")
    run("ingest", str(docs[0]), "--config", config)
    info = json.loads(run("stats", "--config", config, "--json").stdout)
    assert info["collection_name"] == "test_docs" and info["total_documents"] >= 1 and info["vector_size"] == 384


def test_ingest_exits_1_when_every_file_failed(tmp_path):
    config = str(write_config(tmp_path))
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "broken.pdf").write_bytes(b"%PDF-1.7 garbage")
    result = run("ingest", str(bad), "--config", config)
    assert result.exit_code == 1
    assert "broken.pdf" in result.stderr


def test_a_bad_config_fails_with_one_line_per_problem(tmp_path, monkeypatch):
    monkeypatch.delenv("RAGWIRE_TEST_UNSET", raising=False)
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({
        "splitter": {"chunk_sizee": 500},
        "embeddings": {"provider": "huggingfac", "api_key": "${RAGWIRE_TEST_UNSET}"},
    }))
    result = run("stats", "--config", str(config))
    assert result.exit_code == 1
    problems = [line for line in result.stderr.splitlines() if line.startswith("  ")]
    assert len(problems) == 3
    assert any("chunk_sizee" in p and "chunk_size" in p for p in problems)
    assert any("RAGWIRE_TEST_UNSET" in p for p in problems)
    assert any("huggingfac" in p and "huggingface" in p for p in problems)


def test_a_missing_config_file_is_a_one_line_error(tmp_path):
    result = run("stats", "--config", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "config file not found" in result.stderr


def test_a_bad_option_is_a_usage_error():
    result = run("retrieve", "q", "--top-k", "zero")
    assert result.exit_code == 2


def test_version_runs_as_a_real_command():
    out = subprocess.run([sys.executable, "-m", "ragwire.cli", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "ragwire, version 0.1.0" in out.stdout


def _real(*args: str, **kwargs) -> subprocess.CompletedProcess:
    """The command as a shell runs it: a process of its own that exits through cli.entry."""
    return subprocess.run([sys.executable, "-m", "ragwire.cli", *args], capture_output=True, text=True, **kwargs)


def test_the_executable_keeps_exit_codes_and_prints_everything_before_it_exits(tmp_path):
    config = write_config(tmp_path)
    write_topics(tmp_path / "docs")
    done = _real("ingest", str(tmp_path / "docs"), "--config", str(config), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["processed"] == len(TOPICS)  # the whole JSON document arrived
    assert _real("retrieve", "q", "--top-k", "zero").returncode == 2
    assert _real("stats", "--config", str(tmp_path / "nope.yaml")).returncode == 1


def test_what_the_executable_wrote_is_stored_after_it_exits(tmp_path):
    # The executable skips the interpreter's teardown: nothing an ingest wrote may depend on it.
    config = write_config(tmp_path)
    write_topics(tmp_path / "docs")
    assert _real("ingest", str(tmp_path / "docs"), "--config", str(config)).returncode == 0
    from ragwire import RAGWire
    from ragwire.store import close_all

    rag = RAGWire(config)
    assert rag.retrieve("tomatoes", top_k=1)[0].metadata["file_name"] == "garden.md"
    close_all()


def test_a_failing_command_still_runs_its_exit_handlers(tmp_path):
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('handler ran', file=sys.stderr))\n"
        "from ragwire.cli.entry import run\n"
        f"run(['stats', '--config', {str(tmp_path / 'nope.yaml')!r}])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert "config file not found" in done.stderr and done.stderr.rstrip().endswith("handler ran")


def test_the_executable_runs_numpy_blas_on_one_thread_unless_the_environment_says_otherwise():
    # numpy's OpenBLAS threads spin beside the ONNX session's creation in a cold query.
    code = (
        "import atexit, os, sys\n"
        "atexit.register(lambda: print('blas', os.environ.get('OPENBLAS_NUM_THREADS'), "
        "'numpy' in sys.modules, file=sys.stderr))\n"
        "from ragwire.cli.entry import run\n"
        "run(['--version'])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and done.stderr.strip() == "blas 1 False"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**env, "OPENBLAS_NUM_THREADS": "3"})
    assert done.stderr.strip() == "blas 3 False"
