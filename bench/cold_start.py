"""Cold start: a fresh-process `ragwire retrieve` and `ragwire query` over examples/docs, with where the time goes.

For each provider (``onnx``, the default in config.yaml.example, and ``huggingface``, the
old default) the script ingests ``examples/docs`` once into a temporary store, then runs
``ragwire retrieve`` and ``ragwire query`` (the offline extractive answer) in N fresh
processes each (median wall time, target <= 1.0 s for onnx), and N fresh processes of a
script that takes the retrieve's steps with a clock around each: imports, config, store
open, model load, query.

    python bench/cold_start.py               # both providers, 5 runs each
    python bench/cold_start.py --runs 3 --provider onnx
    PYTHONPATH=/path/to/older/checkout python bench/cold_start.py --provider onnx   # the same figures for another tree
    python bench/cold_start.py --provider onnx --against /path/to/older/checkout --runs 8

``--against`` times both commands for this tree and for the other one in turn, run
after run (each a fresh process over the same store), so a change of load on a shared
machine falls on both alike; it prints the medians side by side.  ``--against-home``
gives the other tree its own ``RAGWIRE_HOME`` (model cache), for a tree that reads an
older export layout.

Each measured tree's bytecode is compiled first, as an installed package has it: a
shell that sets ``PYTHONDONTWRITEBYTECODE`` (this sandbox does) would otherwise make
every run compile the modules changed since their last ``.pyc``.

The step breakdown runs the steps one after another.  ``ragwire query`` itself loads
the ONNX model in a thread while it opens the store; the timeline rows show when, in
that command, each of the two finished (seconds from process start, medians).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.go_offline()

REPO = common.BENCH_DIR.parent
TARGET_S = 1.0
QUERY = "E-4711"
QUESTION = "How long does it take to charge the battery?"

# Runs in a fresh process: the steps of `ragwire retrieve`, each timed.
_STEPS = r"""
import json, sys, time
t0 = time.perf_counter()
import ragwire.cli
from ragwire import RAGWire
t1 = time.perf_counter()
rag = RAGWire(sys.argv[1])
t2 = time.perf_counter()
with rag:
    t3 = time.perf_counter()
    rag.embedding.embed_query("warm")
    t4 = time.perf_counter()
    docs = rag.retrieve(sys.argv[2], top_k=3)
    t5 = time.perf_counter()
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"torch", "sentence_transformers", "transformers"})
print(json.dumps({"imports": t1 - t0, "config": t2 - t1, "store open": t3 - t2,
                  "model load + first embed": t4 - t3, "query": t5 - t4, "total": t5 - t0,
                  "hits": len(docs), "heavy": heavy}))
"""


# Runs in a fresh process: `ragwire query` with a clock on the two loads it overlaps.
_TIMELINE = r"""
import functools, json, sys, time
start = time.perf_counter()
marks = {}
import ragwire.components as components
import ragwire.providers.onnx as onnx
import ragwire.store.edge as edge
from ragwire.cli import app

def clocked(owner, name, label):
    inner = getattr(owner, name, None)
    if inner is None:  # an older tree
        return
    @functools.wraps(inner)
    def run(*args, **kwargs):
        marks.setdefault(label + " starts", time.perf_counter() - start)
        out = inner(*args, **kwargs)
        marks.setdefault(label + " ready", time.perf_counter() - start)
        return out
    setattr(owner, name, run)

clocked(components.Parts, "load_embedding_soon", "model load")
clocked(onnx.OnnxEmbeddings, "_load", "model")
clocked(edge.EdgeEngine, "_load", "store")
try:
    app.main(args=["query", sys.argv[2], "--config", sys.argv[1]], standalone_mode=False)
except SystemExit:
    pass
marks["answer printed"] = time.perf_counter() - start
print(json.dumps({k: v for k, v in marks.items() if k != "model load ready"}))
"""


def prepare_folder(tmp: Path, provider: str) -> Path:
    """A copy of config.yaml.example (embeddings switched to ``provider``) with examples/docs ingested."""
    import yaml

    work = tmp / provider
    shutil.copytree(REPO / "examples" / "docs", work / "examples" / "docs")
    data = yaml.safe_load((REPO / "config.yaml.example").read_text())
    data["embeddings"] = dict(common.ONNX_EMBEDDINGS if provider == "onnx" else common.HUGGINGFACE_EMBEDDINGS)
    config = work / "config.yaml"
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    subprocess.run([sys.executable, "-m", "ragwire.cli", "ingest", "examples/docs", "--config", str(config)],
                   cwd=work, check=True, capture_output=True)
    return config


def cli_runs(config: Path, runs: int, *args: str) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "ragwire.cli", *args, "--config", str(config)],
                       cwd=config.parent, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def compile_bytecode(env: dict[str, str] | None = None) -> None:
    """Compile the bytecode of the ragwire that ``env`` imports, as an install does."""
    code = "import compileall, os, ragwire; compileall.compile_dir(os.path.dirname(ragwire.__file__), quiet=1)"
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def against_runs(config: Path, runs: int, other: Path, other_home: Path | None) -> dict[str, dict[str, list[float]]]:
    """Both commands, this tree and ``other`` alternating run by run."""
    envs = {"this tree": dict(os.environ), str(other): dict(os.environ, PYTHONPATH=str(other))}
    if other_home:
        envs[str(other)]["RAGWIRE_HOME"] = str(other_home)
    compile_bytecode(envs[str(other)])
    commands = {"retrieve": ["retrieve", QUERY, "--top-k", "3"], "query": ["query", QUESTION]}
    out: dict[str, dict[str, list[float]]] = {name: {tree: [] for tree in envs} for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            for tree, env in envs.items():
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "ragwire.cli", *argv, "--config", str(config)],
                               cwd=config.parent, check=True, capture_output=True, env=env)
                out[name][tree].append(time.perf_counter() - start)
    return out


def step_runs(config: Path, runs: int) -> list[dict]:
    out = []
    for _ in range(runs):
        res = subprocess.run([sys.executable, "-c", _STEPS, str(config), QUERY], cwd=config.parent,
                             check=True, capture_output=True, text=True)
        out.append(json.loads(res.stdout.strip().splitlines()[-1]))
    return out


def timeline_runs(config: Path, runs: int) -> dict[str, float]:
    out: list[dict] = []
    for _ in range(runs):
        res = subprocess.run([sys.executable, "-c", _TIMELINE, str(config), QUESTION], cwd=config.parent,
                             check=True, capture_output=True, text=True)
        out.append(json.loads(res.stdout.strip().splitlines()[-1]))
    keys = sorted(set.intersection(*(set(r) for r in out)), key=lambda k: statistics.median(r[k] for r in out))
    return {k: statistics.median(r[k] for r in out) for k in keys}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="fresh processes per measurement (default 5)")
    ap.add_argument("--provider", choices=["onnx", "huggingface", "both"], default="both")
    ap.add_argument("--against", type=Path, metavar="TREE", help="another checkout, timed run by run beside this one")
    ap.add_argument("--against-home", type=Path, metavar="DIR", help="RAGWIRE_HOME for the --against tree")
    args = ap.parse_args()
    compile_bytecode()
    providers = ["onnx", "huggingface"] if args.provider == "both" else [args.provider]
    tmp = Path(tempfile.mkdtemp(prefix="ragwire-cold-start-"))
    summary: dict[str, dict] = {}
    print(f"ragwire {common.code_version()} cold start — {common.machine()}, load avg {common.load_average()}")
    try:
        for provider in providers:
            config = prepare_folder(tmp, provider)
            if args.against:
                paired = against_runs(config, args.runs, args.against.resolve(), args.against_home)
                common.print_table(f"provider: {provider}, interleaved with {args.against}", [
                    (f"`ragwire {name}` median s, {tree}", statistics.median(times))
                    for name, per_tree in paired.items() for tree, times in per_tree.items()])
                summary[f"{provider}_against"] = {name: {tree: round(statistics.median(t), 3) for tree, t in per.items()}
                                                  for name, per in paired.items()}
            cli = cli_runs(config, args.runs, "retrieve", QUERY, "--top-k", "3")
            answer = cli_runs(config, args.runs, "query", QUESTION)
            steps = step_runs(config, args.runs)
            keys = ["imports", "config", "store open", "model load + first embed", "query", "total"]
            median = {k: statistics.median(s[k] for s in steps) for k in keys}
            rows = [(f"`ragwire retrieve` wall s, median of {args.runs}", statistics.median(cli)),
                    ("  min / max s", f"{min(cli):.3f} / {max(cli):.3f}"),
                    (f"`ragwire query` wall s, median of {args.runs}", statistics.median(answer)),
                    ("  min / max s", f"{min(answer):.3f} / {max(answer):.3f}")]
            rows += [(f"  {k} s (median)", v) for k, v in median.items()]
            rows.append(("heavy modules imported", ", ".join(steps[0]["heavy"]) or "none"))
            timeline = timeline_runs(config, args.runs) if provider == "onnx" else {}
            rows += [(f"  `ragwire query` timeline: {k} at s", v) for k, v in timeline.items()]
            if provider == "onnx":
                ok = max(statistics.median(cli), statistics.median(answer)) <= TARGET_S
                rows.append(("target", f"<= {TARGET_S} s: {'met' if ok else 'MISSED'}"))
            common.print_table(f"provider: {provider}", rows)
            summary[provider] = {"cli_median_s": round(statistics.median(cli), 3),
                                 "query_median_s": round(statistics.median(answer), 3),
                                 "cli_s": [round(t, 3) for t in cli],
                                 "steps_median_s": {k: round(v, 3) for k, v in median.items()},
                                 "heavy": steps[0]["heavy"],
                                 "query_timeline_s": {k: round(v, 3) for k, v in timeline.items()}}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    common.print_summary({"bench": "cold_start", "runs": args.runs, "target_s": TARGET_S, **summary})


if __name__ == "__main__":
    main()
