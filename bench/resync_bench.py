"""Re-sync cost: a second ingest of an unchanged corpus, one edited file, and workers=1 vs 2.

Part 1 ingests SciFact into a fresh embedded store, ingests the same folder again
(target: <= 2% of the first ingest's time, with 0 embedding calls, counted on the
embedding object the runner really calls), repeats that second ingest in a fresh
process (as a scheduled `ragwire ingest` would), then edits one paragraph of one file
and ingests again.  Part 2 ingests the first --workers-limit documents with workers=1
and workers=2, each in its own process so peak memory is per configuration.

    python bench/resync_bench.py --limit 300 --workers-limit 200   # quick
    python bench/resync_bench.py                                   # all of SciFact, 1,000 docs for part 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.go_offline()

TARGET_SECOND_RUN = 0.02
CHILD_TAG = "CHILD "


def timed_ingest(rag: Any, docs: Path) -> tuple[dict[str, Any], float]:
    start = time.perf_counter()
    stats = rag.ingest_directory(docs)
    return stats, time.perf_counter() - start


def edit_one_paragraph(path: Path) -> None:
    """Append a sentence to the last paragraph (SciFact files: title, blank line, abstract)."""
    text = path.read_text(encoding="utf-8").rstrip("\n")
    path.write_text(text + " This sentence was added by resync_bench to change one paragraph.\n",
                    encoding="utf-8")


# -- child processes ------------------------------------------------------------------

def run_child(*args: str) -> tuple[dict[str, Any], float]:
    """Run this script in a fresh process; returns its JSON report and its wall time."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True)
    wall = time.perf_counter() - start
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(CHILD_TAG)]
    if proc.returncode != 0 or not lines:
        sys.exit(f"child {' '.join(args)} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1][len(CHILD_TAG):]), wall


def child_ingest(docs: Path, workers: int, args: argparse.Namespace) -> None:
    """One configuration in a fresh store: load the model, then time ingest_directory."""
    tmp = Path(tempfile.mkdtemp(prefix="ragwire-resync-child-"))
    try:
        config = common.write_config(tmp, chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap,
                                     batch_size=args.batch_size, workers=workers)
        from ragwire import RAGWire

        rag = RAGWire(config)
        rag.parts.dimension()
        rag.embedding.embed_documents(["warm-up " + str(i) for i in range(8)])
        optimize = {"s": 0.0}
        engine = rag.collection._engine
        real_optimize = engine.optimize

        def timed_optimize() -> bool:
            start = time.perf_counter()
            try:
                return real_optimize()
            finally:
                optimize["s"] += time.perf_counter() - start

        engine.optimize = timed_optimize
        rss_before = common.peak_rss_mib()
        cpu = time.process_time()
        stats, wall = timed_ingest(rag, docs)
        report = {
            "workers": workers, "files": stats["total"], "processed": stats["processed"],
            "failed": stats["failed"], "chunks": stats["chunks_created"], "ingest_s": wall,
            "cpu_s": time.process_time() - cpu, "optimize_s": optimize["s"],
            "peak_rss_before_ingest_mib": rss_before, "peak_rss_mib": common.peak_rss_mib(),
            "ru_maxrss_mib": common.ru_maxrss_mib(), "load_avg_end": common.load_average(),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(CHILD_TAG + json.dumps(report))


def child_reingest(config: Path, docs: Path) -> None:
    """A second ingest in a new process, as a scheduled `ragwire ingest` would run it."""
    start = time.perf_counter()
    import ragwire.providers as providers
    from ragwire import RAGWire

    import_s = time.perf_counter() - start
    seen = common.count_embedding_calls(providers)
    stats, wall = timed_ingest(RAGWire(config), docs)
    model = seen["model"]
    print(CHILD_TAG + json.dumps({
        "import_s": import_s, "ingest_s": wall, "model_loaded": model is not None,
        "model_load_s": seen["load_s"], "embed_calls": model.calls if model else 0,
        "embed_texts": model.texts if model else 0, "query_calls": model.query_calls if model else 0,
        "processed": stats["processed"], "skipped": stats["skipped"], "failed": stats["failed"],
        "torch_imported": "torch" in sys.modules, "peak_rss_mib": common.peak_rss_mib(),
        "ru_maxrss_mib": common.ru_maxrss_mib(),
    }))


# -- part 1: the same process re-syncs ------------------------------------------------------

def part_resync(files: list[Path], tmp: Path, args: argparse.Namespace) -> dict[str, Any]:
    docs = common.copy_files(files, tmp / "docs")
    config = common.write_config(tmp, chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap,
                                 batch_size=args.batch_size, workers=args.workers)
    from ragwire import RAGWire

    start = time.perf_counter()
    rag = RAGWire(config)
    rag.parts.dimension()
    rag.embedding.embed_documents(["warm-up " + str(i) for i in range(8)])
    load_s = time.perf_counter() - start
    model = common.Counting(rag.embedding)
    rag.parts._embedding = model  # the runner reaches the model through rag.embedding, i.e. this object
    sparse = common.Counting(rag.sparse_encoder)
    rag.parts._sparse = sparse

    first, first_s = timed_ingest(rag, docs)
    first_calls = (model.calls, model.texts)
    model.reset()
    sparse.reset()
    second, second_s = timed_ingest(rag, docs)
    second_calls = (model.calls, model.texts, sparse.calls)

    # This process keeps the store open for hold_open_s after its last call; a scheduled
    # ingest has no such neighbour, so let go first or the child times the folder lock.
    from ragwire.store import close_all

    close_all()
    fresh, fresh_wall = run_child("--child-reingest", str(config), str(docs))

    target = max(files, key=lambda p: p.stat().st_size).name  # the most chunks: reuse shows
    edit_one_paragraph(docs / target)
    model.reset()
    changed, changed_s = timed_ingest(rag, docs)
    rss = common.peak_rss_mib()

    ratio = second_s / first_s
    common.print_table("Part 1: re-sync (one process, model loaded before timing)", [
        ("model load + warm-up s (not timed below)", load_s),
        ("first ingest s (files / chunks)", f"{first_s:.2f}  ({first['processed']} / {first['chunks_created']})"),
        ("first ingest embedding calls / texts", f"{first_calls[0]} / {first_calls[1]}"),
        ("second ingest s (unchanged)", f"{second_s:.3f}  (skipped {second['skipped']}, processed "
                                        f"{second['processed']})"),
        ("second / first", f"{ratio:.4f} (target <= {TARGET_SECOND_RUN}: "
                           f"{'met' if ratio <= TARGET_SECOND_RUN else 'MISSED'})"),
        ("second ingest embedding calls / texts", f"{second_calls[0]} / {second_calls[1]}"),
        ("second ingest bm25 calls", second_calls[2]),
        ("second ingest per file ms", 1000 * second_s / max(1, second["total"])),
        ("fresh process: whole command s", fresh_wall),
        ("fresh process: import ragwire s", fresh["import_s"]),
        ("fresh process: ingest_directory s", fresh["ingest_s"]),
        ("fresh process: model loaded / load s", f"{fresh['model_loaded']} / {fresh['model_load_s']:.2f}"),
        ("fresh process: embed calls / query calls", f"{fresh['embed_calls']} / {fresh['query_calls']}"),
        ("fresh process: ingest / first", f"{fresh['ingest_s'] / first_s:.4f}"),
        ("fresh process: whole command / first", f"{fresh_wall / first_s:.4f}"),
        ("fresh process: peak RSS MiB (ru_maxrss)", f"{fresh['peak_rss_mib']:,.1f} ({fresh['ru_maxrss_mib']:,.1f})"),
        (f"one paragraph edited ({target}) s", changed_s),
        ("  processed / skipped / replaced", f"{changed['processed']} / {changed['skipped']} / {changed['replaced']}"),
        ("  embedded_chunks / reused_chunks", f"{changed['embedded_chunks']} / {changed['reused_chunks']}"),
        ("  embedding calls / texts", f"{model.calls} / {model.texts}"),
        ("peak RSS this process MiB", rss),
    ])
    return {
        "files": len(files), "chunks": first["chunks_created"], "model_load_s": round(load_s, 2),
        "first_s": round(first_s, 2), "second_s": round(second_s, 3), "second_over_first": round(ratio, 5),
        "target": TARGET_SECOND_RUN, "target_met": ratio <= TARGET_SECOND_RUN,
        "second_embed_calls": second_calls[0], "second_skipped": second["skipped"],
        "fresh_process": {k: round(v, 3) if isinstance(v, float) else v for k, v in fresh.items()}
        | {"command_s": round(fresh_wall, 2), "ingest_over_first": round(fresh["ingest_s"] / first_s, 4),
           "command_over_first": round(fresh_wall / first_s, 4)},
        "edit": {"file": target, "s": round(changed_s, 2), "processed": changed["processed"],
                 "embedded_chunks": changed["embedded_chunks"], "reused_chunks": changed["reused_chunks"],
                 "replaced": changed["replaced"], "embed_calls": model.calls},
        "peak_rss_mib": round(rss, 1),
    }


# -- part 2: workers ----------------------------------------------------------------

def part_workers(files: list[Path], tmp: Path, args: argparse.Namespace) -> dict[str, Any]:
    """workers=1 and workers=2 in fresh processes, in ABBA order over --workers-rounds so that
    load from other jobs drifting during the runs hits both configurations alike."""
    docs = common.copy_files(files, tmp / "docs-workers")
    common_args = ["--batch-size", str(args.batch_size), "--chunk-size", str(args.chunk_size),
                   "--chunk-overlap", str(args.chunk_overlap)]
    order = [w for r in range(args.workers_rounds) for w in ((1, 2) if r % 2 == 0 else (2, 1))]
    runs: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
    for workers in order:
        report, _ = run_child("--child-ingest", str(docs), "--workers", str(workers), *common_args)
        report["chunks_per_s"] = report["chunks"] / report["ingest_s"]
        runs[workers].append(report)
    summary: dict[int, dict[str, Any]] = {}
    for w, reports in runs.items():
        summary[w] = {
            "runs": len(reports), "chunks": reports[0]["chunks"],
            "chunks_per_s": sum(r["chunks"] for r in reports) / sum(r["ingest_s"] for r in reports),
            "chunks_per_s_each": [round(r["chunks_per_s"], 2) for r in reports],
            "cpu_s_per_run": sum(r["cpu_s"] for r in reports) / len(reports),
            "optimize_s": max(r["optimize_s"] for r in reports),
            "peak_rss_before_ingest_mib": max(r["peak_rss_before_ingest_mib"] for r in reports),
            "peak_rss_mib": max(r["peak_rss_mib"] for r in reports),
            "ru_maxrss_mib": max(r["ru_maxrss_mib"] for r in reports),
        }
    rows = [("order of runs", " ".join(f"w{w}" for w in order))]
    for w, r in summary.items():
        rows += [
            (f"workers={w}: chunks/s (each run)", f"{r['chunks_per_s']:.2f}  "
                                                  f"({', '.join(map(str, r['chunks_per_s_each']))})"),
            (f"workers={w}: CPU s per run / optimize() s", f"{r['cpu_s_per_run']:.1f} / {r['optimize_s']:.2f}"),
            (f"workers={w}: peak RSS MiB, before ingest / end (ru_maxrss)",
             f"{r['peak_rss_before_ingest_mib']:.0f} / {r['peak_rss_mib']:.0f} ({r['ru_maxrss_mib']:.0f})"),
        ]
    speedup = summary[2]["chunks_per_s"] / summary[1]["chunks_per_s"]
    rows.append(("chunks/s workers=2 / workers=1", f"{speedup:.3f}"))
    common.print_table(f"Part 2: workers, first {len(files)} documents ({summary[1]['chunks']} chunks), "
                       "a fresh process and store per run", rows)
    return {
        "files": len(files),
        "order": order,
        "workers": {str(w): {k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()}
                    for w, r in summary.items()},
        "speedup_2_over_1": round(speedup, 3),
    }


# -- main -----------------------------------------------------------------------------

def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, help="part 1: the first N documents (sorted by name); default all")
    ap.add_argument("--workers-limit", type=int, default=1000,
                    help="part 2: the first N documents (default 1000, at most --limit)")
    ap.add_argument("--workers-rounds", type=int, default=2,
                    help="part 2: rounds of (workers=1, workers=2), alternating order (default 2: ABBA)")
    ap.add_argument("--data", type=Path, help="folder of already generated <id>.txt files "
                    f"(default {common.DEFAULT_FILES}, generated if missing)")
    ap.add_argument("--beir", type=Path, default=common.DEFAULT_BEIR, help="BEIR SciFact folder")
    ap.add_argument("--batch-size", type=int, default=64, help="ingestion.batch_size (default 64)")
    ap.add_argument("--workers", type=int, default=1, help="ingestion.workers in part 1 (default 1)")
    ap.add_argument("--chunk-size", type=int, default=1000, help="splitter.chunk_size (default 1000)")
    ap.add_argument("--chunk-overlap", type=int, help="splitter.chunk_overlap (default chunk_size / 5)")
    ap.add_argument("--part", choices=["all", "resync", "workers"], default="all")
    ap.add_argument("--child-ingest", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--child-reingest", type=Path, nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.chunk_overlap is None:
        args.chunk_overlap = args.chunk_size // 5
    return args


def main() -> None:
    args = parse_args()
    if args.child_ingest:
        return child_ingest(args.child_ingest, args.workers, args)
    if args.child_reingest:
        return child_reingest(*args.child_reingest)
    folder = common.ensure_files(args.data, args.beir)
    files = common.pick_files(folder, args.limit)
    load_at_start = common.load_average()
    code = common.code_version()
    tmp = Path(tempfile.mkdtemp(prefix="ragwire-resync-bench-"))
    summary: dict[str, Any] = {"bench": "resync", "code": code, "date": time.strftime("%Y-%m-%d %H:%M"),
                               "limit": args.limit,
                               "batch_size": args.batch_size, "chunk_size": args.chunk_size,
                               "chunk_overlap": args.chunk_overlap}
    try:
        scope = f"first {len(files)} of SciFact" if args.limit else "all of SciFact"
        print(f"ragwire {code} resync bench — part 1: {scope}; part 2: first "
              f"{min(args.workers_limit, len(files))}; batch_size {args.batch_size}, chunk_size "
              f"{args.chunk_size}/{args.chunk_overlap}; load avg at start {load_at_start}")
        if args.part in ("all", "resync"):
            summary["resync"] = part_resync(files, tmp / "resync", args)
        if args.part in ("all", "workers"):
            summary["workers"] = part_workers(files[:args.workers_limit], tmp / "workers", args)
        print(f"\nmachine: {common.machine()}; load avg at end {common.load_average()}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    summary["load_avg"] = [load_at_start, common.load_average()]
    common.print_summary(summary)


if __name__ == "__main__":
    main()
