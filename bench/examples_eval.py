"""Retrieval quality on the bundled example documents: dense vs keyword vs hybrid.

A second test set next to BEIR SciFact, so that tuned search defaults are not tuned to one corpus.
``examples/docs`` (7 files, PDF/DOCX/PPTX/XLSX/HTML/MD/TXT) is copied into a temporary folder and
ingested into a fresh embedded store with the defaults of ``config.yaml.example``; then the golden set
(default ``bench/golden/examples_docs.yaml``) is scored with ``ragwire.eval.evaluate`` for
``search_type`` similarity (dense), keyword (BM25) and hybrid (RRF), at every ``--top-k``.
Query latency (``rag.retrieve``, end to end, store held open with ``with rag:``) is timed per mode.

    python bench/examples_eval.py
    python bench/examples_eval.py --top-k 3 10 --golden my_golden.yaml
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.go_offline()

from ragwire.eval import GoldenSet, evaluate  # noqa: E402
from ragwire.eval.metrics import MISS  # noqa: E402

REPO = common.BENCH_DIR.parent
DEFAULT_GOLDEN = common.BENCH_DIR / "golden" / "examples_docs.yaml"
DOCS = REPO / "examples" / "docs"
MODES = {"dense": "similarity", "keyword": "keyword", "hybrid": "hybrid"}
# A query naming an exact identifier: error code, SKU, version number.
IDENTIFIER = re.compile(r"\bE-\d{4}\b|\bSKU-[\w-]+|\bAR-7-\w+|\b\d+\.\d+\.\d+\b|\b\d+\.\d+\.x\b")

METRICS = ("ndcg", "recall", "mrr", "hit_rate", "precision")


def kind_of(query: str, expected: list[str]) -> str:
    if IDENTIFIER.search(query):
        return "identifier"
    if len(expected) > 1:
        return "multi-file"
    return "prose"


def first_rank(q: Any) -> int | None:
    """1-based rank of the first correct chunk, None when none came back."""
    return next((i for i, r in enumerate(q.retrieved, 1) if r != MISS), None)


# -- config and ingest ----------------------------------------------------------------------------

def write_config(tmp: Path) -> Path:
    """config.yaml.example as shipped, with the embedded store in ``tmp``."""
    import yaml

    data = yaml.safe_load((REPO / "config.yaml.example").read_text(encoding="utf-8"))
    data["vectorstore"]["path"] = str(tmp / "store")
    data["vectorstore"]["collection_name"] = "examples_eval"
    data.setdefault("logging", {})["level"] = "WARNING"
    path = tmp / "config.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def latencies(rag: Any, queries: list[str], search_type: str, k: int) -> list[float]:
    rag.retrieve(queries[0], top_k=k, search_type=search_type)  # warm-up
    out = []
    for q in queries:
        t = time.perf_counter()
        rag.retrieve(q, top_k=k, search_type=search_type)
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--golden", type=Path, default=DEFAULT_GOLDEN, help="golden set (YAML/JSON)")
    ap.add_argument("--top-k", type=int, nargs="+", default=[5, 10],
                    help="cutoffs to evaluate at (default 5 10); the headline table shows recall and hit at "
                         "the smallest, nDCG and MRR at the largest")
    ap.add_argument("--docs", type=Path, default=DOCS, help="documents to ingest (default examples/docs)")
    ap.add_argument("--hardest", type=int, default=10, help="list this many lowest-scoring queries (default 10)")
    args = ap.parse_args()
    ks = sorted(set(args.top_k))
    k_lo, k_hi = ks[0], ks[-1]

    from ragwire import RAGWire

    golden = GoldenSet.from_file(args.golden)
    answerable = [e for e in golden.entries if e.answerable]
    queries = [e.query for e in golden.entries]

    tmp = Path(tempfile.mkdtemp(prefix="ragwire-examples-eval-"))
    try:
        shutil.copytree(args.docs, tmp / "docs")
        rag = RAGWire(str(write_config(tmp)))
        t = time.perf_counter()
        stats = rag.ingest_directory(tmp / "docs")
        ingest_s = time.perf_counter() - t
        results: dict[tuple[str, int], Any] = {}
        lat: dict[str, list[float]] = {}
        with rag:
            for mode, st in MODES.items():
                for k in ks:
                    results[mode, k] = evaluate(rag, golden, top_k=k, label=f"{mode}@{k}", search_type=st)
                lat[mode] = latencies(rag, queries, st, k_hi)
            info = rag.get_stats()
            sp, rt = rag.config.splitter, rag.config.retriever
        rag.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    files = stats.get("processed", stats.get("files_processed", "?"))
    common.print_table("Setup", [
        ("golden set", str(args.golden.relative_to(REPO) if args.golden.is_relative_to(REPO) else args.golden)),
        ("queries", f"{len(answerable)} answerable + {len(queries) - len(answerable)} unanswerable "
                    "(not in retrieval scores)"),
        ("documents / chunks", f"{files} / {info.get('total_documents', '?')}"),
        ("config", f"config.yaml.example: {sp.strategy} {sp.chunk_size}/{sp.chunk_overlap}, "
                   f"{rag.config.embeddings.provider} all-MiniLM-L6-v2, hybrid {rt.fusion} "
                   f"{rt.dense_prefetch or rt.fetch_k}/{rt.sparse_prefetch or rt.fetch_k} per branch"),
        ("ingest wall s", ingest_s),
        ("ragwire", common.code_version()),
        ("load average", common.load_average()),
    ])

    def m(mode: str, name: str, k: int) -> float:
        return float(results[mode, k].metrics[name])

    # Side-by-side headline table.
    head = ["mode", f"nDCG@{k_hi}", f"recall@{k_lo}", f"MRR@{k_hi}", f"hit@{k_lo}", "p50 ms", "p95 ms"]
    rows = []
    summary_modes: dict[str, Any] = {}
    for mode in MODES:
        p50 = common.percentile(lat[mode], 50) * 1000
        p95 = common.percentile(lat[mode], 95) * 1000
        vals = [m(mode, "ndcg", k_hi), m(mode, "recall", k_lo), m(mode, "mrr", k_hi), m(mode, "hit_rate", k_lo)]
        rows.append([mode] + [f"{v:.3f}" for v in vals] + [f"{p50:.1f}", f"{p95:.1f}"])
        summary_modes[mode] = {**{f"{n}@{k}": round(m(mode, n, k), 4) for k in ks for n in METRICS},
                               "p50_ms": round(p50, 2), "p95_ms": round(p95, 2)}
    print(f"\nRetrieval quality, {len(answerable)} answerable queries, chunks scored by file "
          f"(latency: rag.retrieve top {k_hi} over all {len(queries)} queries, store held open)")
    print_grid(head, rows)

    print("\nAll metrics (precision: share of the top-k chunks from an expected file)")
    print_grid(["mode@k", "nDCG", "recall", "MRR", "hit", "precision"],
               [[f"{mode}@{k}"] + [f"{m(mode, n, k):.3f}" for n in METRICS] for mode in MODES for k in ks])

    # By kind of question.
    kinds = {e.query: kind_of(e.query, list(e.expected)) for e in answerable}
    kind_names = ["prose", "identifier", "multi-file"]
    head = ["mode"] + [f"{n} (n={sum(1 for v in kinds.values() if v == n)})" for n in kind_names]
    per_mode = {mode: {q.query: q for q in results[mode, k_hi].per_query if q.answerable} for mode in MODES}
    rows = []
    for mode in MODES:
        row = [mode]
        for n in kind_names:
            qs = [per_mode[mode][q] for q, kd in kinds.items() if kd == n]
            row.append(f"{sum(q.metrics['ndcg'] for q in qs) / len(qs):.3f}" if qs else "-")
        rows.append(row)
    print(f"\nnDCG@{k_hi} by kind of question (identifier: names a code, SKU or version; "
          "multi-file: answer in 2+ files; prose: the rest)")
    print_grid(head, rows)

    # Misses at k_lo, and the hardest queries.
    missed = {mode: [q.query for q in results[mode, k_lo].per_query if q.answerable and not q.metrics["hit_rate"]]
              for mode in MODES}
    everywhere = [q for q in kinds if all(q in missed[mode] for mode in MODES)]
    print(f"\nNo expected file in the top {k_lo}: " + ", ".join(f"{mode} {len(v)}" for mode, v in missed.items())
          + f"; in every mode {len(everywhere)}")
    for mode, qs in missed.items():
        for q in qs:
            print(f"  {mode:8} {q}")
    hardest = sorted(kinds, key=lambda q: sum(per_mode[mode][q].metrics["ndcg"] for mode in MODES))[:args.hardest]
    print(f"\nHardest {len(hardest)} by nDCG@{k_hi} summed over the modes: rank of the first correct chunk "
          f"({' / '.join(MODES)}; - none in the top {k_hi})")
    for q in hardest:
        ranks = " / ".join(str(first_rank(per_mode[mode][q]) or "-") for mode in MODES)
        print(f"  {ranks:>10}  {q}")

    common.print_summary({
        "bench": "examples_eval",
        "golden": args.golden.name,
        "queries": len(answerable),
        "unanswerable": len(queries) - len(answerable),
        "chunks": info.get("total_documents"),
        "top_k": ks,
        "modes": summary_modes,
        "missed_at_k_lo": {mode: len(v) for mode, v in missed.items()},
        "missed_all_modes": len(everywhere),
        "ingest_s": round(ingest_s, 2),
        "code": common.code_version(),
        "load_average": common.load_average(),
    })


def print_grid(head: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]

    def line(r: list[str]) -> str:
        return "  " + "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                                for i, (c, w) in enumerate(zip(r, widths)))

    print(line(head))
    for r in rows:
        print(line(r))


if __name__ == "__main__":
    main()
