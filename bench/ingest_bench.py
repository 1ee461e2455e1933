"""Ingest throughput: the whole pipeline vs the embedding model alone on the same chunks.

One run ingests SciFact (one .txt per abstract) into a fresh embedded store and prints
chunks/s for ``RAGWire.ingest_directory`` and for ``embed_documents`` alone on exactly the
chunk texts that were stored, their ratio (target >= 0.85), where the ingest's time went,
hybrid query latency before and after the engine's ``optimize()``, and peak memory.

With ``--provider onnx`` (the default, as in config.yaml.example) the same chunks are also
embedded by the sentence-transformers model the export was made from: the pipeline's ratio to
it (target >= 1.4: the ONNX pipeline beats the old model alone) and to the ONNX model alone
(target >= 0.9).

    python bench/ingest_bench.py --limit 300      # quick
    python bench/ingest_bench.py                  # all 5,183 documents (~5 min on 2 cores)
    python bench/ingest_bench.py --provider huggingface   # the sentence-transformers pipeline
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.go_offline()

TARGET_RATIO = 0.85          # pipeline / its own model alone, huggingface
TARGET_RATIO_ONNX = 0.9      # pipeline / ONNX model alone
TARGET_RATIO_VS_ST = 1.4     # ONNX pipeline / sentence-transformers model alone
NEVER_OPTIMIZE = 10**12


# -- timing wrappers (the ingest's own objects, with a clock around each call) --------

class Clock:
    """Seconds and calls per label; safe to update from the prepare worker threads."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def wrap(self, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                with self._lock:
                    self.seconds[label] += elapsed
                    self.calls[label] += 1
        return timed


class Timed:
    """Stands in for an embedding or sparse encoder: same methods, each call timed and its size kept."""

    def __init__(self, inner: Any, clock: Clock, label: str) -> None:
        self._inner = inner
        self.sizes: list[int] = []
        self._timed = clock.wrap(label, inner.embed_documents)
        self.embed_query = inner.embed_query

    def embed_documents(self, texts: list[str]) -> Any:
        self.sizes.append(len(texts))
        return self._timed(texts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


ENGINE_CALLS = ("upsert", "set_payload", "delete", "count", "scroll", "retrieve", "facet", "create_index",
                "indexes")


def instrument(rag: Any, clock: Clock) -> Callable[[], list[int]]:
    """Time dense embedding, BM25, store calls, file hashing and prepare (load + split).

    Returns a function that undoes the patches and returns the sizes of the embedding calls.
    """
    import ragwire.ingest.runner as runner

    rag.parts._embedding = Timed(rag.embedding, clock, "dense embed")
    rag.parts._sparse = Timed(rag.sparse_encoder, clock, "bm25 encode")
    engine = rag.collection._engine
    for name in ENGINE_CALLS:
        setattr(engine, name, clock.wrap(f"store.{name}", getattr(engine, name)))
    saved = runner.prepare_file, runner.sha256_file_from_path
    runner.prepare_file = clock.wrap("prepare (worker threads)", runner.prepare_file)
    runner.sha256_file_from_path = clock.wrap("file hash", runner.sha256_file_from_path)

    def undo() -> list[int]:
        runner.prepare_file, runner.sha256_file_from_path = saved
        sizes = rag.parts._embedding.sizes
        rag.parts._embedding = rag.parts._embedding._inner
        rag.parts._sparse = rag.parts._sparse._inner
        for name in ENGINE_CALLS:
            delattr(engine, name)
        return sizes
    return undo


# -- the stored chunks ----------------------------------------------------------

def stored_texts(rag: Any, folder: Path) -> list[str]:
    """The text of every visible chunk from files in ``folder``, in ingest order (path, chunk index)."""
    from ragwire.store.filters import META_KEY, TEXT_KEY, meta_path, visible

    rows: list[tuple[str, int, str]] = []
    with rag.collection.opened() as coll:
        offset = None
        while True:
            records, offset = coll._engine.scroll(
                visible(), limit=1024, offset=offset,
                fields=[TEXT_KEY, meta_path("source"), meta_path("chunk_index")],
            )
            for rec in records:
                meta = rec.payload[META_KEY]
                if Path(meta["source"]).parent == folder:
                    rows.append((meta["source"], int(meta["chunk_index"]), rec.payload[TEXT_KEY]))
            if offset is None:
                break
    rows.sort()
    return [text for _, _, text in rows]


def embed_only(embedding: Any, texts: list[str], sizes: list[int]) -> tuple[float, float]:
    """Wall and CPU seconds to embed ``texts`` in consecutive calls of the given sizes."""
    wall, cpu = time.perf_counter(), time.process_time()
    start = 0
    for size in sizes:
        embedding.embed_documents(texts[start:start + size])
        start += size
    return time.perf_counter() - wall, time.process_time() - cpu


def even_batches(total: int, size: int) -> list[int]:
    return [min(size, total - i) for i in range(0, total, size)]


# -- query latency ----------------------------------------------------------------

def latency(rag: Any, queries: list[str], vectors: list[tuple[Any, Any]], k: int) -> dict[str, Any]:
    """p50/p95 in ms: ``hybrid_search`` end to end (query embedding included) and the engine alone."""
    from ragwire.retrieval.search import hybrid_fusion

    coll = rag.collection
    r = rag.config.retriever
    for q in queries[:3]:  # warm-up: first calls touch cold pages
        rag.hybrid_search(q, k=k)
    e2e = [common.timed_calls(lambda q=q: rag.hybrid_search(q, k=k), 1)[0] for q in queries]
    embed = [common.timed_calls(lambda q=q: rag.embedding.embed_query(q), 1)[0] for q in queries]
    engine, ids = [], []
    for dense, sparse in vectors:
        start = time.perf_counter()
        hits = coll.search(dense=dense, sparse=sparse, limit=k, fusion=hybrid_fusion(r).at_least(k))
        engine.append(time.perf_counter() - start)
        ids.append([h.id for h in hits])
    ms = lambda xs, q: 1000 * common.percentile(xs, q)  # noqa: E731
    return {
        "e2e_p50_ms": ms(e2e, 50), "e2e_p95_ms": ms(e2e, 95), "embed_query_p50_ms": ms(embed, 50),
        "engine_p50_ms": ms(engine, 50), "engine_p95_ms": ms(engine, 95),
        "indexed_vectors": coll.indexed_vectors(), "ids": ids,
    }


# -- main ---------------------------------------------------------------------------

def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, help="use the first N documents (sorted by name); default all")
    ap.add_argument("--data", type=Path, help="folder of already generated <id>.txt files "
                    f"(default {common.DEFAULT_FILES}, generated if missing)")
    ap.add_argument("--beir", type=Path, default=common.DEFAULT_BEIR,
                    help="BEIR SciFact folder: corpus for generating files, queries for latency")
    ap.add_argument("--provider", choices=["onnx", "huggingface"], default="onnx",
                    help="embeddings.provider of the pipeline (default onnx, as in config.yaml.example)")
    ap.add_argument("--batch-size", type=int, default=64, help="ingestion.batch_size (default 64)")
    ap.add_argument("--workers", type=int, default=1, help="ingestion.workers (default 1)")
    ap.add_argument("--chunk-size", type=int, default=1000, help="splitter.chunk_size (default 1000)")
    ap.add_argument("--chunk-overlap", type=int, help="splitter.chunk_overlap (default chunk_size / 5)")
    ap.add_argument("--queries", type=int, default=50, help="SciFact queries for latency (default 50)")
    ap.add_argument("--plain", action="store_true",
                    help="no timing wrappers around the ingest's calls (no time split)")
    ap.add_argument("--replay-batches", action="store_true",
                    help="also time the model alone on the exact batch sizes the pipeline sent it")
    ap.add_argument("--interleave", type=int, default=1, metavar="K",
                    help="split the files into K folders and ingest them one after another, timing the "
                         "model alone on each folder's chunks right after it (cancels load drift); default 1")
    ap.add_argument("--profile", type=Path, help="run the ingest under cProfile and write the stats here")
    ap.add_argument("--keep", action="store_true", help="keep the temporary store and print its folder")
    args = ap.parse_args()
    if args.chunk_overlap is None:
        args.chunk_overlap = args.chunk_size // 5
    return args


def main() -> None:
    args = parse_args()
    files = common.pick_files(common.ensure_files(args.data, args.beir), args.limit)
    queries = common.load_queries(args.beir, args.queries)
    tmp = Path(tempfile.mkdtemp(prefix="ragwire-ingest-bench-"))
    k = max(1, min(args.interleave, len(files)))
    slices = [files[i * len(files) // k:(i + 1) * len(files) // k] for i in range(k)]
    folders = [common.copy_files(part, tmp / (f"docs-{i + 1}" if k > 1 else "docs"))
               for i, part in enumerate(slices)]
    config = common.write_config(
        tmp, chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap, batch_size=args.batch_size,
        workers=args.workers, optimize_after_points=NEVER_OPTIMIZE, provider=args.provider,
    )
    load_at_start = common.load_average()
    code = common.code_version()  # ragwire is imported just below, from this tree

    start = time.perf_counter()
    from ragwire import RAGWire

    rag = RAGWire(config)
    rag.parts.dimension()  # loads the model and runs its dimension probe
    model = rag.embedding
    model.embed_documents(["warm-up " + str(i) for i in range(8)])  # first forward pass is slow
    load_s = time.perf_counter() - start

    clock = Clock()
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    stats: dict[str, Any] = {"processed": 0, "failed": 0, "chunks_created": 0, "errors": []}
    pipeline_s = pipeline_cpu = model_s = model_cpu = 0.0
    texts: list[str] = []
    sizes: list[int] = []
    slice_ratios = []
    for folder in folders:
        undo = None if args.plain else instrument(rag, clock)
        if profiler is not None:
            profiler.enable()
        start, cpu_start = time.perf_counter(), time.process_time()
        part = rag.ingest_directory(folder)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        if profiler is not None:
            profiler.disable()
        sizes += undo() if undo is not None else []
        rss_after_ingest = common.peak_rss_mib()  # with --interleave, earlier baselines are in it
        for key in ("processed", "failed", "chunks_created"):
            stats[key] += part[key]
        stats["errors"] += part["errors"]
        part_texts = stored_texts(rag, folder)
        if len(part_texts) != part["chunks_created"]:
            sys.exit(f"{folder}: the store holds {len(part_texts)} chunks but the ingest reported "
                     f"{part['chunks_created']}")
        m_wall, m_cpu = embed_only(model, part_texts, even_batches(len(part_texts), args.batch_size))
        pipeline_s, pipeline_cpu, model_s, model_cpu = (
            pipeline_s + wall, pipeline_cpu + cpu, model_s + m_wall, model_cpu + m_cpu)
        slice_ratios.append(m_wall / wall)
        texts += part_texts
    if profiler is not None:
        profiler.dump_stats(args.profile)
    if stats["failed"]:
        print(f"warning: {stats['failed']} files failed: {stats['errors'][:3]}", file=sys.stderr)
    chunks = stats["chunks_created"]
    # The pipeline's batches are replayed over the whole run's chunks, so only without --interleave.
    replay_s = embed_only(model, texts, sizes)[0] if args.replay_batches and sizes and k == 1 else None
    bm25_start = time.perf_counter()
    rag.sparse_encoder.embed_documents(texts)
    bm25_s = time.perf_counter() - bm25_start
    pipeline_rate = chunks / pipeline_s
    model_rate = chunks / model_s
    ratio = pipeline_rate / model_rate
    target = TARGET_RATIO_ONNX if args.provider == "onnx" else TARGET_RATIO
    st_rate = st_ratio = None
    if args.provider == "onnx":
        # The old default: the sentence-transformers model alone, same chunks, same batches.
        from ragwire.providers import get_embedding

        st = get_embedding(common.HUGGINGFACE_EMBEDDINGS)
        st.embed_documents(["warm-up " + str(i) for i in range(8)])
        st_rate = chunks / embed_only(st, texts, even_batches(len(texts), args.batch_size))[0]
        st_ratio = pipeline_rate / st_rate

    # Query latency with the store held open (as a server would), before and after optimize().
    vectors = [(model.embed_query(q), tuple(rag.sparse_encoder.embed_query(q))) for q in queries]
    with rag:
        before = latency(rag, queries, vectors, k=10)
        start = time.perf_counter()
        with rag.collection.opened():
            rag.collection._engine.optimize()
        optimize_s = time.perf_counter() - start
        after = latency(rag, queries, vectors, k=10)
    ids_before, ids_after = before.pop("ids"), after.pop("ids")
    shared = sum(len(set(a) & set(b)) for a, b in zip(ids_before, ids_after))
    overlap = shared / max(1, sum(len(a) for a in ids_before))
    # Without `with rag:` every call opens and closes the shard (what one CLI query pays).
    cold = [common.timed_calls(lambda q=q: rag.hybrid_search(q, k=10), 1)[0] for q in queries[:10]]
    cold_p50_ms = 1000 * common.percentile(cold, 50)
    peak = common.peak_rss_mib()

    limited = f"first {len(files)} of SciFact" if args.limit else "all of SciFact"
    print(f"ragwire {code} ingest bench — {limited}; {common.machine()}")
    print(f"batch_size {args.batch_size}, workers {args.workers}, chunk_size {args.chunk_size}/"
          f"{args.chunk_overlap}, load avg at start / end {load_at_start} / {common.load_average()}")
    common.print_table("Throughput", [
        ("files (processed / failed)", f"{stats['processed']} / {stats['failed']}"),
        ("chunks", chunks),
        ("model load + warm-up s (not in pipeline)", load_s),
        ("pipeline s (ingest_directory)", pipeline_s),
        ("pipeline chunks/s", pipeline_rate),
        ("model-only s (embed_documents, same chunks)", model_s),
        ("model-only chunks/s", model_rate),
        ("ratio pipeline / model", f"{ratio:.3f} (target >= {target}: "
                                   f"{'met' if ratio >= target else 'MISSED'})"),
        *([("sentence-transformers alone chunks/s (same chunks)", st_rate),
           ("ratio onnx pipeline / sentence-transformers alone",
            f"{st_ratio:.3f} (target >= {TARGET_RATIO_VS_ST}: "
            f"{'met' if st_ratio >= TARGET_RATIO_VS_ST else 'MISSED'})")]
          if st_rate is not None and st_ratio is not None else []),
        ("CPU s pipeline / model-only (all threads)", f"{pipeline_cpu:.1f} / {model_cpu:.1f}"),
        ("ratio by CPU time (less sensitive to load)", f"{model_cpu / pipeline_cpu:.3f}"),
        *([(f"ratio per slice ({k} slices) min / median / max",
            f"{min(slice_ratios):.3f} / {statistics.median(slice_ratios):.3f} / {max(slice_ratios):.3f}")]
          if k > 1 else []),
        ("bm25 alone s (same chunks)", bm25_s),
        ("embedding calls, pipeline / model-only",
         f"{len(sizes) or '-'} / {len(even_batches(chunks, args.batch_size))}"),
        *([("model-only s on the pipeline's batch sizes", replay_s)] if replay_s is not None else []),
    ])
    split: dict[str, float] = {}
    if not args.plain:
        store_s = sum(v for k, v in clock.seconds.items() if k.startswith("store."))
        main_thread = {
            "dense embed": clock.seconds["dense embed"],
            "bm25 encode": clock.seconds["bm25 encode"],
            "store writes + reads": store_s,
            "file hash": clock.seconds["file hash"],
        }
        other = pipeline_s - sum(main_thread.values())
        rows = [(f"{k} ({clock.calls.get(k, '-')} calls)" if k in clock.calls else k,
                 f"{v:8.2f} s  {100 * v / pipeline_s:5.1f} %") for k, v in main_thread.items()]
        rows.append(("other (waiting for prepare, python glue)", f"{other:8.2f} s  {100 * other / pipeline_s:5.1f} %"))
        prep = clock.seconds["prepare (worker threads)"]
        rows.append(("prepare: load + split (worker threads, overlaps the above)",
                     f"{prep:8.2f} s  ({clock.calls['prepare (worker threads)']} files)"))
        for name in ENGINE_CALLS:
            label = f"store.{name}"
            if clock.calls.get(label):
                rows.append((f"  {label} ({clock.calls[label]} calls)", f"{clock.seconds[label]:8.2f} s"))
        rows.append(("model share of pipeline wall (dense embed / pipeline s)",
                     f"{main_thread['dense embed'] / pipeline_s:.3f}"))
        common.print_table("Where the ingest's time went (main thread unless marked)", rows)
        split = {k: round(v, 3) for k, v in main_thread.items()}
        split["other"] = round(other, 3)
        split["prepare_worker"] = round(prep, 3)
    common.print_table(f"Hybrid search, top 10, {len(queries)} SciFact queries, store held open", [
        ("optimize() s", optimize_s),
        ("indexed vectors before / after", f"{before['indexed_vectors']} / {after['indexed_vectors']}"),
        ("hybrid_search p50 / p95 ms, before", f"{before['e2e_p50_ms']:.2f} / {before['e2e_p95_ms']:.2f}"),
        ("hybrid_search p50 / p95 ms, after", f"{after['e2e_p50_ms']:.2f} / {after['e2e_p95_ms']:.2f}"),
        ("  of which embed_query p50 ms, before / after",
         f"{before['embed_query_p50_ms']:.2f} / {after['embed_query_p50_ms']:.2f}"),
        ("engine query p50 / p95 ms, before", f"{before['engine_p50_ms']:.2f} / {before['engine_p95_ms']:.2f}"),
        ("engine query p50 / p95 ms, after", f"{after['engine_p50_ms']:.2f} / {after['engine_p95_ms']:.2f}"),
        ("top-10 overlap before / after", f"{overlap:.3f}"),
        ("hybrid_search p50 ms, store not held (10 calls)", cold_p50_ms),
    ])
    common.print_table("Memory: peak resident set size of the whole process (VmHWM)", [
        ("peak RSS after ingest MiB", rss_after_ingest),
        ("peak RSS at end MiB (ru_maxrss)", f"{peak:,.1f} ({common.ru_maxrss_mib():,.1f})"),
    ])
    if args.profile:
        print(f"\ncProfile stats (main thread, timings inflated by profiling) in {args.profile}")
    if args.keep:
        print(f"\nstore kept in {tmp}")
    else:
        import shutil

        rag.close()
        shutil.rmtree(tmp, ignore_errors=True)
    common.print_summary({
        "bench": "ingest", "code": code, "date": time.strftime("%Y-%m-%d %H:%M"),
        "load_avg": [load_at_start, common.load_average()], "limit": args.limit, "files": len(files),
        "processed": stats["processed"], "failed": stats["failed"], "chunks": chunks,
        "batch_size": args.batch_size, "workers": args.workers, "chunk_size": args.chunk_size,
        "chunk_overlap": args.chunk_overlap, "interleave": k, "slice_ratios": [round(r, 3) for r in slice_ratios],
        "instrumented": not args.plain, "model_load_s": round(load_s, 2),
        "pipeline_s": round(pipeline_s, 2), "pipeline_chunks_per_s": round(pipeline_rate, 2),
        "provider": args.provider,
        "model_s": round(model_s, 2), "model_chunks_per_s": round(model_rate, 2), "ratio": round(ratio, 3),
        "target_ratio": target, "target_met": ratio >= target,
        "st_chunks_per_s": round(st_rate, 2) if st_rate else None,
        "ratio_vs_st": round(st_ratio, 3) if st_ratio else None, "target_ratio_vs_st": TARGET_RATIO_VS_ST,
        "pipeline_cpu_s": round(pipeline_cpu, 2), "model_cpu_s": round(model_cpu, 2),
        "ratio_cpu": round(model_cpu / pipeline_cpu, 3), "embed_calls": len(sizes) or None,
        "replay_s": round(replay_s, 2) if replay_s is not None else None, "bm25_s": round(bm25_s, 3),
        "split_s": split, "optimize_s": round(optimize_s, 3),
        "latency_before_ms": {k: round(v, 2) for k, v in before.items() if k.endswith("_ms")},
        "latency_after_ms": {k: round(v, 2) for k, v in after.items() if k.endswith("_ms")},
        "top10_overlap": round(overlap, 3), "not_held_p50_ms": round(cold_p50_ms, 2),
        "peak_rss_after_ingest_mib": round(rss_after_ingest, 1), "peak_rss_mib": round(peak, 1),
        "ru_maxrss_mib": round(common.ru_maxrss_mib(), 1),
    })


if __name__ == "__main__":
    main()
