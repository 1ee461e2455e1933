"""Pages: hit@5 of one vector per page vs page-local chunks, the cost of page ranges, and a
page-strategy ingest of the shared document corpus.

1. **hit@5** on a golden set built from the long pages (>= 2,500 characters of pypdf text) of
   the English PDFs in the shared corpus: each question is a sentence that starts beyond the
   first 1,500 characters of its page (past all-MiniLM-L6-v2's 256-token window), less its
   first three words, and occurs nowhere else; the expected answer is that file and page.
   A hit is the expected page among the first 5 distinct (file, page) of the results.
   Compared: ``strategy: page`` with one chunk per page (chunk_size 100,000) against
   page-local chunks (1,000/150 and the default 1,500/300), by dense (similarity) and hybrid search.
2. **page-range cost**: every file loaded with MarkItDownLoader and with PageMapLoader (which also
   reads the PDF pages / PPTX slides), then split with the markdown strategy without and with
   page alignment; seconds, and the share of PDF/PPTX chunks that got a page.
3. **ingest**: ``ragwire ingest`` with ``strategy: page`` over the whole corpus; processed +
   skipped + failed must equal the files found, and every failure has a one-line reason.

    python bench/pages_bench.py                 # all three (~5 min on 2 busy cores)
    python bench/pages_bench.py --only golden   # golden | cost | ingest
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

DEFAULT_DOCS = common.SHARED_BENCH / "data" / "docs"
LONG_PAGE = 2000
SKIP_CHARS = 1200
QUERY_WORDS = 12
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DOCS, help=f"folder of documents (default {DEFAULT_DOCS})")
    parser.add_argument("--only", choices=["golden", "cost", "ingest"], default=None)
    parser.add_argument("--per-page", type=int, default=3, help="questions per long page at most")
    parser.add_argument("--per-file", type=int, default=8, help="questions per PDF at most")
    return parser.parse_args()


# -- 1. golden set and hit@5 ---------------------------------------------------------------


def build_golden(data: Path, per_page: int, per_file: int) -> tuple[list[dict[str, Any]], list[Path]]:
    from ragwire.loaders.page_loader import PageLoader
    from ragwire.splitting.page_ranges import SHINGLE, words

    loader = PageLoader()
    pages_by_file: dict[Path, list[dict[str, Any]]] = {}
    for path in sorted(data.glob("*.pdf")):
        result = loader.load(path)
        if result["success"]:
            pages_by_file[path] = result["pages"]
    # How often each word shingle occurs in the whole corpus: a question must be unique.
    counts: dict[tuple[str, ...], int] = {}
    for pages in pages_by_file.values():
        for page in pages:
            w = words(page["text"])
            for i in range(len(w) - SHINGLE + 1):
                key = tuple(w[i : i + SHINGLE])
                counts[key] = counts.get(key, 0) + 1
    golden: list[dict[str, Any]] = []
    for path, pages in pages_by_file.items():
        taken = 0
        for page in pages:
            text = " ".join(page["text"].split())
            if len(text) < LONG_PAGE or _ascii_share(text) < 0.97:
                continue
            start = text.find(" ", SKIP_CHARS)
            candidates = [s for s in _SENTENCE.split(text[start:])[1:] if _good_sentence(s)]
            n = len(candidates)
            picked = [candidates[i] for i in dict.fromkeys([n - 1, n // 2, (3 * n) // 4]) if 0 <= i < n]
            for sentence in picked[:per_page]:
                w = words(sentence)
                if any(counts.get(tuple(w[i : i + SHINGLE]), 0) > 1 for i in range(len(w) - SHINGLE + 1)):
                    continue
                query = " ".join(sentence.split()[3 : 3 + QUERY_WORDS])
                golden.append({"query": query, "file": path.name, "page": page["page_number"]})
                taken += 1
            if taken >= per_file:
                break
    return golden, sorted({data / item["file"] for item in golden})


def _ascii_share(text: str) -> float:
    return sum(ch.isascii() for ch in text) / max(len(text), 1)


def _good_sentence(sentence: str) -> bool:
    tokens = sentence.split()
    letters = sum(ch.isalpha() for ch in sentence)
    return 12 <= len(tokens) <= 45 and letters / max(len(sentence), 1) > 0.7


def _config(folder: Path, splitter: dict[str, Any]) -> Path:
    import yaml

    path = common.write_config(folder, chunk_size=1500, chunk_overlap=300, batch_size=64, workers=2)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["splitter"] = splitter
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def hit_at_5(files: list[Path], golden: list[dict[str, Any]], splitter: dict[str, Any]) -> dict[str, Any]:
    from ragwire import RAGWire

    with tempfile.TemporaryDirectory(prefix="pages-bench-") as tmp:
        folder = common.copy_files(files, Path(tmp) / "docs")
        rag = RAGWire(str(_config(Path(tmp), splitter)))
        started = time.perf_counter()
        stats = rag.ingest_directory(folder)
        ingest_s = time.perf_counter() - started
        out: dict[str, Any] = {"chunks": stats.get("chunks_created"), "ingest_s": round(ingest_s, 1)}
        for search in ("similarity", "hybrid"):
            hits = 0
            for item in golden:
                docs = rag.retrieve(item["query"], top_k=30, search_type=search)
                seen: list[tuple[str, Any]] = []
                for doc in docs:
                    key = (doc.metadata.get("file_name"), doc.metadata.get("page_number"))
                    if key not in seen:
                        seen.append(key)
                hits += (item["file"], item["page"]) in seen[:5]
            out[search] = round(hits / len(golden), 3)
        rag.close() if hasattr(rag, "close") else None
    return out


_PEOPLE = ["Ada Moreno", "Bilal Ortiz", "Chen Lindqvist", "Dara Okafor", "Emil Novak", "Farah Quist",
           "Goran Ibsen", "Hana Sato", "Ivo Petrak", "Jana Kowal", "Kofi Mensah", "Lena Vidal"]
_THINGS = ["glass observatory", "salt warehouse", "rope bridge", "copper foundry", "tide mill", "paper archive",
           "signal tower", "stone granary", "silk workshop", "ice house", "clock tower", "coal jetty"]
_CITIES = ["Tromso", "Valletta", "Cusco", "Hobart", "Tartu", "Oaxaca", "Galway", "Nagasaki", "Ghent", "Mombasa",
           "Porto", "Kotor"]
_FILLER_SUBJECTS = ["The committee", "The treasurer", "A visiting engineer", "The harbour master", "The school board",
                    "A local historian", "The weather station", "The regional office", "The night shift", "A surveyor"]
_FILLER_ACTIONS = ["reviewed the annual budget", "recorded unusual rainfall", "postponed the spring meeting",
                   "published a short report", "replaced the old fences", "counted the visitors", "repaired the roof",
                   "ordered new uniforms", "checked the inventory twice", "planted a row of trees"]


def synthetic_golden(folder: Path) -> tuple[list[dict[str, Any]], list[Path]]:
    """3 PDFs x 8 long pages; each page ends with one fact, asked about in other words."""
    sys.path.insert(0, str(common.BENCH_DIR.parent))
    from tests.pdfs import write_pdf

    golden, files = [], []
    for f in range(3):
        pages = []
        for p in range(8):
            k = f * 8 + p
            filler = " ".join(
                f"{_FILLER_SUBJECTS[(k + i) % 10]} {_FILLER_ACTIONS[(k * 3 + i * 7) % 10]} in {1800 + k * 7 + i}."
                for i in range(45)
            )
            person, thing, city = _PEOPLE[k % 12], _THINGS[(k * 5) % 12], _CITIES[(k * 7 + f) % 12]
            year = 1850 + k * 3
            pages.append(f"{filler} The {thing} of {city} was designed by {person} in {year}.")
            golden.append({"query": f"Who designed the {thing} in {city}?", "file": f"town-{f}.pdf", "page": p + 1})
        files.append(write_pdf(folder / f"town-{f}.pdf", pages))
    return golden, files


def run_golden(data: Path, per_page: int, per_file: int) -> dict[str, Any]:
    out = {}
    with tempfile.TemporaryDirectory(prefix="pages-synthetic-") as tmp:
        golden, files = synthetic_golden(Path(tmp))
        print(f"\nsynthetic set: {len(golden)} questions, facts at the end of 2,500-character pages")
        out["synthetic"] = _compare(golden, files)
    golden, files = build_golden(data, per_page, per_file)
    print(f"\nreal-PDF set: {len(golden)} questions over {len(files)} PDFs ({', '.join(f.name for f in files)})")
    for item in golden[:3]:
        print(f"  e.g. {item['file']} p{item['page']}: {item['query'][:100]}")
    out["real"] = _compare(golden, files)
    return out


def _compare(golden: list[dict[str, Any]], files: list[Path]) -> dict[str, Any]:
    variants = {
        "one vector per page": {"strategy": "page", "chunk_size": 100_000, "chunk_overlap": 0},
        "page-local 1000/150": {"strategy": "page", "chunk_size": 1000, "chunk_overlap": 150},
        "page-local 1500/300": {"strategy": "page", "chunk_size": 1500, "chunk_overlap": 300},
    }
    results = {name: hit_at_5(files, golden, splitter) for name, splitter in variants.items()}
    print("\nhit@5 (distinct pages)        dense   hybrid  chunks  ingest s")
    for name, r in results.items():
        print(f"  {name:<26} {r['similarity']:>7.3f} {r['hybrid']:>7.3f} {r['chunks']:>7} {r['ingest_s']:>8}")
    return {"questions": len(golden), "files": [f.name for f in files], "hit_at_5": results}


# -- 2. cost of page ranges ------------------------------------------------------------------


def run_cost(data: Path) -> dict[str, Any]:
    from ragwire.loaders import MarkItDownLoader
    from ragwire.loaders.page_loader import PageMapLoader
    from ragwire.splitting import split_text

    plain, mapped = MarkItDownLoader(), PageMapLoader()
    totals = {"markitdown_load_s": 0.0, "pagemap_load_s": 0.0, "split_s": 0.0, "split_aligned_s": 0.0}
    paged = {"chunks": 0, "placed": 0, "files": 0}
    for path in sorted(p for p in data.iterdir() if p.is_file()):
        if path.suffix.lower() not in (".pdf", ".pptx"):
            continue
        t0 = time.perf_counter()
        plain.load(path)
        t1 = time.perf_counter()
        result = mapped.load(path)
        t2 = time.perf_counter()
        totals["markitdown_load_s"] += t1 - t0
        totals["pagemap_load_s"] += t2 - t1
        if not result["success"]:
            continue
        kwargs = {"strategy": "markdown", "chunk_size": 1500, "chunk_overlap": 300}
        t3 = time.perf_counter()
        split_text(result["text_content"], **kwargs)
        t4 = time.perf_counter()
        pieces = split_text(result["text_content"], pages=result["pages"], **kwargs)
        t5 = time.perf_counter()
        totals["split_s"] += t4 - t3
        totals["split_aligned_s"] += t5 - t4
        paged["files"] += 1
        paged["chunks"] += len(pieces)
        paged["placed"] += sum("page_number" in p.metadata for p in pieces)
    extra = totals["pagemap_load_s"] + totals["split_aligned_s"] - totals["markitdown_load_s"] - totals["split_s"]
    base = totals["markitdown_load_s"] + totals["split_s"]
    print(f"\npage ranges on the {paged['files']} PDF/PPTX files that load (markdown strategy, 1500/300)")
    for key, value in totals.items():
        print(f"  {key:<20} {value:8.2f} s")
    print(f"  extra for page ranges {extra:7.2f} s  (+{100 * extra / base:.0f}% of load + split)")
    print(f"  chunks with a page    {paged['placed']} of {paged['chunks']} ({100 * paged['placed'] / max(paged['chunks'], 1):.1f}%)")
    return {**{k: round(v, 2) for k, v in totals.items()}, "extra_s": round(extra, 2), **paged}


# -- 3. page-strategy ingest of the corpus ---------------------------------------------------


def run_ingest(data: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pages-ingest-") as tmp:
        folder = Path(tmp) / "docs"
        shutil.copytree(data, folder)
        config = _config(Path(tmp), {"strategy": "page", "chunk_size": 1500, "chunk_overlap": 300})
        cli = Path(sys.executable).with_name("ragwire")
        started = time.perf_counter()
        proc = subprocess.run([str(cli), "ingest", str(folder), "-c", str(config), "--json"],
                              capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        wall = time.perf_counter() - started
    if proc.returncode not in (0, 1) or not proc.stdout.strip():
        print(proc.stdout[-2000:], proc.stderr[-4000:])
        raise SystemExit(f"ragwire ingest exited {proc.returncode}")
    stats = json.loads(proc.stdout)
    found = stats.get("total_files", stats.get("total"))
    print(f"\nragwire ingest (strategy page) over {data}: exit {proc.returncode}, {wall:.0f} s")
    for key in ("total_files", "processed", "skipped", "failed", "chunks_created"):
        if key in stats:
            print(f"  {key:<15} {stats[key]}")
    for error in stats.get("errors", []):
        print(f"  error: {error if isinstance(error, str) else json.dumps(error)}")
    for skipped in stats.get("skipped_files", []):
        print(f"  skipped: {skipped if isinstance(skipped, str) else json.dumps(skipped)}")
    balanced = stats.get("processed", 0) + stats.get("skipped", 0) + stats.get("failed", 0) == found
    print(f"  processed + skipped + failed == total: {balanced}")
    return {"exit": proc.returncode, "wall_s": round(wall, 1), "balanced": balanced,
            **{k: v for k, v in stats.items() if isinstance(v, (int, float))}}


def main() -> None:
    args = parse_args()
    common.go_offline()
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # font warnings on every other real PDF
    summary: dict[str, Any] = {"machine": common.machine()}
    if args.only in (None, "cost"):
        summary["cost"] = run_cost(args.data)
    if args.only in (None, "golden"):
        summary["golden"] = run_golden(args.data, args.per_page, args.per_file)
    if args.only in (None, "ingest"):
        summary["ingest"] = run_ingest(args.data)
    common.print_summary(summary)


if __name__ == "__main__":
    main()
