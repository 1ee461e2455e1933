"""What access control costs a search (issue 39): retrieve latency with and without a principal's
mandatory filter, at 10k and 100k chunks, on the embedded engine (Qdrant Edge).

The data is bench/store_scale.py's (384-d vectors around topic centroids, BM25 vectors of
Zipf-distributed text, ragwire's payload layout, ten chunks per source), each source
labelled ``public`` (10 %), ``hr`` (45 %) or ``finance`` (45 %).  Searches go through
ragwire's store layer (``Collection.search``), where the filter is applied, as every read of
a principal is: unrestricted, then as three principals (no groups: 10 % of the chunks
readable; hr: 55 %; hr+finance: all of them, through the filter), dense and hybrid, the
orders interleaved so that load drifts hit every variant alike.  Each hit a principal
gets is checked readable by it.

    nice -n 10 python bench/access_bench.py                 # 10k and 100k
    nice -n 10 python bench/access_bench.py --sizes 10000   # 10k only (about a minute)
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
from common import code_version, load_average, percentile  # noqa: E402
from store_scale import DIM, MODEL, PER_SOURCE, make_data, points, queries  # noqa: E402

SHARES = (("public", 0.10), ("hr", 0.45), ("finance", 0.45))
PRINCIPALS = {"nobody": [], "hr": ["hr"], "hr+finance": ["hr", "finance"]}


def label_of(source_index: int) -> str:
    """The label of a source: a fixed share of sources each, spread evenly through the ids."""
    at = (source_index * 0.6180339887) % 1.0  # golden-ratio spread: shares hold at every size
    for label, share in SHARES:
        if at < share:
            return label
        at -= share
    return SHARES[-1][0]


def labelled_points(data: dict[str, Any], start: int, stop: int) -> list[Any]:
    from ragwire.store.filters import CI_KEY, META_KEY

    out = points(data, start, stop)
    for offset, point in enumerate(out):
        label = [label_of((start + offset) // PER_SOURCE)]
        point.payload[META_KEY]["access"] = label
        point.payload[CI_KEY]["access"] = label
    return out


def engine_of(coll: Any) -> Any:
    return getattr(coll, "_engine", None) or coll.engine


def run_size(n: int, nq: int, rounds: int, folder: Path) -> dict[str, Any]:
    from ragwire.access import Principal, acting_as
    from ragwire.store import Collection, EdgeEngine

    t0 = time.perf_counter()
    data = make_data(n)
    qs = queries(data, nq)
    out: dict[str, Any] = {"n": n, "data_gen_s": round(time.perf_counter() - t0, 1)}
    coll = Collection(EdgeEngine(folder, "access"), "access")
    with coll.opened():
        coll.ensure(embedding_model=MODEL, dimension=DIM, sparse=True)
        coll.ensure_indexes(labelled_points(data, 0, 1)[0].payload["metadata"])
        t = time.perf_counter()
        for s in range(0, n, 256):
            engine_of(coll).upsert(labelled_points(data, s, min(s + 256, n)))
        engine_of(coll).flush()
        engine_of(coll).optimize()
        out["load_s"] = round(time.perf_counter() - t, 1)
        principals = {name: Principal.of(name, groups) for name, groups in PRINCIPALS.items()}
        readable = {name: sum(p.can_read([label_of(i // PER_SOURCE)]) for i in range(n)) / n
                    for name, p in principals.items()}
        out["readable_share"] = {k: round(v, 3) for k, v in readable.items()}
        variants = [None, *principals]
        times: dict[str, list[float]] = {}
        for kind in ("dense", "hybrid"):
            for _ in range(2):  # warm every variant's path once
                for name in variants:
                    with acting_as(principals.get(name or "")):
                        coll.search(dense=qs[0][0], sparse=qs[0][1] if kind == "hybrid" else None, limit=10)
            for r in range(rounds):
                order = variants if r % 2 == 0 else variants[::-1]
                for dense, sparse in qs:
                    for name in order:
                        principal = principals.get(name or "")
                        with acting_as(principal):
                            t = time.perf_counter()
                            hits = coll.search(dense=dense, sparse=sparse if kind == "hybrid" else None, limit=10)
                            took = (time.perf_counter() - t) * 1000
                        times.setdefault(f"{kind} {name or 'unrestricted'}", []).append(took)
                        if principal is not None:
                            assert all(principal.can_read(h.payload["metadata"]["access"]) for h in hits), name
                            assert len(hits) == 10, (name, len(hits))
        for key, values in times.items():
            out[key] = {"p50_ms": round(percentile(values, 50), 2), "p95_ms": round(percentile(values, 95), 2),
                        "mean_ms": round(sum(values) / len(values), 2)}
        for kind in ("dense", "hybrid"):
            base = out[f"{kind} unrestricted"]["mean_ms"]
            out[f"{kind} overhead"] = {name: f"{100 * (out[f'{kind} {name}']['mean_ms'] / base - 1):+.1f} %"
                                       for name in principals}
    coll.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=2, help="passes over the queries per variant")
    args = ap.parse_args()
    results = []
    for n in args.sizes:
        with tempfile.TemporaryDirectory(prefix="access-bench-") as tmp:
            started = load_average()
            result = run_size(n, args.queries, args.rounds, Path(tmp))
            result["load_average"] = [started, load_average()]
            results.append(result)
            print(json.dumps(result, indent=1), flush=True)
    print(json.dumps({"code": code_version(), "results": results}))


if __name__ == "__main__":
    main()
