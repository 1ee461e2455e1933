"""What LLM metadata extraction costs an ingest: the same SciFact files with and without an LLM.

    python bench/metadata_bench.py                 # 500 files, LLM answers after 200 ms, workers 4
    python bench/metadata_bench.py --serial        # also workers 1: one LLM call at a time

The LLM is the project's stub server on 127.0.0.1 speaking OpenAI's chat-completions
format, driven by the real ``ChatOpenAI`` client; it answers every call after
``--llm-delay`` seconds with a valid JSON object for the schema.  Each run ingests
into a fresh embedded store with ``config.yaml.example``'s splitter and model.
The figure to read is the ratio of documents/s with the LLM to documents/s without.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))
import common  # noqa: E402

SCHEMA = """\
fields:
  - name: topic
    type: str
    description: "The main biomedical topic of the abstract, two or three words"
  - name: study_type
    type: str
    description: "What kind of study this is"
    values: ["trial", "cohort", "review", "lab", "other"]
  - name: year
    type: int
    description: "Publication year, if stated"
"""


def reply(_body: dict[str, Any]) -> str:
    return json.dumps({"topic": "Cell Biology", "study_type": "lab", "year": 2015})


def write_config(folder: Path, *, llm_url: str | None, workers: int) -> Path:
    import yaml

    data = yaml.safe_load((BENCH.parent / "config.yaml.example").read_text(encoding="utf-8"))
    data["vectorstore"]["path"] = str(folder / "store")
    data["ingestion"]["workers"] = workers
    data.setdefault("logging", {})["level"] = "WARNING"
    folder.mkdir(parents=True, exist_ok=True)
    if llm_url:
        (folder / "metadata.yaml").write_text(SCHEMA, encoding="utf-8")
        data["llm"] = {"provider": "openai", "model": "stub", "base_url": llm_url, "api_key": "k", "timeout": 30}
        data["metadata"] = {"config_file": str(folder / "metadata.yaml")}
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def run(files: Path, config: Path) -> dict[str, Any]:
    from ragwire import RAGWire

    rag = RAGWire(str(config))
    rag.embedding.embed_documents(["warm up"])  # model load is not ingest time
    start = time.perf_counter()
    stats = rag.ingest_directory(str(files))
    wall = time.perf_counter() - start
    rag.close()
    return {"wall_s": round(wall, 2), "docs_per_s": round(stats["processed"] / wall, 2),
            "chunks": stats["chunks_created"], "metadata_failed": stats.get("metadata_failed", 0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=500)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--llm-delay", type=float, default=0.2)
    ap.add_argument("--serial", action="store_true", help="also run with workers 1")
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--beir", type=Path, default=common.DEFAULT_BEIR)
    args = ap.parse_args()
    common.go_offline()
    from tests.stubs.server import StubServer

    source = common.ensure_files(args.data, args.beir)
    rows: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="ragwire-metadata-bench-") as tmp, \
            StubServer(chat_reply=reply, delay=args.llm_delay) as stub:
        root = Path(tmp)
        files = common.copy_files(common.pick_files(source, args.limit), root / "docs")
        rows["no llm"] = run(files, write_config(root / "a", llm_url=None, workers=args.workers))
        calls_before = len(stub.requests_to("/v1/chat/completions"))
        rows[f"llm, workers {args.workers}"] = run(
            files, write_config(root / "b", llm_url=stub.openai_url, workers=args.workers))
        rows[f"llm, workers {args.workers}"]["llm_calls"] = len(stub.requests_to("/v1/chat/completions")) - calls_before
        rows[f"llm, workers {args.workers}"]["llm_max_concurrent"] = stub.max_concurrent
        if args.serial:
            stub.max_concurrent = 0
            rows["llm, workers 1"] = run(files, write_config(root / "c", llm_url=stub.openai_url, workers=1))
    base = rows["no llm"]["docs_per_s"]
    common.print_table("Setup", [
        ("files", f"{args.limit} SciFact abstracts"), ("llm", f"stub, {args.llm_delay * 1000:.0f} ms per call"),
        ("code", common.code_version()), ("load average", f"{common.load_average():.2f}"),
    ])
    print(f"\n  {'run':18} {'wall s':>7} {'docs/s':>7} {'ratio':>6} {'chunks':>7} {'llm calls':>9} {'failed':>6}")
    for name, row in rows.items():
        row["ratio"] = round(row["docs_per_s"] / base, 3)
        print(f"  {name:18} {row['wall_s']:7.1f} {row['docs_per_s']:7.1f} {row['ratio']:6.2f} {row['chunks']:7d} "
              f"{row.get('llm_calls', '-')!s:>9} {row['metadata_failed']:6d}")
    common.print_summary({"bench": "metadata", "rows": rows, "llm_delay_s": args.llm_delay,
                          "code": common.code_version(), "load_average": common.load_average()})


if __name__ == "__main__":
    main()
