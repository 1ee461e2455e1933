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


@pytest.mark.parametrize(("question", "parts"), [
    ("What is the deposit for a new kayak as well as the deposit for a used one?",
     ["What is the deposit for a new kayak?", "What is the deposit for a used kayak?"]),
    ("How heavy is the small tent, and what does the large one weigh?",
     ["How heavy is the small tent?", "What does the large tent weigh?"]),
])
def test_a_part_saying_one_for_a_noun_named_before_it_names_the_noun(question, parts):
    # Round 4: "a used one" was searched and quoted as it stood, so the part matched any deposit.
    assert split_parts(question) == parts


def test_one_of_and_a_part_without_one_are_left_as_written():
    assert split_parts("What is the price of the kayak, and which one of the tents is lighter?") == [
        "What is the price of the kayak?", "Which one of the tents is lighter?"]


def test_a_request_for_a_thing_and_a_clause_becomes_two_questions():
    # Round 4: the first part stayed "Tell me the fee for a berth?", the second a statement ending in ".".
    assert split_parts("Tell me the fee for a berth and when the harbour office opens.") == [
        "What is the fee for a berth?", "When the harbour office opens?"]
