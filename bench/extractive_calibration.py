"""Calibrate the refusal threshold of extractive answers on examples/docs.

Ingests examples/docs into a temporary store, retrieves the top 5 chunks for
on-topic questions (the golden set plus paraphrases) and off-topic ones, and
prints the best passage score of each, the gap between the two groups and the
threshold in ``ragwire.answer.extractive``.  Run: ``python bench/extractive_calibration.py``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from common import go_offline, load_average, machine, print_summary, write_config

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "docs"
GOLDEN = REPO / "golden.example.yaml"

# Paraphrases written from examples/docs, each with the files that answer it.
PARAPHRASES = [
    ("How long does it take to charge the battery?", ["user-guide.md"]),  # the query of `make demo`
    ("How fast can the AR-7 drive?", ["faq.html", "onboarding.pptx"]),
    ("Can I use the robot in a freezer?", ["faq.html"]),
    ("What is the heaviest load the robot can carry?", ["user-guide.md", "troubleshooting.txt", "onboarding.pptx"]),
    ("How do I fix a failed charger handshake?", ["troubleshooting.txt"]),
    ("How often do the drive wheels need replacing?", ["user-guide.md", "price-list.xlsx"]),
    ("Can I send the robot back for a refund?", ["warranty-policy.pdf"]),
    ("How much does a technician visit cost per hour?", ["price-list.xlsx", "faq.html"]),
    ("What should operators check at the start of a shift?", ["onboarding.pptx"]),
    ("How do I reach Northwind support?", ["troubleshooting.txt", "user-guide.md", "onboarding.pptx"]),
    ("How long does it take to map the warehouse?", ["user-guide.md"]),
    ("Which firmware version added opportunity charging?", ["release-notes.docx"]),
    # Terse, as typed into a search box (`make demo` retrieves "E-4711").
    ("E-4711", ["troubleshooting.txt", "release-notes.docx"]),
    ("battery replacement price", ["price-list.xlsx", "faq.html"]),
]

OFF_TOPIC = [
    "What will the weather be like in Paris tomorrow?",
    "How do I bake sourdough bread?",
    "Who won the 2018 FIFA World Cup?",
    "What is the capital of Australia?",
    "How long should I boil an egg?",
    "What are the rules of cricket?",
    "Can you recommend a good science fiction novel?",
    "How many calories are in a banana?",
    "How tall is Mount Everest?",
]

# Not part of the calibration: questions near the documents' vocabulary that they
# still cannot answer.  Printed to show where the threshold stops protecting.
NEAR_MISSES = [
    "How long does a Tesla battery take to charge?",
    "What is the warranty on a Samsung TV?",
    "How do I reset my home Wi-Fi router?",
]


def golden_questions() -> list[tuple[str, list[str]]]:
    import yaml

    data = yaml.safe_load(GOLDEN.read_text(encoding="utf-8"))
    return [(q["query"], list(q["expected"])) for q in data["queries"]]


def run(chunk_size: int, chunk_overlap: int, top_k: int) -> dict:
    from ragwire import RAGWire
    from ragwire.answer.context import build_context
    from ragwire.answer.extractive import compose, score_passages, select, REFUSAL_THRESHOLD

    on_topic = golden_questions() + PARAPHRASES
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shutil.copytree(EXAMPLES, folder / "docs")
        config = write_config(folder, chunk_size=chunk_size, chunk_overlap=chunk_overlap, batch_size=64, workers=1)
        rag = RAGWire(config)
        rag.ingest_directory(folder / "docs")
        rag.embedding.embed_query("warm up")

        def measure(question: str) -> dict:
            sources = build_context(rag.retrieve(question, top_k=top_k), 12_000)
            start = time.perf_counter()
            candidates = score_passages(question, sources, rag.embedding)
            seconds = time.perf_counter() - start
            best = max(candidates, key=lambda c: c.score)
            by_index = {s.index: s for s in sources}
            chosen = select(candidates, 3, REFUSAL_THRESHOLD)
            return {
                "question": question,
                "best": round(best.score, 3),
                "best_file": by_index[best.source].hit.metadata.get("file_name"),
                "cited_files": sorted({by_index[c.source].hit.metadata.get("file_name") for c in chosen}),
                "passages": len(candidates),
                "seconds": round(seconds, 3),
                "answer": compose(chosen),
            }

        rows_on = [{**measure(q), "expected": exp} for q, exp in on_topic]
        rows_off = [measure(q) for q in OFF_TOPIC]
        rows_near = [measure(q) for q in NEAR_MISSES]
        rag.close()

    print(f"\n== chunk_size {chunk_size}, overlap {chunk_overlap}, top_k {top_k} ==")
    print("\non-topic: best passage score, its file, files the answer cites (✓ = an expected file is cited)")
    for r in rows_on:
        ok = "✓" if set(r["cited_files"]) & set(r["expected"]) else "✗"
        print(f"  {r['best']:.3f}  {ok}  {r['question']}  → {r['best_file']}; cites {', '.join(r['cited_files'])}")
    print("\noff-topic: best passage score and its file")
    for r in rows_off:
        print(f"  {r['best']:.3f}     {r['question']}  → {r['best_file']}")
    print("\nnear misses (not calibrated on): best passage score and its file")
    for r in rows_near:
        print(f"  {r['best']:.3f}     {r['question']}  → {r['best_file']}")
    on = [r["best"] for r in rows_on]
    off = [r["best"] for r in rows_off]
    times = [r["seconds"] for r in rows_on + rows_off]
    summary = {
        "chunk_size": chunk_size,
        "on_topic_min": min(on), "on_topic_max": max(on),
        "off_topic_min": min(off), "off_topic_max": max(off),
        "margin": round(min(on) - max(off), 3),
        "midpoint": round((min(on) + max(off)) / 2, 3),
        "threshold": REFUSAL_THRESHOLD,
        "on_topic_answered": sum(s >= REFUSAL_THRESHOLD for s in on), "on_topic_total": len(on),
        "off_topic_refused": sum(s < REFUSAL_THRESHOLD for s in off), "off_topic_total": len(off),
        "near_misses_refused": sum(r["best"] < REFUSAL_THRESHOLD for r in rows_near),
        "cites_expected": sum(bool(set(r["cited_files"]) & set(r["expected"])) for r in rows_on),
        "passages_max": max(r["passages"] for r in rows_on + rows_off),
        "score_seconds_max": max(times),
        "score_seconds_mean": round(sum(times) / len(times), 3),
    }
    print(f"\non-topic {summary['on_topic_min']:.3f}–{summary['on_topic_max']:.3f}, "
          f"off-topic {summary['off_topic_min']:.3f}–{summary['off_topic_max']:.3f}, "
          f"margin {summary['margin']:.3f}, midpoint {summary['midpoint']:.3f}, "
          f"threshold {REFUSAL_THRESHOLD:.2f}: answers {summary['on_topic_answered']}/{len(on)} on-topic, "
          f"refuses {summary['off_topic_refused']}/{len(off)} off-topic")
    print(f"scoring time per question (split + embed + cosine): mean {summary['score_seconds_mean']:.3f} s, "
          f"max {summary['score_seconds_max']:.3f} s, up to {summary['passages_max']} passages")
    return {"summary": summary, "on_topic": rows_on, "off_topic": rows_off, "near_misses": rows_near}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunk-sizes", default="400:40,1000:200",
                        help="size:overlap pairs, comma-separated (default: the tests' 400:40 and config.yaml.example's 1000:200)")
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--answers", action="store_true", help="print every on-topic answer too")
    args = parser.parse_args()
    go_offline()
    results = []
    for pair in args.chunk_sizes.split(","):
        size, overlap = (int(x) for x in pair.split(":"))
        result = run(size, overlap, args.top_k)
        if args.answers:
            print("\nanswers")
            for r in result["on_topic"]:
                print(f"\n  Q: {r['question']}\n  " + r["answer"].replace("\n", "\n  "))
        results.append(result["summary"])
    print(f"\n{machine()}, load {load_average()}")
    print_summary({"runs": results})


if __name__ == "__main__":
    sys.exit(main())
