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


# Round 6 (issue 33): joins the splitter missed, each a general form of coordination.
ROUND_6_SPLITS = [
    # a phrase between the comparative and the comma qualifies both sides
    ("Which costs more per week, the city bike or the tandem, and by how much?",
     ["How much does the city bike cost per week?", "How much does the tandem cost per week?"]),
    # "one for …" takes the other side's noun
    ("Which is cheaper, a locker for a small bag or one for a large bag, and by how much?",
     ["How much does a locker for a small bag cost?", "How much does a locker for a large bag cost?"]),
    # "until", "since" open a second question as other prepositions do
    ("What time does the café open, and until when is the terrace served?",
     ["What time does the café open?", "Until when is the terrace served?"]),
    # "; also, what …"
    ("What does a window clean cost; also, what do they charge for gutters?",
     ["What does a window clean cost?", "What do they charge for gutters?"]),
    # "compare the X of A in summer with the X in winter": B changes A's last phrase
    ("Compare the start time of the Sunday walk in summer with the start time in winter",
     ["What is the start time of the Sunday walk in summer?", "What is the start time of the Sunday walk in winter?"]),
    # "its" after "X of Y" is Y's
    ("What is the iron level of the lake's water as well as its colour?",
     ["What is the iron level of the lake's water?", "What is the colour of the lake's water?"]),
    # "What's X as well as Y"
    ("What's the highest shelf in the store as well as the minimum gap kept from walls?",
     ["What is the highest shelf in the store?", "What is the minimum gap kept from walls?"]),
    # "What does A cost, as well as B?": the verb is shared
    ("What does a single ticket from Alby to Berg cost, as well as a day's rental of the Trail 3?",
     ["What does a single ticket from Alby to Berg cost?", "What does a day's rental of the Trail 3 cost?"]),
    # "… pay for A and for B": the head is shared
    ("What does an adult pay for a ticket at the museum and for a pass at the lift?",
     ["What does an adult pay for a ticket at the museum?", "What does an adult pay for a pass at the lift?"]),
]


@pytest.mark.parametrize(("question", "parts"), ROUND_6_SPLITS, ids=[q for q, _ in ROUND_6_SPLITS])
def test_a_shared_phrase_verb_or_head_goes_with_each_part(question, parts):
    assert split_parts(question) == parts
