"""Peak memory of a forced re-ingest against a first ingest of the same corpus.

Each phase runs in its own process, so its peak RSS is its own: a first ingest of
SciFact into a fresh embedded store, then `reingest` of every file (all chunk texts
unchanged, so every vector is reused and the stored vectors are what planning reads).
Target: the re-ingest's peak stays within 1.2x of the first ingest's.

    python bench/reingest_memory_bench.py --limit 500   # quick
    python bench/reingest_memory_bench.py               # all of SciFact
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.go_offline()

TARGET_RATIO = 1.2

CHILD = """
import json, sys, time
sys.path.insert(0, {bench!r})
import common
common.go_offline()
from ragwire import RAGWire
config, folder, force = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
start = time.perf_counter()
stats = RAGWire(config).ingest_directory(folder, force=force)
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "peak_mib": common.ru_maxrss_mib(), "stats": stats}}))
"""


def phase(config: Path, folder: Path, force: bool) -> dict:
    code = CHILD.format(bench=str(common.BENCH_DIR))
    out = subprocess.run([sys.executable, "-c", code, str(config), str(folder), "1" if force else "0"],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="first N SciFact files (default: all)")
    parser.add_argument("--data", type=Path, default=None, help="folder of <id>.txt files")
    parser.add_argument("--beir", type=Path, default=common.DEFAULT_BEIR)
    args = parser.parse_args()

    files = common.pick_files(common.ensure_files(args.data, args.beir), args.limit)
    with tempfile.TemporaryDirectory(prefix="ragwire-reingest-") as tmp:
        work = Path(tmp)
        folder = common.copy_files(files, work / "docs")
        config = common.write_config(work, chunk_size=1000, chunk_overlap=200, batch_size=64, workers=1)
        first = phase(config, folder, force=False)
        forced = phase(config, folder, force=True)

    ratio = forced["peak_mib"] / first["peak_mib"]
    common.print_table(f"forced re-ingest vs first ingest, {len(files)} SciFact files", [
        ("first ingest: seconds", f"{first['seconds']:.1f}"),
        ("first ingest: chunks (embedded)", f"{first['stats']['chunks_created']} ({first['stats']['embedded_chunks']})"),
        ("first ingest: peak RSS MiB", f"{first['peak_mib']:.0f}"),
        ("forced re-ingest: seconds", f"{forced['seconds']:.1f}"),
        ("forced re-ingest: chunks (reused)", f"{forced['stats']['chunks_created']} ({forced['stats']['reused_chunks']})"),
        ("forced re-ingest: peak RSS MiB", f"{forced['peak_mib']:.0f}"),
        ("peak ratio (target <= 1.2)", f"{ratio:.2f}"),
    ])
    common.print_summary({
        "files": len(files),
        "first_seconds": round(first["seconds"], 2),
        "first_peak_mib": round(first["peak_mib"], 1),
        "forced_seconds": round(forced["seconds"], 2),
        "forced_peak_mib": round(forced["peak_mib"], 1),
        "forced_reused_chunks": forced["stats"]["reused_chunks"],
        "peak_ratio": round(ratio, 3),
        "target_met": ratio <= TARGET_RATIO,
    })


if __name__ == "__main__":
    main()
