"""Where one machine ends: the embedded engine (Qdrant Edge) at 10k, 100k (and 1M) points.

Synthetic data shaped like ragwire's: 384-d unit vectors drawn around topic centroids
(real embeddings cluster; uniform random vectors in 384-d are a worst case no corpus
has), BM25 sparse vectors of texts drawn from a Zipf-distributed vocabulary (encoded by
Qdrant's own BM25, as ingest does), and ragwire's payload layout (text, metadata, its
lower-cased shadow, state keys) with ten chunks per source.  Everything goes through
ragwire's store layer (``Collection`` over ``EdgeEngine``), so searches pay the
commit-visibility filter as real ones do.

Each size runs in a child process of its own (a fresh peak RSS); the store is then
reopened in another fresh process, which times the open and its first search and
reports the peak RSS of a process that only serves searches.

    nice -n 10 python bench/store_scale.py                       # 10k and 100k (~6 min on 2 busy cores)
    nice -n 10 python bench/store_scale.py --sizes 10000 --sweep # + upsert batch sizes / streams
    nice -n 10 python bench/store_scale.py --local-mode 10000    # + qdrant-client local mode (a stand-in)

qdrant-client's local mode is a pure-Python brute-force emulation of the server API: its
figures say nothing about a Qdrant server and are printed apart, labelled as such.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import code_version, load_average, peak_rss_mib, percentile, print_summary  # noqa: E402

DIM = 384
PER_SOURCE = 10
FILE_TYPES = ["pdf", "docx", "md", "txt", "html", "pptx", "xlsx", "csv", "json", "rst"]
MODEL = "bench:synthetic-384"


# -- data -----------------------------------------------------------------------

def vocabulary(size: int, rng: Any) -> list[str]:
    """Pronounceable pseudo-words (BM25 stems and drops stopwords; these survive as themselves)."""
    cons, vows = "bcdfghjklmnprstvwz", "aeiou"
    words: set[str] = set()
    while len(words) < size:
        n = int(rng.integers(2, 5))
        words.add("".join(cons[rng.integers(len(cons))] + vows[rng.integers(len(vows))] for _ in range(n)))
    return sorted(words)


def make_data(n: int, seed: int = 7) -> dict[str, Any]:
    import numpy as np
    import qdrant_edge

    rng = np.random.default_rng(seed)
    topics = max(20, n // 500)
    centroids = rng.standard_normal((topics, DIM)).astype(np.float32)
    assign = rng.integers(topics, size=n)
    dense = centroids[assign] + 1.2 * rng.standard_normal((n, DIM)).astype(np.float32)
    dense /= np.linalg.norm(dense, axis=1, keepdims=True)
    vocab = vocabulary(30_000, rng)
    # Zipf ranks (s = 1.1), capped at the vocabulary: a few very common terms, a long tail.
    lengths = rng.integers(40, 120, size=n)
    ranks = np.minimum(rng.zipf(1.1, size=int(lengths.sum())), len(vocab)) - 1
    bm25 = qdrant_edge.Bm25(qdrant_edge.Bm25Config(language="english"))
    texts, sparse, at = [], [], 0
    for length in lengths:
        words = [vocab[r] for r in ranks[at:at + length]]
        at += length
        text = " ".join(words)
        texts.append(text)
        vec = bm25.embed_document(text)
        sparse.append((list(vec.indices), list(vec.values)))
    return {"dense": dense, "texts": texts, "sparse": sparse, "bm25": bm25, "rng": rng, "vocab": vocab}


def points(data: dict[str, Any], start: int, stop: int) -> list[Any]:
    from ragwire.store import Point, chunk_point_id
    from ragwire.store.filters import CI_KEY, META_KEY, RUN_KEY, STATE_COMPLETE, STATE_KEY, TEXT_KEY

    out = []
    for i in range(start, stop):
        src = i // PER_SOURCE
        meta = {"source": f"/corpus/doc-{src:07d}.{FILE_TYPES[src % 10]}", "file_name": f"doc-{src:07d}",
                "file_type": FILE_TYPES[src % 10], "file_hash": f"h{src}", "chunk_index": i % PER_SOURCE,
                "total_chunks": PER_SOURCE, "content_hash": f"c{i}"}
        out.append(Point(
            id=chunk_point_id(meta["source"], meta["file_hash"], i % PER_SOURCE),
            dense=data["dense"][i].tolist(), sparse=data["sparse"][i],
            payload={TEXT_KEY: data["texts"][i][:600], META_KEY: meta,
                     CI_KEY: {k: v.lower() for k, v in meta.items() if isinstance(v, str)},
                     STATE_KEY: STATE_COMPLETE, RUN_KEY: "bench"},
        ))
    return out


def queries(data: dict[str, Any], count: int) -> list[tuple[list[float], Any]]:
    """A stored point's vector, perturbed, and four words of its text (a realistic hit exists)."""
    import numpy as np

    rng = np.random.default_rng(11)
    n = len(data["texts"])
    out = []
    for i in rng.integers(n, size=count):
        q = data["dense"][i] + 0.6 * rng.standard_normal(DIM).astype(np.float32) / np.sqrt(DIM)
        q /= np.linalg.norm(q)
        words = data["texts"][i].split()
        picked = " ".join(words[j] for j in rng.integers(len(words), size=4))
        vec = data["bm25"].embed_query(picked)
        out.append((q.tolist(), (list(vec.indices), list(vec.values))))
    return out


# -- one size, in a child ---------------------------------------------------------

def open_collection(engine_name: str, folder: Path) -> Any:
    from ragwire.store import Collection, EdgeEngine, ServerEngine

    engine = EdgeEngine(folder, "scale") if engine_name == "edge" else ServerEngine("scale", path=folder / "scale")
    return Collection(engine, "scale")


def load(coll: Any, data: dict[str, Any], n: int, batch: int, streams: int) -> float:
    """Upsert every point in batches (``streams`` threads); returns seconds."""
    coll.ensure(embedding_model=MODEL, dimension=DIM, sparse=True)
    coll.ensure_indexes(points(data, 0, 1)[0].payload["metadata"])
    ranges = [(s, min(s + batch, n)) for s in range(0, n, batch)]
    started = time.perf_counter()
    if streams == 1:
        for s, e in ranges:
            coll._engine.upsert(points(data, s, e))
    else:
        def worker(mine: list[tuple[int, int]]) -> None:
            for s, e in mine:
                coll._engine.upsert(points(data, s, e))
        threads = [threading.Thread(target=worker, args=(ranges[k::streams],)) for k in range(streams)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    coll._engine.flush()
    return time.perf_counter() - started


def latencies(coll: Any, qs: list[tuple[list[float], Any]], kind: str, flt: Any) -> list[float]:
    out = []
    for dense, sparse in qs:
        t = time.perf_counter()
        if kind == "dense":
            coll.search(dense=dense, flt=flt, limit=10)
        else:
            coll.search(dense=dense, sparse=sparse, flt=flt, limit=10)
        out.append((time.perf_counter() - t) * 1000)
    return out


def recall(coll: Any, qs: list[tuple[list[float], Any]], flt: Any) -> float:
    from ragwire.store import DenseParams

    hit = total = 0
    for dense, _ in qs:
        exact = {r.id for r in coll._engine.search(dense=dense, flt=coll.reader_filter(flt), limit=10,
                                                   dense_params=DenseParams(exact=True))}
        approx = {r.id for r in coll._engine.search(dense=dense, flt=coll.reader_filter(flt), limit=10)}
        hit += len(exact & approx)
        total += len(exact)
    return hit / total if total else 1.0


def run_size(n: int, engine_name: str, batch: int, streams: int, nq: int, folder: Path) -> dict:
    from ragwire.store import build_filter
    from ragwire.store.space import occupied_bytes

    t = time.perf_counter()
    data = make_data(n)
    qs = queries(data, nq)
    gen_s = time.perf_counter() - t
    rss_data = peak_rss_mib()
    coll = open_collection(engine_name, folder)
    out: dict[str, Any] = {"n": n, "engine": engine_name, "batch": batch, "streams": streams,
                           "data_gen_s": round(gen_s, 1), "rss_after_data_mib": round(rss_data)}
    with coll.opened():
        load_s = load(coll, data, n, batch, streams)
        out["upsert_s"] = round(load_s, 2)
        out["upsert_pts_s"] = round(n / load_s)
        t = time.perf_counter()
        built = coll._engine.optimize()
        out["optimize_s"] = round(time.perf_counter() - t, 2) if built else 0.0
        assert coll.count() == n, (coll.count(), n)
        flt = build_filter({"file_type": "pdf"})
        for kind in ("dense", "hybrid"):
            for label, f in (("", None), ("_filter", flt)):
                lat = latencies(coll, qs, kind, f)
                out[f"{kind}{label}_p50_ms"] = round(percentile(lat, 50), 2)
                out[f"{kind}{label}_p95_ms"] = round(percentile(lat, 95), 2)
        out["recall10"] = round(recall(coll, qs[:100], None), 4)
        out["recall10_filter"] = round(recall(coll, qs[:100], flt), 4)
    coll.close()
    out["peak_rss_mib"] = round(peak_rss_mib())
    out["disk_mib"] = round(occupied_bytes(folder) / 2**20, 1)
    return out


def reopen(engine_name: str, folder: Path, nq: int) -> dict:
    """In a fresh process: open the store, the first search, then a few: what a query process costs."""
    import numpy as np

    rng = np.random.default_rng(3)
    vecs = rng.standard_normal((nq, DIM))
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    coll = open_collection(engine_name, folder)
    t = time.perf_counter()
    with coll.opened():
        coll._engine.open()
        open_s = time.perf_counter() - t
        t = time.perf_counter()
        coll.search(dense=vecs[0].tolist(), limit=10)
        first_ms = (time.perf_counter() - t) * 1000
        for v in vecs[1:]:
            coll.search(dense=v.tolist(), limit=10)
    coll.close()
    return {"open_s": round(open_s, 3), "first_search_ms": round(first_ms, 1),
            "serving_rss_mib": round(peak_rss_mib())}


def run_migrate(n: int, folder: Path) -> dict:
    """Copy an n-point Edge store to fresh Edge stores (and local mode) at several batch sizes, ABBA order."""
    from ragwire.store.migrate import migrate_collection

    data = make_data(n)
    source = open_collection("edge", folder / "source")
    with source.opened():
        load(source, data, n, 256, 1)
        source._engine.optimize()
    runs: dict[str, list[dict]] = {}
    order = [("edge", 64), ("edge", 256), ("edge", 1024), ("edge", 1024), ("edge", 256), ("edge", 64),
             ("qdrant", 256)]
    for k, (engine, batch) in enumerate(order):
        target = open_collection(engine, folder / f"target-{k}")
        stats = migrate_collection(source, target, batch_size=batch, verify_queries=0)
        target.close()
        assert stats.ok and stats.points_copied == n, stats
        runs.setdefault(f"{engine}-{batch}", []).append(
            {"copy_s": stats.copy_seconds, "total_s": stats.seconds})
        shutil.rmtree(folder / f"target-{k}", ignore_errors=True)
    out = {}
    for key, rs in runs.items():
        copy = sum(r["copy_s"] for r in rs) / len(rs)
        out[key] = {"copy_pts_s": round(n / copy), "copy_s": round(copy, 2),
                    "total_s": round(sum(r["total_s"] for r in rs) / len(rs), 2), "runs": len(rs)}
    return {"n": n, "migrate": out}


def child(args: argparse.Namespace) -> None:
    folder = Path(args.folder)
    if args.migrate_one:
        result = run_migrate(args.migrate_one, folder)
    elif args.reopen:
        result = reopen(args.engine, folder, 50)
    else:
        result = run_size(args.one, args.engine, args.batch, args.streams, args.queries, folder)
    print("RESULT " + json.dumps(result), flush=True)


def spawn(argv: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]) + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, __file__, *argv], capture_output=True, text=True, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise SystemExit(f"child {argv} failed:\n{proc.stderr[-3000:]}")


def measure(n: int, engine: str, batch: int, streams: int, nq: int, reopen_too: bool = True) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="ragwire-scale-"))
    try:
        common = ["--engine", engine, "--folder", str(folder)]
        result = spawn(["--one", str(n), "--batch", str(batch), "--streams", str(streams),
                        "--queries", str(nq), *common])
        if reopen_too:
            result.update(spawn(["--reopen", *common]))
        return result
    finally:
        shutil.rmtree(folder, ignore_errors=True)


COLUMNS = [("upsert_pts_s", "upsert pts/s"), ("optimize_s", "index build s"),
           ("dense_p50_ms", "dense p50 ms"), ("dense_p95_ms", "dense p95 ms"),
           ("dense_filter_p50_ms", "dense+filter p50"), ("dense_filter_p95_ms", "dense+filter p95"),
           ("hybrid_p50_ms", "hybrid p50 ms"), ("hybrid_p95_ms", "hybrid p95 ms"),
           ("hybrid_filter_p50_ms", "hybrid+filter p50"), ("hybrid_filter_p95_ms", "hybrid+filter p95"),
           ("recall10", "recall@10"), ("recall10_filter", "recall@10 filter"),
           ("open_s", "open s"), ("first_search_ms", "first search ms"),
           ("peak_rss_mib", "peak RSS MiB (load)"), ("serving_rss_mib", "RSS MiB (serving)"),
           ("disk_mib", "disk MiB")]


def table(results: list[dict], title: str) -> None:
    print(f"\n{title}")
    head = "| " + " | ".join(["metric"] + [f"{r['n']:,}" for r in results]) + " |"
    print(head)
    print("|" + "---|" * (len(results) + 1))
    for key, label in COLUMNS:
        if any(key in r for r in results):
            print("| " + " | ".join([label] + [str(r.get(key, "–")) for r in results]) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--batch", type=int, default=256, help="upsert batch size for the size table")
    ap.add_argument("--sweep", action="store_true",
                    help="also time upserts at batch 64/256/1024 and 1 vs 2 streams, at the first size")
    ap.add_argument("--local-mode", type=int, default=0, metavar="N",
                    help="also run qdrant-client local mode at N points (a brute-force stand-in, not a server)")
    ap.add_argument("--migrate", type=int, default=0, metavar="N",
                    help="also time `migrate` of an N-point store to Edge at batch 64/256/1024 (and to local mode)")
    ap.add_argument("--only-extras", action="store_true", help="skip the size table (run --sweep/--migrate/--local-mode only)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--migrate-one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--reopen", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--engine", default="edge", help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    ap.add_argument("--streams", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one or args.reopen or args.migrate_one:
        child(args)
        return
    summary: dict[str, Any] = {"code": code_version(), "cpus": os.cpu_count(), "load_start": load_average()}
    if not args.only_extras:
        results = [measure(n, "edge", args.batch, 1, args.queries) for n in args.sizes]
        summary["edge"] = results
        table(results, f"Qdrant Edge (embedded), top_k 10, batch {args.batch}, {args.queries} queries")
    if args.sweep:
        n = args.sizes[0]
        # ABBA order, each configuration twice: load on shared cores drifts within a run.
        configs = [(64, 1), (256, 1), (1024, 1), (256, 2)]
        runs: dict[tuple[int, int], list[dict]] = {}
        for batch, streams in configs + configs[::-1]:
            r = measure(n, "edge", batch, streams, 20, reopen_too=False)
            runs.setdefault((batch, streams), []).append(r)
        sweep = [{"batch": b, "streams": st, "upsert_pts_s": round(sum(r["upsert_pts_s"] for r in rs) / len(rs)),
                  "upsert_pts_s_runs": [r["upsert_pts_s"] for r in rs]} for (b, st), rs in runs.items()]
        summary["edge_sweep"] = sweep
        print(f"\nEdge upserts at {n:,} points (mean of 2 runs, ABBA order)")
        for r in sweep:
            print(f"  batch {r['batch']:>5}, {r['streams']} stream(s): {r['upsert_pts_s']:>7} pts/s "
                  f"(runs {r['upsert_pts_s_runs']})")
    if args.migrate:
        folder = Path(tempfile.mkdtemp(prefix="ragwire-migrate-"))
        try:
            mig = spawn(["--migrate-one", str(args.migrate), "--folder", str(folder)])
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        summary["migrate"] = mig
        print(f"\nmigrate of {args.migrate:,} points from Edge (copy only; total adds the index build)")
        for key, r in mig["migrate"].items():
            label = key if not key.startswith("qdrant") else key + " (LOCAL MODE stand-in, not a server)"
            print(f"  {label:>50}: {r['copy_pts_s']:>6} pts/s copy, {r['total_s']} s total ({r['runs']} runs)")
    if args.local_mode:
        local = []
        # One stream only: local mode is not thread-safe (two streams lost half the points here).
        for batch, streams in [(64, 1), (256, 1), (1024, 1)]:
            r = measure(args.local_mode, "qdrant", batch, streams, 50, reopen_too=batch == 256 and streams == 1)
            local.append(r)
        summary["local_mode"] = local
        print(f"\nqdrant-client LOCAL MODE at {args.local_mode:,} points: a brute-force Python stand-in, "
              "NOT Qdrant server figures")
        for r in local:
            print(f"  batch {r['batch']:>5}, {r['streams']} stream(s): {r['upsert_pts_s']:>7} pts/s; "
                  f"dense p50 {r['dense_p50_ms']} ms, hybrid p50 {r['hybrid_p50_ms']} ms")
    summary["load_end"] = load_average()
    print(f"\nload average: {summary['load_start']} at start, {summary['load_end']} at end "
          f"({summary['cpus']} CPUs)")
    print_summary(summary)


if __name__ == "__main__":
    main()
