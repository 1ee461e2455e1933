"""Which runtime embeds faster on this machine, and does `ragwire ingest` keep up with the faster one?

    python bench/embed_runtime.py                   # 300 SciFact abstracts
    python bench/embed_runtime.py --files 1000

The same texts three ways, in one run: ONNX Runtime alone (``provider: onnx``), the
same model on sentence-transformers alone (``provider: huggingface``), and a full
``RAGWire.ingest_directory`` of the files with ``provider: onnx`` (the bulk-runtime
chooser of ``ragwire.providers.bulk`` picks the runtime).  Each abstract is one chunk
(``chunk_size`` 4000), so the runtimes alone embed exactly the texts the ingest embeds.
The runtimes alone run before and after the ingest (best of the two is kept).
The calibration runs first (or is read from ``$RAGWIRE_HOME/runtime``) and its own
figures are printed; ``--fresh-calibration`` measures again.  Also reported: the
cosine between the two runtimes' vectors (they share one model identity only if
they agree).  The target: the ingest at >= 0.95x the faster runtime alone.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--beir", type=Path, default=common.DEFAULT_BEIR)
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--fresh-calibration", action="store_true")
    args = ap.parse_args()
    common.go_offline()

    import numpy as np

    from ragwire import RAGWire, get_embedding
    from ragwire.config import EmbeddingsConfig
    from ragwire.providers import bulk

    files = common.pick_files(common.ensure_files(args.data, args.beir), args.files)
    texts = [p.read_text(encoding="utf-8") for p in files]
    section = EmbeddingsConfig(provider="onnx")
    onnx = get_embedding({"provider": "onnx"})
    torch = get_embedding({"provider": "huggingface"})

    if args.fresh_calibration:
        bulk.cache_path(section).unlink(missing_ok=True)
    t0 = time.perf_counter()
    record = bulk.cached_choice(section)
    cached = record is not None
    if record is None:
        record = bulk.calibrate(section, onnx, torch)
    calib_s = time.perf_counter() - t0

    for emb in (onnx, torch):
        emb.embed_documents(texts[:8])
    alone = {"onnx": 0.0, "torch": 0.0}
    vectors = {}

    def time_alone(name: str, emb) -> None:
        start = time.perf_counter()
        vectors[name] = np.asarray(emb.embed_documents(texts), dtype=np.float64)
        alone[name] = max(alone[name], len(texts) / (time.perf_counter() - start))

    # The runtimes alone bracket the ingest (before and after, best of the two), so a change
    # of machine load during the run does not favour one side.
    time_alone("onnx", onnx)
    time_alone("torch", torch)
    with tempfile.TemporaryDirectory(prefix="embed-runtime-") as tmp:
        folder = Path(tmp)
        data = common.copy_files(files, folder / "docs")
        config = common.write_config(folder, chunk_size=4000, chunk_overlap=0, batch_size=64, workers=1,
                                     provider="onnx")
        rag = RAGWire(str(config))
        rag.embedding.embed_query("warm up")  # the query model loads outside the timing, as in a CLI run's startup
        start = time.perf_counter()
        stats = rag.ingest_directory(str(data))
        ingest_s = time.perf_counter() - start
        chunks = rag.get_stats()["total_documents"]
        used = getattr(rag.parts.bulk_embedding, "runtime", "onnx")
        rag.close()
    time_alone("torch", torch)
    time_alone("onnx", onnx)
    a, b = vectors["onnx"], vectors["torch"]
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))

    pipeline = chunks / ingest_s
    faster = max(alone, key=lambda n: alone[n])
    ratio = pipeline / alone[faster]
    common.print_table("Setup", [
        ("texts", f"{len(texts)} SciFact abstracts, one chunk each ({chunks} chunks ingested, "
                  f"{stats.get('processed', 0)} files)"),
        ("machine", common.machine()),
        ("code", common.code_version()),
        ("load average", f"{common.load_average():.2f}"),
    ])
    print(f"\n  calibration ({'cached' if cached else f'measured now, {calib_s:.1f} s'}): "
          f"onnx {record['onnx_texts_per_s']:.1f}/s, sentence-transformers {record['torch_texts_per_s']:.1f}/s "
          f"-> {record['choice']}")
    print(f"  onnx alone                  {alone['onnx']:7.1f} texts/s")
    print(f"  sentence-transformers alone {alone['torch']:7.1f} texts/s")
    print(f"  ragwire ingest ({used:5})      {pipeline:7.1f} chunks/s  = x{ratio:.2f} the faster ({faster}) alone")
    print(f"  cosine onnx vs sentence-transformers: min {cos.min():.6f}")
    common.print_summary({"bench": "embed_runtime", "texts": len(texts), "alone": alone, "pipeline": pipeline,
                          "ratio": round(ratio, 3), "runtime": used, "calibration": record,
                          "min_cosine": float(cos.min()), "load_average": common.load_average()})


if __name__ == "__main__":
    main()
