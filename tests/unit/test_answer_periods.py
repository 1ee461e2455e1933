"""A rate's period (periods.py) and the kinds of one thing named by a modifier or a payer (siblings.py)."""

from __future__ import annotations

import pytest

from ragwire.answer.objections import unquoted_weight
from ragwire.answer.periods import asked_period, names_period, other_period
from ragwire.answer.siblings import other_compound, quoted_sibling
from ragwire.answer.text import words

from .test_extractive import WordEmbedding


@pytest.mark.parametrize(("question", "period"), [
    ("What does the annual membership cost?", "year"),
    ("How much is a berth for a whole week?", "week"),
    ("What is the nightly rate for a cabin?", "night"),
    ("What does a kayak cost per hour?", "hour"),
    ("How much is a week's hire of the van?", "week"),
    ("What does a kayak cost?", None),
    ("Is it cheaper per night or per week?", None),  # two periods asked: no one of them
])
def test_the_period_a_rate_is_asked_for_is_read_from_the_question(question, period):
    assert asked_period(question) == period


@pytest.mark.parametrize(("period", "text"), [
    ("year", "Membership: €120, valid for 12 months"),
    ("day", "Lockers: €5 per 24 hours"),
    ("day", "Full-day trip: €80"),
    ("night", "Cabins sleep four; €90 overnight"),
    ("year", "Paid annually by direct debit"),
])
def test_a_period_is_named_in_any_of_its_forms(period, text):
    assert names_period(period, text)


def test_a_quote_pricing_per_another_period_does_not_answer_the_asked_one():
    assert other_period("What does the yearly studio plan cost?",
                        ["Plan: Studio (monthly) · Price: €70 · Access: weekdays"]) == ("year", "month")
    assert other_period("What does a caravan pitch cost for a whole week?",
                        ["Caravan pitches: €27 a night, huts €64 a night."]) == ("week", "night")


@pytest.mark.parametrize(("question", "quoted"), [
    # the asked period is named, whatever else is
    ("What does the annual plan cost?", ["Monthly: €12; annual: €120"]),
    ("How much is a locker for a day?", ["Lockers: €5 per 24 hours, €20 a week"]),
    # a period said apart from any amount prices nothing
    ("What is the monthly fee?", ["The gym stays open 24 hours a day.", "Membership: €31."]),
    # a rate per no period at all may be the answer
    ("What does the yearly pass cost?", ["Pass: €45, for residents only"]),
])
def test_no_other_period_is_found_when_the_quotes_name_the_asked_one_or_price_per_none(question, quoted):
    assert other_period(question, quoted) is None


def _tokens(*quoted: str) -> list[str]:
    return [w for text in quoted for w in [*words(text), ""]]


@pytest.mark.parametrize(("term", "quoted", "other"), [
    ("hand-knitted", ["Scarf, machine-knitted wool: €38"], "machine-knitted"),
    ("dry-aged", ["Sirloin steak, wet aged: €31"], "wet aged"),
    ("half-day", ["Full-day tour: €80"], "full-day"),
    ("non-dairy", ["Dairy ice cream: €3 a scoop"], "dairy"),
])
def test_a_compound_quoted_only_with_another_modifier_is_another_kind(term, quoted, other):
    assert other_compound(term, _tokens(*quoted)) == other


@pytest.mark.parametrize(("term", "quoted"), [
    ("half-day", ["Half day tour: €40"]),
    ("half-day", ["Half-day tour: €40"]),
    ("wi-fi", ["Free wifi in every room"]),
    ("e-bike", ["City bikes: €15 a day"]),  # a one-letter modifier is no word of its own
])
def test_a_compound_the_quotes_name_in_any_spelling_has_no_other_kind(term, quoted):
    assert other_compound(term, _tokens(*quoted)) is None


def test_a_payer_the_quotes_name_otherwise_is_no_other_kind():
    # Price lists name non-members "guests" or "visitors" beside the members' row.
    assert other_compound("non-members", _tokens("Members: €12 · Guests: €17")) is None


def test_a_speed_in_km_per_hour_is_no_hourly_rate():
    assert other_period("What is the daily rate for an e-scooter?",
                        ["E-scooter rental: €15, top speed 23 km/h"]) is None


def test_the_heaviest_word_the_quotes_leave_out_weighs_in_the_decision():
    question = "What does the studio plan cost for students?"
    said = unquoted_weight(question, ["The studio plan costs students €50."], WordEmbedding())
    left_out = unquoted_weight(question, ["The studio plan costs €70 a month."], WordEmbedding())
    assert said == 0.0
    assert left_out > 0.0
    # A word the lexicon says stands for the asked one is no word left out.
    assert unquoted_weight("How long is the guarantee on the kettle?", ["The kettle's warranty runs three years."],
                           WordEmbedding()) == 0.0


def test_payers_of_one_row_are_no_siblings_and_payers_of_two_are():
    # A kid is a child: the children's row answers the kids' question; a student's fee is no adult's or junior's.
    assert quoted_sibling("What do kids pay on the harbour tour?", ["Harbour tour: adults €14, children €7"],
                          WordEmbedding()) is None
    assert quoted_sibling("What do students pay for the induction?",
                          ["Adults pay CA$40 for the induction; juniors under 16 pay CA$20."],
                          WordEmbedding()) == ("students", "adults")


def test_a_column_named_per_a_period_gives_the_rate_its_period():
    # Round 27: "price_per_day" named no period, so a weekly rate was quoted from the day's column.
    assert other_period("How much is the camper van's weekly rate?", ["item: camper van · price_per_day: 90 EUR"]) == (
        "week", "day")


def test_the_weekend_is_a_rate_period_only_before_what_is_priced():
    assert other_period("How much is the sauna hut's weekend rate?", ["Sauna hut: 40 EUR per evening, 15 EUR a day"]) \
        == ("weekend", "day")
    assert other_period("How much is the sauna hut's weekend rate?", ["Sauna hut, Sat–Sun: 70 EUR"]) is None
    assert other_period("How much is a canoe at the weekend?", ["Canoe: 20 EUR per hour"]) is None


def test_a_column_naming_its_currency_and_period_prices_per_that_period():
    # "Per hour (zł): 90" is a rate per hour though no currency stands beside the number.
    assert other_period("What does a meeting room cost per month?", ["Room: Dock · Per hour (zł): 90 · Full day (zł): 600"]) \
        == ("month", "hour")


class _Kin:
    """Word vectors in which a few words are near each other, as the real model puts them; the rest are apart."""

    NEAR = {"dates": 0, "june": 0, "pine": 1, "birch": 1}

    def _vector(self, text: str) -> list[float]:
        out = [0.0] * 64
        for word in words(text):
            slot = self.NEAR.get(word, 2 + sum(map(ord, word)) % 62)
            out[slot] += 1.0
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]


def test_a_value_on_a_scale_gives_what_a_word_of_time_asks_and_is_no_sibling_of_it():
    # "June" is a kin of "dates" in WordNet and near it in the embedding, but it is the answer, not another row.
    assert quoted_sibling("The mountain hut is staffed between which dates?",
                          ["Staffed from 3 July to 12 September"], _Kin()) is None
    # Two things of one kind still are siblings.
    assert quoted_sibling("What does a pine board cost?", ["Birch board: 12 EUR"], _Kin()) == ("pine", "birch")
