"""Loaders on real-world documents: which files load, how long each takes, and peak memory.

Loads every file of the shared document corpus (PDF, Office, HTML, CSV, text; some damaged,
encrypted or empty on purpose) with MarkItDownLoader, one file at a time, and prints one row per
file (ok / failed with its reason, seconds), totals, CPU time and peak RSS of this process and of
its largest child (converters run in a child process per file).

    python bench/loaders_bench.py                       # MarkItDownLoader on the shared corpus
    python bench/loaders_bench.py --loader page         # PageLoader instead
    python bench/loaders_bench.py --in-process          # converters in this process (isolation cost)
    PYTHONPATH=/tmp/before python bench/loaders_bench.py   # another checkout of ragwire
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

DEFAULT_DOCS = common.SHARED_BENCH / "data" / "docs"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DOCS, help=f"folder of documents (default {DEFAULT_DOCS})")
    parser.add_argument("--loader", choices=["markitdown", "page"], default="markitdown")
    parser.add_argument("--in-process", action="store_true",
                        help="run converters in this process instead of a child per file (to measure the isolation's cost)")
    parser.add_argument("--save-text", type=Path, default=None,
                        help="write each file's text to DIR/<name>.txt, to compare two checkouts with diff")
    parser.add_argument("--fork-calls", type=int, default=50,
                        help="trivial conversions timed through the child process, for its fixed cost (0: skip)")
    parser.add_argument("--ballast-mb", type=int, default=0,
                        help="hold this many MiB of touched memory first, like an ingest with its model loaded")
    return parser.parse_args()


def children_maxrss_mib() -> float:
    """Peak RSS of the largest child waited for (forked children count pages shared with this process)."""
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def cpu_seconds() -> tuple[float, float]:
    """(this process, its waited-for children): user + system seconds."""
    times = os.times()
    return times.user + times.system, times.children_user + times.children_system


def ragwire_version(package_dir: Path) -> str:
    """The commit of the checkout ragwire was imported from (another one under PYTHONPATH, say)."""
    return common.code_version(package_dir.parent)


def run_in_process() -> None:
    """Make the loaders call converters directly (needs a ragwire with ragwire.loaders.guard)."""
    try:
        from ragwire.loaders import guard
    except ImportError:
        sys.exit("--in-process: this ragwire has no ragwire.loaders.guard (converters already run in-process)")
    guard.run_converter = lambda function, *args, name, timeout_s: function(*args)


def fork_overhead_ms(calls: int) -> float | None:
    """Mean milliseconds of one child process round trip (fork, pipe, exit) on a trivial conversion."""
    try:
        from ragwire.loaders import guard
    except ImportError:
        return None
    run = guard.run_converter
    run(str.upper, "warm-up", name="warm-up", timeout_s=60)
    started = time.perf_counter()
    for _ in range(calls):
        run(str.upper, "text", name="overhead", timeout_s=60)
    return (time.perf_counter() - started) / calls * 1000


def main() -> None:
    args = parse_args()
    ballast = bytearray(args.ballast_mb * 2**20)
    for offset in range(0, len(ballast), 4096):  # touch every page so it is resident
        ballast[offset] = 1
    files = sorted(p for p in args.data.iterdir() if p.is_file())
    if not files:
        sys.exit(f"{args.data}: no files")

    started = time.perf_counter()
    import markitdown  # noqa: F401 — the converters' import cost, kept out of the per-file times
    import pdfminer.high_level  # noqa: F401
    import pypdf  # noqa: F401

    import ragwire
    from ragwire.loaders import MarkItDownLoader, PageLoader

    import_s = time.perf_counter() - started
    if args.in_process:
        run_in_process()
    loader = PageLoader() if args.loader == "page" else MarkItDownLoader()
    if args.save_text:
        args.save_text.mkdir(parents=True, exist_ok=True)

    rows: list[dict[str, Any]] = []
    cpu_before = cpu_seconds()
    started = time.perf_counter()
    for path in files:
        t = time.perf_counter()
        result = loader.load(path)
        seconds = time.perf_counter() - t
        rows.append({"file": path.name, "ok": result["success"], "seconds": round(seconds, 3),
                     "chars": len(result["text_content"] or ""), "error": result["error"]})
        if args.save_text:
            (args.save_text / f"{path.name}.txt").write_text(result["text_content"] or f"ERROR {result['error']}\n",
                                                             encoding="utf-8")
    wall = time.perf_counter() - started
    multiprocessing.active_children()  # reaps the last conversion child, so its figures count
    cpu_after = cpu_seconds()
    # Before anything else runs a subprocess: git (vfork + exec) would report this process's peak.
    children_peak = children_maxrss_mib()
    overhead_ms = fork_overhead_ms(args.fork_calls) if args.fork_calls and not args.in_process else None

    package_dir = Path(ragwire.__file__).resolve().parent
    version = ragwire_version(package_dir)
    print(f"ragwire {package_dir} ({version}), "
          f"{type(loader).__name__}{' in-process' if args.in_process else ''}, {len(files)} files in {args.data}")
    width = max(len(row["file"]) for row in rows)
    print(f"\n  {'file'.ljust(width)}  result  seconds  chars")
    for row in rows:
        print(f"  {row['file'].ljust(width)}  {'ok' if row['ok'] else 'FAILED':6}  {row['seconds']:7.3f}  {row['chars']:>7}")
    failed = [row for row in rows if not row["ok"]]
    if failed:
        print("\nfailed:")
        for row in failed:
            print(f"  {row['error']}")

    slowest = max(rows, key=lambda row: row["seconds"])
    summary = {
        "version": version,
        "loader": type(loader).__name__,
        "in_process": args.in_process,
        "files": len(rows),
        "ok": len(rows) - len(failed),
        "failed": len(failed),
        "seconds": round(wall, 2),
        "slowest": f"{slowest['file']} {slowest['seconds']:.2f} s",
        "cpu_s_self": round(cpu_after[0] - cpu_before[0], 2),
        "cpu_s_children": round(cpu_after[1] - cpu_before[1], 2),
        "import_s": round(import_s, 2),
        "child_round_trip_ms": None if overhead_ms is None else round(overhead_ms, 1),
        "ballast_mib": args.ballast_mb,
        "peak_rss_mib_self": round(common.peak_rss_mib(), 1),
        "ru_maxrss_mib_self": round(common.ru_maxrss_mib(), 1),
        "ru_maxrss_mib_children": round(children_peak, 1),
        "load_average": common.load_average(),
    }
    common.print_table("summary", [(key, value) for key, value in summary.items() if key != "version"])
    common.print_summary(summary)


if __name__ == "__main__":
    main()
