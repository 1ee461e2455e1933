"""Shared pieces of the ragwire benchmarks: SciFact files, configs, timers, peak memory, output.

Imported by the scripts in this folder only; nothing here imports ragwire, so a
script can set ``HF_HUB_OFFLINE`` before ragwire (and torch) are loaded.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable

BENCH_DIR = Path(__file__).resolve().parent
OUT_DIR = BENCH_DIR / "out"
DEFAULT_FILES = OUT_DIR / "scifact-files"
# The BEIR SciFact copy and its converter live in the shared data folder, not in the repo.
SHARED_BENCH = Path(os.environ.get("RAGWIRE_BENCH_SHARED", "/work/shared/bench"))
DEFAULT_BEIR = SHARED_BENCH / "data" / "scifact"


def go_offline() -> None:
    """No model hub here: without these a hub lookup takes ~80 s to fail."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


# -- data ---------------------------------------------------------------------

def ensure_files(data: Path | None, beir: Path) -> Path:
    """The folder of SciFact ``<id>.txt`` files, generated into bench/out once if missing."""
    if data is not None:
        if not data.is_dir():
            sys.exit(f"--data {data}: not a folder")
        return data
    if DEFAULT_FILES.is_dir() and any(DEFAULT_FILES.iterdir()):
        return DEFAULT_FILES
    script = SHARED_BENCH / "make_beir_files.py"
    if not script.is_file() or not (beir / "corpus.jsonl").is_file():
        sys.exit(f"no SciFact files: pass --data DIR, or --beir DIR with corpus.jsonl next to {script}")
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    print(f"generating {DEFAULT_FILES} from {beir} ...", file=sys.stderr)
    subprocess.run([sys.executable, str(script), str(beir), str(DEFAULT_FILES)], check=True,
                   stdout=subprocess.DEVNULL)
    return DEFAULT_FILES


def pick_files(folder: Path, limit: int | None) -> list[Path]:
    """The first ``limit`` .txt files by name (all when ``limit`` is None)."""
    names = sorted(p.name for p in folder.iterdir() if p.is_file() and p.suffix == ".txt")
    if limit is not None:
        names = names[:limit]
    if not names:
        sys.exit(f"{folder}: no .txt files")
    return [folder / n for n in names]


def copy_files(files: Iterable[Path], dest: Path) -> Path:
    """Copy into a private folder: runs may edit it, and the walk sees exactly these files."""
    dest.mkdir(parents=True, exist_ok=True)
    for f in files:
        shutil.copyfile(f, dest / f.name)
    return dest


def load_queries(beir: Path, n: int) -> list[str]:
    """The first ``n`` SciFact test queries (those with qrels), in qrels order."""
    texts: dict[str, str] = {}
    with open(beir / "queries.jsonl", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                q = json.loads(line)
                texts[q["_id"]] = q["text"]
    order: list[str] = []
    with open(beir / "qrels.tsv", encoding="utf-8") as fh:
        for line in fh:
            parts = line.strip().split("\t")
            if len(parts) >= 3 and parts[0] != "query-id" and parts[0] not in order:
                order.append(parts[0])
    return [texts[qid] for qid in order[:n]]


# -- counting embedding calls ---------------------------------------------------

class Counting:
    """Stands in for the embedding model and counts the calls that really reach it."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.reset()

    def reset(self) -> None:
        self.calls = 0
        self.texts = 0
        self.query_calls = 0

    def embed_documents(self, texts: list[str]) -> Any:
        self.calls += 1
        self.texts += len(texts)
        return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> Any:
        self.query_calls += 1
        return self._inner.embed_query(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def count_embedding_calls(providers: Any) -> dict[str, Any]:
    """Wrap every model ``providers.get_embedding`` builds from now on in :class:`Counting`.

    Returns the dict the wrapper fills: ``model`` (the last Counting, None until a model
    is built) and ``load_s`` (seconds spent building models).  The pipeline looks
    ``get_embedding`` up on first use, so this must run before that.
    """
    seen: dict[str, Any] = {"load_s": 0.0, "model": None}
    real_get_embedding = providers.get_embedding

    def counted_get_embedding(cfg: Any) -> Any:
        t = time.perf_counter()
        seen["model"] = Counting(real_get_embedding(cfg))
        seen["load_s"] += time.perf_counter() - t
        return seen["model"]

    providers.get_embedding = counted_get_embedding
    return seen


# -- config -------------------------------------------------------------------

HUGGINGFACE_EMBEDDINGS = {
    "provider": "huggingface",
    "model_name": "sentence-transformers/all-MiniLM-L6-v2",
    "model_kwargs": {"device": "cpu"},
    "encode_kwargs": {"normalize_embeddings": True},
}
ONNX_EMBEDDINGS = {"provider": "onnx", "model_name": "sentence-transformers/all-MiniLM-L6-v2"}


def write_config(folder: Path, *, chunk_size: int, chunk_overlap: int, batch_size: int, workers: int,
                 optimize_after_points: int = 1000, provider: str = "huggingface") -> Path:
    """A config.yaml with the packaged MiniLM model and an embedded (Qdrant Edge) store in ``folder``.

    ``provider`` is ``huggingface`` (sentence-transformers) or ``onnx`` (its ONNX export).
    """
    import yaml

    data = {
        "embeddings": dict(ONNX_EMBEDDINGS if provider == "onnx" else HUGGINGFACE_EMBEDDINGS),
        "vectorstore": {
            "path": str(folder / "store"),
            "collection_name": "bench",
            "use_sparse": True,
            "optimize_after_points": optimize_after_points,
        },
        "splitter": {"strategy": "markdown", "chunk_size": chunk_size, "chunk_overlap": chunk_overlap},
        "ingestion": {"workers": workers, "batch_size": batch_size},
        "logging": {"level": "WARNING"},
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


# -- measuring ----------------------------------------------------------------

def ru_maxrss_mib() -> float:
    """``getrusage(RUSAGE_SELF).ru_maxrss`` in MiB (KiB on Linux, bytes on macOS).

    On Linux a process started by subprocess (vfork + exec) inherits its parent's peak here,
    so in a child this reports max(parent's peak at spawn, own peak).
    """
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def peak_rss_mib() -> float:
    """Peak resident set size of this process's own memory: VmHWM from /proc/self/status.

    Equal to ru_maxrss in a process nobody spawned from a bigger one; falls back to
    ru_maxrss where /proc is missing (macOS).
    """
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 2**10
    except OSError:
        pass
    return ru_maxrss_mib()


def percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile, ``q`` in [0, 100]."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def timed_calls(fn: Callable[[], Any], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def machine() -> str:
    import torch  # already loaded by the embedding model when this is called

    return (f"{platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__} "
            f"({torch.get_num_threads()} threads), Python {platform.python_version()}")


def code_version(root: Path | None = None) -> str:
    """The ragwire commit measured, with ``+dirty`` when ragwire/ has uncommitted changes.

    ``root`` is the checkout to describe (default: the one holding these benchmarks).
    """
    root = root or BENCH_DIR.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "ragwire"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def load_average() -> float:
    """1-minute load average: other work on the machine slows every figure here."""
    return round(os.getloadavg()[0], 2)


# -- output -------------------------------------------------------------------

def print_table(title: str, rows: list[tuple[str, Any]]) -> None:
    """Two columns: a label and a value (floats to 3 significant decimals)."""
    print(f"\n{title}")
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        if isinstance(value, float):
            value = f"{value:,.3f}" if abs(value) < 100 else f"{value:,.1f}"
        print(f"  {label.ljust(width)}  {value}")


def print_summary(summary: dict[str, Any]) -> None:
    print("\nJSON " + json.dumps(summary, sort_keys=False, default=str))
