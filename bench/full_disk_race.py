"""A sync racing another process that fills and frees the store's disk: how often does it die of SIGBUS?

Each round mounts a small tmpfs in a private mount namespace (root or CAP_SYS_ADMIN),
syncs a folder into a store on it, adds files, then runs a second sync while a filler
process oscillates the disk between full and a few MiB free.  A clean stop is exit 1
(one error line) or 0 (the sync got through); a crash is exit 135 (Bus error).  The same
rounds run for this tree and, with --against, for another checkout (its ragwire imported
first through PYTHONPATH), one round of each in turn.

    python bench/full_disk_race.py --rounds 10
    python bench/full_disk_race.py --rounds 10 --against /tmp/oldmain
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.go_offline()

ROUND = r"""
set -u
mount -t tmpfs -o size=${SIZE_MB}m tmpfs "$FS" || exit 90
cat > "$CFG" <<EOF
embeddings:
  provider: onnx
vectorstore:
  path: $FS/store
ingestion:
  retries: 0
sources:
  - type: local
    path: $DOCS
    name: docs
EOF
"$PY" -m ragwire.cli sync --config "$CFG" >/dev/null 2>&1 || { echo "first=$?"; exit 91; }
for n in $(seq 1 $NEW); do
  printf "# Added $n\n\nThe spare battery $n charges in two hours; the dock $n is cleaned weekly.\n" > "$DOCS/new$n.md"
done
( while [ ! -e "$FS/.stop" ]; do
    avail=$(df -k --output=avail "$FS" | tail -1)
    fallocate -l "$(( (avail > 2048 ? avail - 2048 : 0) * 1024 ))" "$FS/filler" 2>/dev/null
    sleep 0.0$((RANDOM % 5 + 1))
    rm -f "$FS/filler"
    sleep 0.0$((RANDOM % 5 + 1))
  done ) &
"$PY" -m ragwire.cli sync --config "$CFG" >"$OUT" 2>&1
echo "rc=$?"
touch "$FS/.stop"
wait
"""


def one_round(tree: Path | None, work: Path, size_mb: int, files: int, new: int) -> int:
    docs = work / "docs"
    shutil.rmtree(work, ignore_errors=True)
    docs.mkdir(parents=True)
    for n in range(files):
        (docs / f"d{n}.md").write_text(f"# Note {n}\n\nThe battery of robot {n} is charged nightly.\n")
    fs = work / "fs"
    fs.mkdir()
    env = {**os.environ, "FS": str(fs), "DOCS": str(docs), "CFG": str(work / "config.yaml"),
           "PY": sys.executable, "SIZE_MB": str(size_mb), "NEW": str(new), "OUT": str(work / "out.txt")}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    run = subprocess.run(["unshare", "-m", "bash", "-c", ROUND], capture_output=True, text=True, env=env,
                         timeout=600, cwd=str(tree) if tree is not None else None)
    for line in run.stdout.splitlines():
        if line.startswith("rc="):
            return int(line[3:])
    raise SystemExit(f"round did not run: {run.stdout} {run.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--size-mb", type=int, default=300, help="the tmpfs under the store")
    parser.add_argument("--files", type=int, default=20, help="files of the first sync")
    parser.add_argument("--new", type=int, default=150, help="files the racing sync adds")
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    args = parser.parse_args()
    if shutil.which("unshare") is None:
        raise SystemExit("needs unshare (util-linux) and root or CAP_SYS_ADMIN")
    trees: list[tuple[str, Path | None]] = [("this tree", None)]
    if args.against is not None:
        trees.append((f"{args.against} ({common.code_version(args.against)})", args.against))
    outcomes: dict[str, collections.Counter[int]] = {label: collections.Counter() for label, _ in trees}
    with tempfile.TemporaryDirectory(prefix="ragwire-race-") as tmp:
        for _ in range(args.rounds):
            for label, tree in trees:
                outcomes[label][one_round(tree, Path(tmp) / "work", args.size_mb, args.files, args.new)] += 1
    print(f"# {args.rounds} rounds each, tmpfs {args.size_mb} MiB, {args.new} files written while the disk "
          f"oscillates; {common.machine()}")
    print(f"{'tree':<50} {'exit 0':>7} {'exit 1':>7} {'Bus error (135)':>16} {'other':>6}")
    for label, counts in outcomes.items():
        other = sum(n for code, n in counts.items() if code not in (0, 1, 135))
        print(f"{label:<50} {counts[0]:>7} {counts[1]:>7} {counts[135]:>16} {other:>6}")


if __name__ == "__main__":
    main()
