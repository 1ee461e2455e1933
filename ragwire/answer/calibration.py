"""What an extractive answer's confidence means: the decision model's chance of a right answer, mapped to the share right.

The extractive answerer's decision (:mod:`.decision`) gives each answer a chance of being
right from all its evidence; :func:`strength` (the best quoted passage's cosine times the
share of the question's salient words the quotes state) is one of its features.
:data:`CALIBRATION` maps that chance to ``Answer.confidence``: a monotone step function
fitted (isotonic regression, pooled adjacent violators) on the development sets tuned on
least, the seven blind sets retired last (corpus_r to corpus_x), where an answered
unanswerable counts as wrong.  Sets tuned on for many rounds are answered better than new
documents are, so a table fitted on all of them promised more than a new collection gets.
Refit with ``bench/answers_heldout.py --fit`` (those seven by default, development sets
only); never on a set still held out.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

# (lowest chance, confidence): a chance at or above the bound and below the next one gets that confidence.
# Fitted in issue 33, round 23, on 465 answered questions of corpus_r to corpus_x, for the decision model refitted
# that round.  Round 22 first fitted on the sets tuned on least: the round-16 table, fitted on every set, gave
# 0.88 to answers that were right 0.69 of the time on them, since sets tuned on for many rounds are answered better
# than a new collection is.
CALIBRATION: tuple[tuple[float, float], ...] = (
    (0.0, 0.26),
    (0.54, 0.49),
    (0.69, 0.61),
    (0.77, 0.76),
    (0.86, 0.85),
    (0.92, 0.93),
)


def strength(best_score: float, coverage: float) -> float:
    """The grounding strength of an answer: its best passage's similarity times the share of salient words stated."""
    return max(0.0, min(1.0, best_score)) * max(0.0, min(1.0, coverage))


def calibrated(value: float, table: Sequence[tuple[float, float]] = CALIBRATION) -> float:
    """The confidence of an answer of grounding strength ``value``, read from ``table``."""
    bounds = [b for b, _ in table]
    i = bisect_right(bounds, value) - 1
    return table[max(i, 0)][1]


def fit(pairs: Sequence[tuple[float, bool]], bins: int = 6) -> tuple[tuple[float, float], ...]:
    """A monotone table from ``(strength, correct)`` pairs: isotonic regression, then at most ``bins`` steps.

    Pooled adjacent violators over the pairs sorted by strength; neighbouring blocks are
    then merged (the smallest first) until ``bins`` remain, so no step rests on a handful;
    each step's value is its share correct, Laplace-smoothed.
    """
    ordered = sorted(pairs)
    blocks: list[list[float]] = []  # [lowest strength, correct, count]
    for value, ok in ordered:
        blocks.append([value, float(ok), 1.0])
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][2] >= blocks[-1][1] / blocks[-1][2]:
            last = blocks.pop()
            blocks[-1][1] += last[1]
            blocks[-1][2] += last[2]
    merged: list[list[float]] = []
    for block in blocks:  # blocks starting at one strength cannot be told apart: one step
        if merged and merged[-1][0] == block[0]:
            merged[-1][1] += block[1]
            merged[-1][2] += block[2]
        else:
            merged.append(block)
    blocks = merged
    while len(blocks) > bins:
        i = min(range(len(blocks)), key=lambda k: blocks[k][2])
        j = i - 1 if i == len(blocks) - 1 or (i > 0 and blocks[i - 1][2] < blocks[i + 1][2]) else i + 1
        lo, hi = min(i, j), max(i, j)
        blocks[lo] = [blocks[lo][0], blocks[lo][1] + blocks[hi][1], blocks[lo][2] + blocks[hi][2]]
        del blocks[hi]
    if not blocks:
        return ((0.0, 0.5),)
    # Each step's share correct with one right and one wrong answer added (Laplace): a step of
    # 40 right answers out of 40 reads 0.98, not a certainty the next question cannot break.
    return tuple((0.0 if k == 0 else round(b[0], 3), round((b[1] + 1) / (b[2] + 2), 2)) for k, b in enumerate(blocks))
