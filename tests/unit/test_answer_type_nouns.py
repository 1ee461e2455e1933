"""Type nouns in more places (issue 33, round 27): a preposition before "what", charges, priced rates, altitudes.

Each question below expected nothing on round 26's code, so its type noun ("charge", "temperature")
counted as a rare word of the question, and a collection that never writes the word refused it.
"""

from __future__ import annotations

import pytest

from ragwire.answer.coverage import covers
from ragwire.answer.evidence import salient_terms
from ragwire.answer.expectations import expectation


@pytest.mark.parametrize(("question", "kind"), [
    ("At what temperature should the glue be stored?", "temperature"),
    ("Below what speed may a forklift enter the yard?", "speed"),
    ("To what depth is the quarry lake safe for diving?", "length"),
])
def test_a_preposition_before_what_keeps_the_type_noun_it_opens(question, kind):
    expected = expectation(question)
    assert expected is not None and expected.kind == kind


def test_the_word_before_the_type_noun_is_what_the_value_is_of():
    # "Beyond what wind speed": a passage giving a riding pace in km/h is no answer; one about wind is.
    expected = expectation("Beyond what wind speed do kite lessons stop?")
    assert expected is not None and expected.heads == ("wind",)
    assert not covers(expected, "Beginners ride at an average speed of 18 km/h.")
    assert covers(expected, "Lessons stop when gusts of wind pass 35 km/h.")


def test_a_charge_is_a_sum_of_money_and_no_rare_word_once_the_type_is_known():
    question = "What is the collection charge for a sofa?"
    expected = expectation(question)
    assert expected is not None and expected.kind == "amount of money" and expected.heads == ("sofa",)
    assert "charge" not in salient_terms(question)
    assert covers(expected, "Sofas are collected from the kerb for 40 EUR.")


@pytest.mark.parametrize("question", [
    "Who is in charge at the lost-property desk?",
    "At what charge level should the scooter battery be stored?",
])
def test_charge_in_its_other_senses_asks_for_no_sum(question):
    expected = expectation(question)
    assert expected is None or expected.kind != "amount of money"


def test_a_rate_per_period_is_a_sum_and_a_rate_of_anything_else_is_not():
    priced = expectation("Tell me the hourly rate for a sound engineer.")
    assert priced is not None and priced.kind == "amount of money" and priced.heads == ("engineer",)
    for question in ("What flow rate does the shower head have?", "What pass rate does the theory test have?"):
        assert expectation(question) is None, question


def test_an_altitude_is_a_length_stated_above_the_sea():
    expected = expectation("What altitude is the mountain hut at?")
    assert expected is not None and expected.kind == "length"
    assert covers(expected, "The hut stands at 2,310 m above sea level.")
    assert not covers(expected, "The hut is 14 km from the nearest village.")


def test_wind_in_knots_or_by_force_is_a_speed():
    expected = expectation("From what wind speed on are sailing lessons stopped?")
    assert expected is not None
    assert covers(expected, "Sailing stops when the wind is over 18 knots.")
    assert covers(expected, "No sailing in wind of force 5 or more.")


def test_the_fastest_time_of_a_record_is_a_duration_not_a_speed():
    expected = expectation("The castle maze: what fastest time has been set so far?")
    assert expected is not None and expected.kind == "duration"


def test_how_many_litres_is_a_volume_in_any_of_its_units():
    expected = expectation("How many millilitres does the travel mug hold?")
    assert expected is not None and expected.kind == "volume"
    assert covers(expected, "Travel mug, 0.35 l, steel: 12 EUR")
    assert not covers(expected, "Travel mug, steel: 12 EUR")


def test_how_much_extra_is_a_supplement_given_as_a_sum_or_a_share():
    expected = expectation("How much extra does gift wrapping cost?")
    assert expected is not None and expected.kind == "amount or percentage" and expected.heads == ("wrapping",)
    assert covers(expected, "Gift wrapping adds 10 % to the price.")
    assert covers(expected, "Gift wrapping: 3 EUR per parcel.")


def test_people_are_counted_by_what_they_are_there_as_or_by_what_seats_them():
    expected = expectation("How many people can join one pottery class?")
    assert expected is not None and expected.counted == ("people",)
    assert covers(expected, "Each class takes at most 8 participants.")
    assert covers(expected, "The studio seats 14 at the wheel benches.")
    assert not covers(expected, "The studio was founded in 1987 by 3 potters.")


def test_what_it_costs_to_do_something_prices_the_thing_done():
    # "What will it cost to reserve a tandem?" named no focus, so any price on the page answered it.
    expected = expectation("What will it cost to reserve a tandem on the lake?")
    assert expected is not None and expected.kind == "amount of money" and expected.heads == ("tandem",)
    assert covers(expected, "Tandem hire: 30 EUR a day.")
    assert not covers(expected, "Canoe hire: 20 EUR a day.")
