"""BEIR SciFact through ragwire's own pipeline: nDCG@10, recall@100 and MRR@10 per search mode.

    python bench/scifact.py                         # config.yaml.example's defaults
    python bench/scifact.py --set retriever.fusion=dbsf --set retriever.rrf_k=20

The 5,183 abstracts are ingested (one ``<id>.txt`` each) with ``config.yaml.example`` as
shipped, its store moved to ``--store`` (kept between runs: an unchanged corpus is
skipped by hash, so only the first run embeds).  Changing a setting that alters the
stored vectors (chunking, BM25) needs ``--rebuild``.

Each of the 300 test queries runs through ``rag.retrieve`` in dense (similarity),
keyword and hybrid mode.  ragwire returns chunks; BEIR scores documents, so chunks are
collapsed to their document in rank order (the best chunk stands for its document,
as in BEIR's max-passage evaluation) before the metric functions of ``ragwire.eval``
score them.  ``--chunks`` sets how many chunks are fetched for the top 10 documents;
recall@100 uses a second, deeper pass.  Latency is one ``retrieve(top_k=10)`` per
query with the store held open.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

REPO = common.BENCH_DIR.parent
MODES = {"dense": "similarity", "keyword": "keyword", "hybrid": "hybrid"}
# Published nDCG@10 on SciFact for the same small model and for BM25 (see ENVIRONMENT.md).
PUBLISHED = {
    "dense": "0.645 (all-MiniLM-L6-v2, BEIR/MTEB)",
    "keyword": "0.665 BEIR / 0.679 Anserini / 0.687 bm25s",
    "hybrid": "~0.718 (Qdrant's dense+BM25 RRF article)",
}


def load_qrels(beir: Path) -> dict[str, set[str]]:
    rel: dict[str, set[str]] = {}
    for line in (beir / "qrels.tsv").read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and parts[0] != "query-id" and int(parts[2]) > 0:
            rel.setdefault(parts[0], set()).add(parts[1])
    return rel


def load_queries(beir: Path, ids: set[str]) -> dict[str, str]:
    out = {}
    for line in (beir / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            if q["_id"] in ids:
                out[q["_id"]] = q["text"]
    return out


def set_key(data: dict[str, Any], dotted: str) -> None:
    """Apply one ``--set section.key=value`` (the value parsed as YAML)."""
    import yaml

    key, _, raw = dotted.partition("=")
    if not _:
        sys.exit(f"--set {dotted}: expected section.key=value")
    *path, last = key.split(".")
    node = data
    for part in path:
        node = node.setdefault(part, {})
    node[last] = yaml.safe_load(raw)


def write_config(store: Path, overrides: list[str]) -> Path:
    import yaml

    data = yaml.safe_load((REPO / "config.yaml.example").read_text(encoding="utf-8"))
    data["vectorstore"]["path"] = str(store.resolve())  # the config lives in a temp folder
    data["vectorstore"]["collection_name"] = "scifact"
    data.setdefault("logging", {})["level"] = "WARNING"
    for item in overrides:
        set_key(data, item)
    path = Path(tempfile.mkdtemp(prefix="scifact-config-")) / "config.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def documents(docs: list[Any], n: int) -> list[str]:
    """The first ``n`` distinct documents (file stems) in chunk rank order."""
    out: list[str] = []
    for doc in docs:
        stem = Path(doc.metadata.get("source", "")).stem
        if stem not in out:
            out.append(stem)
            if len(out) == n:
                break
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--beir", type=Path, default=common.DEFAULT_BEIR)
    ap.add_argument("--data", type=Path, default=None, help="folder of <id>.txt files (default: generated)")
    ap.add_argument("--store", type=Path, default=common.OUT_DIR / "scifact-store")
    ap.add_argument("--rebuild", action="store_true", help="start from an empty store")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="SECTION.KEY=VALUE",
                    help="change one config value (repeatable)")
    ap.add_argument("--chunks", type=int, default=30, help="chunks fetched for the top 10 documents")
    ap.add_argument("--deep-chunks", type=int, default=300, help="chunks fetched for recall@100")
    ap.add_argument("--modes", default="dense,keyword,hybrid")
    args = ap.parse_args()
    common.go_offline()

    from ragwire import RAGWire
    from ragwire.eval import ndcg_at_k, recall_at_k, reciprocal_rank

    files = common.ensure_files(args.data, args.beir)
    qrels = load_qrels(args.beir)
    queries = load_queries(args.beir, set(qrels))
    if args.rebuild and args.store.exists():
        import shutil

        shutil.rmtree(args.store)
    config = write_config(args.store, args.overrides)
    rag = RAGWire(str(config))
    t0 = time.perf_counter()
    stats = rag.ingest_directory(str(files))
    ingest_s = time.perf_counter() - t0
    total = rag.get_stats()

    modes = [m for m in args.modes.split(",") if m]
    rows: dict[str, dict[str, float]] = {}
    with rag:
        for mode in modes:
            search_type = MODES[mode]
            ndcg, mrr, recall, lat = [], [], [], []
            for qid, text in queries.items():
                expected = qrels[qid]
                top = documents(rag.retrieve(text, top_k=args.chunks, rerank=False, search_type=search_type), 10)
                deep = documents(rag.retrieve(text, top_k=args.deep_chunks, rerank=False,
                                              search_type=search_type), 100)
                ndcg.append(ndcg_at_k(top, expected, 10))
                mrr.append(reciprocal_rank(top, expected, 10))
                recall.append(recall_at_k(deep, expected, 100))
            for text in queries.values():
                start = time.perf_counter()
                rag.retrieve(text, top_k=10, rerank=False, search_type=search_type)
                lat.append((time.perf_counter() - start) * 1000)
            n = len(queries)
            rows[mode] = {
                "ndcg@10": round(sum(ndcg) / n, 4),
                "recall@100": round(sum(recall) / n, 4),
                "mrr@10": round(sum(mrr) / n, 4),
                "p50_ms": round(common.percentile(lat, 50), 2),
                "p95_ms": round(common.percentile(lat, 95), 2),
            }

    r = rag.config.retriever
    setup = [
        ("corpus / queries", f"{total['sources']} documents, {total['total_documents']} chunks / {len(queries)} queries"),
        ("ingest", f"{stats.get('processed', 0)} processed, {stats.get('skipped', 0)} skipped in {ingest_s:.1f} s"),
        ("splitter", f"{rag.config.splitter.strategy} {rag.config.splitter.chunk_size}/{rag.config.splitter.chunk_overlap}"),
        ("embeddings", f"{rag.config.embeddings.provider} {rag.config.embeddings.model_name}"),
        ("hybrid", f"{r.fusion} k={r.rrf_k} prefetch dense {r.dense_prefetch or r.fetch_k} / sparse "
                   f"{r.sparse_prefetch or r.fetch_k} weights {r.dense_weight}/{r.sparse_weight}"),
        ("overrides", " ".join(args.overrides) or "none"),
        ("code", common.code_version()),
        ("load average", f"{common.load_average():.2f}"),
    ]
    common.print_table("Setup", setup)
    print("\nSciFact test (300 queries), documents ranked by their best chunk")
    head = f"  {'mode':8} {'nDCG@10':>8} {'recall@100':>11} {'MRR@10':>7} {'p50 ms':>7} {'p95 ms':>7}  published nDCG@10"
    print(head)
    for mode, row in rows.items():
        print(f"  {mode:8} {row['ndcg@10']:8.3f} {row['recall@100']:11.3f} {row['mrr@10']:7.3f} "
              f"{row['p50_ms']:7.1f} {row['p95_ms']:7.1f}  {PUBLISHED[mode]}")
    common.print_summary({"bench": "scifact", "modes": rows, "overrides": args.overrides,
                          "chunks": total["total_documents"], "ingest_s": round(ingest_s, 1),
                          "code": common.code_version(), "load_average": common.load_average()})


if __name__ == "__main__":
    main()
