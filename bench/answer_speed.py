"""Offline answer speed: the answerer's remembered embeddings against embedding every text afresh, in one run.

The offline answerer embeds the question, the question with one word masked, and the words of the
retrieved sources, once per check that needs them (``ragwire/providers/remembered.py``).  This script
asks the same questions over a cached bench corpus twice — first with the memory switched off (every
text reaches the model), then with it on — and prints milliseconds per question, texts embedded per
question, and whether every answer came out the same.

    python bench/answer_speed.py [--set corpus_w] [--limit 60] [--cache /tmp/ragwire-answers-bench]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import answers_heldout  # noqa: E402
import common  # noqa: E402

common.go_offline()

from ragwire.eval import GoldenSet  # noqa: E402
from ragwire.providers.remembered import RememberedEmbedding  # noqa: E402


class Counting:
    """Counts the texts that reach the model."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.texts = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        return self.inner.embed_documents(texts)  # type: ignore[attr-defined]

    def embed_query(self, text: str) -> list[float]:
        self.texts += 1
        return self.inner.embed_query(text)  # type: ignore[attr-defined]


def ask(rag: object, questions: list[str]) -> tuple[list[float], list[str]]:
    seconds, texts = [], []
    for question in questions:
        start = time.perf_counter()
        answer = rag.query(question)  # type: ignore[attr-defined]
        seconds.append(time.perf_counter() - start)
        texts.append(answer.text)
    return seconds, texts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", default="corpus_w", help="a development set of bench/answers_heldout.py")
    ap.add_argument("--limit", type=int, default=60)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/ragwire-answers-bench"))
    args = ap.parse_args()
    if args.set not in answers_heldout.DEVELOPMENT:
        ap.error(f"--set: one of the development sets ({', '.join(answers_heldout.DEVELOPMENT)})")
    corpus = answers_heldout.CORPORA[args.set]
    questions = [e.query for path in corpus.golden for e in GoldenSet.from_file(path).entries][: args.limit]
    rag = answers_heldout.open_corpus(corpus, args.cache, False)
    with rag:
        rag.query("warm-up")
        answerer = rag.answerer  # the wiring the pipeline builds
        memory = answerer.embedding
        assert isinstance(memory, RememberedEmbedding), "the answerer's embedder is not the remembering one"
        counting = Counting(memory.inner)
        memory.inner = counting
        rows = []
        for label, remember in (("every text embedded afresh (before)", False), ("remembered vectors (now)", True)):
            memory._vectors.clear()
            if not remember:  # instance attributes shadow the class's methods for this pass
                memory._recall = lambda key: None  # type: ignore[method-assign]
                memory._keep = lambda key, vector: None  # type: ignore[method-assign]
            counting.texts = 0
            seconds, texts = ask(rag, questions)
            rows.append((label, statistics.mean(seconds) * 1000, statistics.median(seconds) * 1000,
                         counting.texts / len(questions), texts))
            if not remember:
                del memory._recall, memory._keep
    print(f"{len(questions)} questions of {args.set}, answered twice in one process")
    print(f"{'':<40}{'mean ms':>10}{'median ms':>12}{'texts embedded':>17}")
    for label, mean, median, embedded, _ in rows:
        print(f"{label:<40}{mean:>10.0f}{median:>12.0f}{embedded:>17.1f}")
    print(f"speed-up (mean): {rows[0][1] / rows[1][1]:.1f}x; answers identical: {rows[0][4] == rows[1][4]}")


if __name__ == "__main__":
    main()
