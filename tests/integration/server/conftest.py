"""One `ragwire serve` process over one small collection, shared by the API and browser tests.

The server builds its collection itself: it starts with ``--sync-every 1h``, whose first
run syncs the corpus folder at once, so the model loads once for the sync and the
requests.  Every test reads what it needs from :class:`Server`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from tests.integration.helpers import write_config  # noqa: E402
from tests.pdfs import SCAN_DPI, write_scan  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
# A document whose text is an XSS payload: the page must show it as text and run none of it.
XSS_DOC = ("# Lidar calibration\n\nThe lidar calibration code for the AR-7 is "
           "<script>window.__xss = 'script ran'</script> written next to "
           "<img src=x onerror=\"window.__xss = 'onerror ran'\"> on the service card.\n")
# A scanned PDF (no text layer), read by Tesseract where it is installed (CI installs it).
TESSERACT = shutil.which("tesseract") is not None
SCAN = "pallet-scales-scan.pdf"
SCAN_TEXT = "Pallet scales are checked every May."
OBSOLETE_DOC = "# Forklift rota\n\nThe forklift rota for the night shift is pinned on the canteen door every Friday.\n"
CORPUS = {
    "lidar-calibration.md": XSS_DOC,
    "forklift-rota.md": OBSOLETE_DOC,
    "charging.md": "# Docking\n\nDock the robot at its charging station every night. A full charge takes "
                   "three hours, and the status light turns green when it is done.\n",
}


@dataclass
class Server:
    """The running server: its URL, process, folders and the environment a CLI call needs."""

    url: str
    process: subprocess.Popen
    config: Path
    corpus: Path
    uploads: Path
    env: dict[str, str]
    log: Path
    started_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
                data: bytes | None = None, timeout: float = 120) -> tuple[int, dict[str, str], bytes]:
        """``(status, headers, body)`` of one request; an HTTP error status is returned, not raised."""
        sent = {**self.headers, **(headers or {})}
        if body is not None:
            data = json.dumps(body).encode()
            sent.setdefault("Content-Type", "application/json")
        req = urllib.request.Request(self.url.rstrip("/") + path, data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as response:
                return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()

    def json(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        status, _, raw = self.request(method, path, body, **kwargs)
        assert status < 300, (status, raw[:500])
        return json.loads(raw)

    def documents(self) -> dict[str, dict]:
        return {d["file_name"]: d for d in self.json("GET", "/api/documents")["documents"]}


def server_env(home: Path, ragwire_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGWIRE_")}
    env.update(RAGWIRE_HOME=str(ragwire_home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HOME=str(home),
               PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""))
    return env


def start_server(config: Path, env: dict[str, str], log: Path, *extra: str) -> tuple[str, subprocess.Popen]:
    """``ragwire serve --port 0 …`` started; returns its URL once it printed it (the port is bound then)."""
    handle = log.open("w", encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "ragwire.cli", "serve", "--config", str(config),
                                "--port", "0", *extra], env=env, stdout=handle, stderr=subprocess.STDOUT)
    handle.close()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        match = re.search(r"ragwire serve on (http://\S+/)", log.read_text(encoding="utf-8"))
        if match:
            return match.group(1), process
        if process.poll() is not None:
            raise AssertionError(f"ragwire serve exited {process.returncode}: {log.read_text(encoding='utf-8')}")
        time.sleep(0.1)
    process.kill()
    raise AssertionError("ragwire serve did not start: " + log.read_text(encoding="utf-8"))


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def server(tmp_path_factory, ragwire_home) -> Any:
    """The shared server over the corpus (the warranty PDF, an XSS-payload document, two notes and a scan)."""
    root = tmp_path_factory.mktemp("serve")
    corpus = root / "corpus"
    corpus.mkdir()
    shutil.copy(REPO / "examples" / "docs" / "warranty-policy.pdf", corpus)
    for name, text in CORPUS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    if TESSERACT:
        write_scan(corpus / SCAN, [SCAN_TEXT])
    config = write_config(root, sources=[{"type": "local", "path": str(corpus), "name": "corpus"}],
                          loader={"ocr_dpi": SCAN_DPI})
    uploads = root / "uploads"
    env = server_env(root / "home", ragwire_home)
    log = root / "serve.log"
    t0 = time.monotonic()
    url, process = start_server(config, env, log, "--sync-every", "1h", "--upload-dir", str(uploads),
                                "--max-upload-mb", "0.5")
    srv = Server(url, process, config, corpus, uploads, env, log)
    try:
        deadline = time.monotonic() + 240
        while len(srv.documents()) < 1 + len(CORPUS) + bool(TESSERACT):  # the first sync runs at start-up
            assert process.poll() is None, log.read_text(encoding="utf-8")
            assert time.monotonic() < deadline, "the start-up sync did not finish: " + log.read_text(encoding="utf-8")
            time.sleep(0.3)
        srv.started_s = time.monotonic() - t0
        yield srv
    finally:
        stop(process)
