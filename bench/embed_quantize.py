"""The int8 variant (``embeddings.quantize: int8``) against today's full-precision ONNX default on SciFact.

    python bench/embed_quantize.py                  # 1,500 abstracts (every judged one + the first others)
    python bench/embed_quantize.py --docs 0         # the whole 5,183-abstract corpus

Both models are built through ``ragwire.get_embedding`` (the int8 variant is made and
checked first if it is not cached) and embed the same abstracts (title + text, one
vector each, cut at the model's 256-token window) in the same run, alternating in
rounds so a change of machine load hits both.  Reported: embedding throughput of each
and their ratio (embedding is what an ingest spends its time on), the cosine between
the two vectors of each abstract, and dense nDCG@10 / recall@100 of the 300 test queries
with exact (brute-force) search over each model's vectors, and the delta.

A subset keeps every abstract judged relevant to a test query, so every query can
still find its answers; the distractors are fewer than in the full corpus, so the
absolute nDCG is higher than the full corpus's, while the delta compares like with like.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from scifact import load_qrels, load_queries  # noqa: E402


def corpus(beir: Path, judged: set[str], limit: int) -> tuple[list[str], list[str]]:
    ids, texts = [], []
    for line in (beir / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        doc = json.loads(line)
        ids.append(doc["_id"])
        texts.append(f"{doc.get('title', '')}\n{doc.get('text', '')}".strip())
    if limit <= 0 or limit >= len(ids):
        return ids, texts
    keep = [i for i, d in enumerate(ids) if d in judged]
    keep += [i for i, d in enumerate(ids) if d not in judged][: max(0, limit - len(keep))]
    keep.sort()
    return [ids[i] for i in keep], [texts[i] for i in keep]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--beir", type=Path, default=common.DEFAULT_BEIR)
    ap.add_argument("--docs", type=int, default=1500, help="abstracts to embed (0: all 5,183)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds the corpus is split into")
    args = ap.parse_args()
    common.go_offline()

    import numpy as np

    from ragwire import get_embedding
    from ragwire.eval import ndcg_at_k, recall_at_k

    qrels = load_qrels(args.beir)
    queries = load_queries(args.beir, set(qrels))
    judged = set().union(*qrels.values())
    ids, texts = corpus(args.beir, judged, args.docs)

    models = {
        "fp32": get_embedding({"provider": "onnx"}),
        "int8": get_embedding({"provider": "onnx", "quantize": "int8"}),
    }
    for emb in models.values():
        emb.embed_documents(texts[:16])  # load and warm up outside the timing
    vectors: dict[str, list[list[float]]] = {name: [] for name in models}
    seconds = dict.fromkeys(models, 0.0)
    step = -(-len(texts) // args.rounds)
    for start in range(0, len(texts), step):
        part = texts[start:start + step]
        for name, emb in models.items():
            t0 = time.perf_counter()
            vectors[name] += emb.embed_documents(part)
            seconds[name] += time.perf_counter() - t0

    mats = {name: np.asarray(v, dtype=np.float32) for name, v in vectors.items()}
    cos = (mats["fp32"] * mats["int8"]).sum(1)
    qids = list(queries)
    rows = {}
    for name, emb in models.items():
        q = np.asarray(emb.embed_documents([queries[i] for i in qids]), dtype=np.float32)
        order = np.argsort(-(q @ mats[name].T), axis=1)[:, :100]
        ranked = [[ids[j] for j in row] for row in order]
        rows[name] = {
            "ndcg@10": float(np.mean([ndcg_at_k(r[:10], qrels[i], 10) for r, i in zip(ranked, qids, strict=True)])),
            "recall@100": float(np.mean([recall_at_k(r, qrels[i], 100) for r, i in zip(ranked, qids, strict=True)])),
            "docs_per_s": len(texts) / seconds[name],
        }
    ratio = rows["int8"]["docs_per_s"] / rows["fp32"]["docs_per_s"]
    delta = rows["int8"]["ndcg@10"] - rows["fp32"]["ndcg@10"]
    common.print_table("Setup", [
        ("corpus", f"{len(texts)} SciFact abstracts ({'full corpus' if len(texts) >= 5183 else 'subset: all judged + first others'})"),
        ("queries", f"{len(qids)} test queries, dense exact search"),
        ("machine", common.machine()),
        ("code", common.code_version()),
        ("load average", f"{common.load_average():.2f}"),
    ])
    print(f"\n  {'model':6} {'docs/s':>7} {'nDCG@10':>8} {'recall@100':>11}")
    for name, row in rows.items():
        print(f"  {name:6} {row['docs_per_s']:7.1f} {row['ndcg@10']:8.4f} {row['recall@100']:11.4f}")
    print(f"\n  int8 / fp32 throughput  x{ratio:.2f}")
    print(f"  nDCG@10 delta           {delta:+.4f}")
    print(f"  cosine int8 vs fp32     min {cos.min():.4f}  p1 {np.percentile(cos, 1):.4f}  mean {cos.mean():.4f}")
    common.print_summary({"bench": "embed_quantize", "docs": len(texts), "rows": rows, "ratio": round(ratio, 3),
                          "ndcg_delta": round(delta, 4), "cos_min": round(float(cos.min()), 4),
                          "cos_mean": round(float(cos.mean()), 4), "load_average": common.load_average()})


if __name__ == "__main__":
    main()
