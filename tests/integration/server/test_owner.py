"""One owner per embedded store (issue 34): with `ragwire serve` running, CLI writers hand their runs to it
over its socket and exit as they would alone, while the server keeps answering."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import threading
import time

import pytest

pytestmark = pytest.mark.timeout(300)


def cli(server, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ragwire.cli", *args, "--config", str(server.config)],
                          env=server.env, capture_output=True, text=True, timeout=240)


def test_the_owner_socket_is_in_the_store_folder_and_only_its_user_can_use_it(server):
    socket_path = server.config.parent / "store" / ".test_docs.owner.sock"
    mode = socket_path.stat().st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600


def test_a_cli_sync_beside_a_steady_stream_of_queries_completes_and_every_query_succeeds(server):
    # guards: the cron sync failed with exit 5 (or the requests with 503) when neither side left gaps
    (server.corpus / "lockers.md").write_text(
        "# Lockers\n\nLocker keys for the night shift are signed out at gate QUOKKA-4410.\n", encoding="utf-8")
    statuses: list[int] = []
    stop = threading.Event()

    def stream() -> None:
        while not stop.is_set():
            path, body = (("/api/retrieve", {"query": "charging station", "top_k": 3}) if len(statuses) % 3
                          else ("/api/query", {"question": "How long does a full charge take?"}))
            statuses.append(server.request("POST", path, body, timeout=60)[0])

    threads = [threading.Thread(target=stream) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        time.sleep(1)
        done = cli(server, "sync", "--json")
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
    assert done.returncode == 0, done.stderr
    assert "handing this run to it" in done.stderr
    assert json.loads(done.stdout)["processed"] >= 1
    assert len(statuses) >= 4 and set(statuses) == {200}, statuses
    assert "lockers.md" in server.documents()


def test_a_cli_ingest_with_the_server_running_hands_over_and_reports_per_file_stats(server, tmp_path):
    folder = tmp_path / "handed"
    folder.mkdir()
    (folder / "ladders.md").write_text("# Ladders\n\nLadders are inspected every March by crew QUOKKA-3302.\n",
                                       encoding="utf-8")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a PDF")
    done = cli(server, "ingest", str(folder), "--json")
    assert done.returncode == 0, done.stderr
    assert "handing this run to it" in done.stderr and "queued as job" in done.stderr
    # the failed file and its reason reach this terminal, as when the CLI runs alone
    failed_lines = [line for line in done.stderr.splitlines() if "broken.pdf" in line]
    assert failed_lines and all(line.startswith("  ") for line in failed_lines), done.stderr
    stats = json.loads(done.stdout)
    assert (stats["total"], stats["processed"], stats["failed"]) == (2, 1, 1), stats
    assert stats["errors"][0]["file"].endswith("broken.pdf") and stats["errors"][0]["error"]
    assert "ladders.md" in server.documents()
    jobs = server.json("GET", "/api/jobs")["jobs"]
    assert any(j["kind"] == "cli ingest_directory" and j["state"] == "done" for j in jobs)
    # a run that fails as a whole exits as it would alone: an unknown document deletes nothing, exit 0
    gone = cli(server, "delete", str(folder / "never-ingested.md"))
    assert gone.returncode == 0 and "0 chunks removed" in gone.stdout, gone.stderr


def test_a_cli_writer_whose_config_stores_differently_is_refused_by_the_owner_in_one_line(server, tmp_path):
    # guards: the owner ran a handed-over run with its own config, so a CLI config with another
    # chunk size (or other sources) silently stored what the server's config said
    import yaml

    settings = yaml.safe_load(server.config.read_text(encoding="utf-8"))
    settings.setdefault("splitter", {})["chunk_size"] = 333
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(settings), encoding="utf-8")
    (tmp_path / "gutters.md").write_text("# Gutters\n\nGutters are cleared by crew QUOKKA-5120.\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "ragwire.cli", "ingest", str(tmp_path / "gutters.md"),
                           "--config", str(other)], env=server.env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 1, done.stderr
    problem = [line for line in done.stderr.splitlines() if "runs with another config" in line]
    assert len(problem) == 1 and problem[0].startswith("error: ") and ": splitter differ;" in problem[0], done.stderr
    assert "gutters.md" not in server.documents()
