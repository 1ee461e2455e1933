"""Round 33 (issue 33): "how old" and "what age" ask for an age.

Fails on round 32's code: such a question had no answer type, so a quote of a price or a date
answered "how old must a rider be".
"""

from __future__ import annotations

from ragwire.answer.coverage import covers
from ragwire.answer.expectations import expectation


def test_how_old_and_what_age_ask_for_an_age():
    for question in ("How old must a rider be for the pony trek?", "At what age may young singers enrol?"):
        asked = expectation(question)
        assert asked is not None and asked.kind == "age", question


def test_an_age_is_a_band_a_bound_or_a_number_of_years_and_a_price_or_a_time_is_none():
    asked = expectation("How old must a rider be for the pony trek?")
    assert asked is not None
    for text in ("Pony trek, riders aged 6 to 10", "Minimum age: 12", "Riders under 14 ride with an adult",
                 "Open to riders 16 and over", "Puppies from 12 weeks old", "Junior rate (U15): 8 EUR"):
        assert covers(asked, text), text
    for text in ("Pony trek, 50 minutes: 30 EUR", "The trek leaves at 10:00", "Information evening: 12 February 2027"):
        assert not covers(asked, text), text
