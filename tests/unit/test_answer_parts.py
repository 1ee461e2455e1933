"""Splitting a multi-part question offline, by coordination in general (issue 33)."""

from __future__ import annotations

import pytest

from ragwire.answer.refine import route, split_parts

SPLITS = [
    # a preposition may open the second question
    ("How much does the hub weigh, and in which city is it made?",
     ["How much does the hub weigh?", "In which city is it made?"]),
    ("What does error E-17 mean, and for how long is the fan covered?",
     ["What does error E-17 mean?", "For how long is the fan covered?"]),
    # two attributes of one thing
    ("What are the price and the weight of the hub?",
     ["What is the price of the hub?", "What is the weight of the hub?"]),
    ("Tell me the price and weight of the hub.", ["What is the price of the hub?", "What is the weight of the hub?"]),
    # a comparison asks each side's measure
    ("Which costs more, the hub or the plug, and by how much?",
     ["How much does the hub cost?", "How much does the plug cost?"]),
    ("Which is heavier, the hub or the plug?", ["How much does the hub weigh?", "How much does the plug weigh?"]),
    # unchanged: one question
    ("If it fails, what should I do?", ["If it fails, what should I do?"]),
    ("How long does the battery last?", ["How long does the battery last?"]),
]


@pytest.mark.parametrize(("question", "parts"), SPLITS, ids=[q for q, _ in SPLITS])
def test_coordinated_questions_split_into_their_parts(question, parts):
    assert split_parts(question) == parts
    assert route(question) == ("multi-part" if len(parts) > 1 else "factual")
