"""Numbers written out, units asked per, and unit words (issue 33, round 16), without a model."""

from __future__ import annotations

import pytest

from ragwire.answer.answerable import _spelled_carried, missing_terms
from ragwire.answer.evidence import absent_terms, salient_terms
from ragwire.answer.typed import asked_unit

from .test_answer_written_otherwise import _Index
from .test_extractive import WordEmbedding, _source


@pytest.mark.parametrize(("token", "value", "unit", "text", "held"), [
    ("four-day", 4.0, "day", "Three-day loop: 900; six-day loop: 1 700", False),  # siblings of the row asked
    ("four-day", 4.0, "day", "A 4-day pass costs 40", True),
    ("two-day", 2.0, "day", "Weekend pass (two days): 80", True),
    ("three-day", 3.0, "day", "Passes for 2 to 5 days", True),
    ("half-day", 0.5, "day", "A full-day ride costs 120", False),
    ("half-day", 0.5, "day", "Half a day on the water: 60", True),
    ("two-week", 2.0, "week", "Hire for 7 to 20 days: 45 a day", True),  # a span of weeks counted in days
    ("two-week", 2.0, "week", "Hire for 1 to 6 days: 50 a day", False),
])
def test_a_number_written_out_and_joined_to_its_unit_is_held_as_a_number(token, value, unit, text, held):
    assert _spelled_carried(token, value, unit, set(), text) is held


@pytest.mark.parametrize(("question", "text", "given"), [
    ("What does the yard charge per gallon of diesel?", "Diesel is sold at 1.90 per litre.", False),
    ("What does the yard charge per litre of diesel?", "Diesel is sold at 1.90 per litre.", True),
    ("What do fence boards cost per foot?", "Fence boards: 4.20 EUR/m", False),
    ("What are apples per kg at the stall?", "Apples: 3 EUR/kg", True),
])
def test_a_price_per_unit_of_measure_is_given_in_that_unit(question, text, given):
    found = asked_unit(question)
    assert found is not None and bool(found[1].search(text)) is given


def test_a_price_per_unit_of_time_is_left_to_the_other_checks():
    assert asked_unit("What does the sauna cost per hour?") is None


def test_a_unit_the_documents_abbreviate_is_no_absent_term():
    index = _Index("canoe", "route")
    assert absent_terms("How many kilometres long is the canoe route?", index, ["The canoe route is 45 km."]) == []


def test_how_big_names_the_measure_asked_not_a_topic():
    assert "big" not in salient_terms("How big is the boot of the van?")
    assert "large" in salient_terms("What does the large van cost?")



def test_a_thing_counted_in_words_is_left_to_the_other_checks():
    # "Tandem" is a two-person kayak, a box "of 6" a six-egg box: counts of things are named otherwise too often.
    kayaks = [_source(1, "Tandem kayak: 40 a day. Single kayak: 25 a day.")]
    assert missing_terms("Hiring a two-person kayak costs what per day?", kayaks, WordEmbedding()) == []


def test_a_unit_written_out_is_required_as_a_number():
    rides = [_source(1, "Three-day moor ride: 540. Six-day coast ride: 1 020.")]
    assert missing_terms("A four-day ride on the moor costs how much?", rides, WordEmbedding()) == ["four-day"]
    assert missing_terms("A three-day ride on the moor costs how much?", rides, WordEmbedding()) == []


def test_a_quantity_priced_at_a_sum_is_a_price_per_its_unit():
    found = asked_unit("Per kWh, what did the meter bill charge?")
    assert found is not None and found[1].search("Energy: 340 kWh at 0.2150")
    assert not found[1].search("Energy used: 340 kWh")
