"""Ways a document says a question's word that the store's index does not see (issue 33, round 15), without a model."""

from __future__ import annotations

import pytest

from ragwire.answer.answerable import _JOINED
from ragwire.answer.asked import asked, in_cyclic_range, literals_held, with_unit
from ragwire.answer.coverage import covers
from ragwire.answer.ends import other_end_only
from ragwire.answer.evidence import absent_terms
from ragwire.answer.expectations import expectation
from ragwire.answer.pairs import asked_pair, pair_stated


class _Index:
    """A store index holding the given words (a term is absent unless listed)."""

    def __init__(self, *held: str) -> None:
        self.held = set(held)

    def documents_with(self, term: str, source: str | None = None) -> int:
        return 3 if term in self.held else 0

    def refresh(self) -> None:
        pass


def test_a_word_only_the_file_name_holds_is_not_absent():
    question = "Which day can the tile shop deliver?"
    index = _Index("day", "deliver")
    assert absent_terms(question, index) == ["tile", "shop"]
    assert absent_terms(question, index, files=["Brennan tile shop price list"]) == []


@pytest.mark.parametrize(("term", "text"), [
    ("Zurich", "Deliveries to Zürich cost 12 francs."),
    ("Malmo", "We ship to any address in Malmö for a flat fee."),
    ("website", "Book through our web site or by phone."),
    ("email", "Send an e-mail to the office."),
])
def test_a_word_written_with_accents_or_as_two_words_is_not_absent(term, text):
    question = f"Is {term} covered?"
    index = _Index("covered")
    assert absent_terms(question, index, [text]) == []
    assert absent_terms(question, index, ["Nothing here says it."]) == [term.lower()]


@pytest.mark.parametrize(("word", "text", "held"), [
    ("January", "Winter season: 1 October to 30 April", True),
    ("July", "Winter season: 1 October to 30 April", False),
    ("Wednesday", "Open Mon–Fri 9:00–17:00", True),
    ("saturdays", "Open Mon–Fri 9:00–17:00", False),
    ("January", "closed from Dec. to Feb.", True),
    ("June", "open from May 1st to September 30th", True),
])
def test_a_range_of_months_or_weekdays_holds_the_ones_between_its_ends(word, text, held):
    assert in_cyclic_range(word, text) is held


def test_a_month_inside_a_stated_range_is_not_absent():
    index = _Index("close", "garden")
    assert absent_terms("When does the garden close in January?", index, ["1 October to 30 April: 10:00–16:00"]) == []


@pytest.mark.parametrize(("token", "number", "unit"), [
    ("9-year-old", "9", "year"), ("3-day", "3", "day"), ("2.5-litre", "2.5", "litre"),
])
def test_a_number_joined_to_its_unit_reads_as_a_measure(token, number, unit):
    m = _JOINED.fullmatch(token)
    assert m is not None and (m.group(1), m.group(2)) == (number, unit)


def test_a_number_under_a_column_named_in_its_unit_is_in_that_unit():
    assert with_unit("300", "mbps", "plan: Fibre 300 · speed_mbps: 300 · price: 40 EUR")
    assert with_unit("16.5", "kg", "Weight (kg): 16.5")
    assert not with_unit("300", "mbps", "speed_mbps: 3000")
    assert not with_unit("300", "mbps", "price_eur: 300")


@pytest.mark.parametrize(("question", "text"), [
    ("What smallest order will the bakery deliver?", "Minimum order for delivery: 20 €."),
    ("What minimum order is there for online shopping?", "The smallest order we ship is 15 €."),
    ("What is the fewest riders per tour?", "The smallest group we take out is 4 riders."),
    ("What is the longest boat allowed in the marina?", "Boats may be no longer than 12 metres."),
    ("What lowest amount is charged per visit?", "Minimum charge per visit: 60 €."),
])
def test_a_pair_named_in_other_words_is_stated(question, text):
    pair = asked_pair(question)
    assert pair is not None and pair_stated(pair, text)


@pytest.mark.parametrize(("question", "text"), [
    ("What storage charge is there for kayaks?", "Kayaks kept past October pay a storage fee of 4 € a week."),
    ("What extra charge is there for Sunday work?", "Work booked for a Sunday carries a surcharge of 40 %."),
])
def test_a_charge_named_in_other_words_is_a_typed_sum_its_value_states(question, text):
    # Since round 27 "charge" names a sum: a fee or a surcharge of the thing answers it, as a pair once did.
    expected = expectation(question)
    assert expected is not None and expected.kind in ("amount of money", "amount or percentage")
    assert covers(expected, text)


@pytest.mark.parametrize(("question", "text"), [
    ("What oldest age is allowed on the glacier walk?", "Walkers from 12. Under-16s walk beside a parent."),
    ("What maximum number of diners is there per table?", "The smallest table we lay is for 4 diners."),
    ("What is the boiling point of the oil?", "The oil is heated to the point where it starts boiling."),
    ("What is the longest boat allowed in the marina?", "Boats shorter than 6 metres moor at the east pier."),
])
def test_a_pair_whose_other_end_or_apart_words_are_given_is_not_stated(question, text):
    pair = asked_pair(question)
    assert pair is not None and not pair_stated(pair, text)


@pytest.mark.parametrize(("question", "heads"), [
    ("How many stairs lead down to the cellar?", ("stairs",)),
    ("How many photos come with the portrait sitting?", ("photos",)),
    ("How often are the grading tests held at the dojo?", ("tests",)),
    ("How much is boat hire for a day?", ("hire", "day")),
])
def test_a_plural_noun_ends_the_focus_before_its_verb(question, heads):
    found = expectation(question)
    assert found is not None and found.heads == heads


@pytest.mark.parametrize(("question", "text", "literal", "held"), [
    ("What does lane hire cost on Sunday mornings?", "Lanes: 06:30 to 11:30 · Sunday: EUR 7", "morning", True),
    ("What does lane hire cost on Sunday mornings?", "Lanes: 13:00 to 17:00 · Sunday: EUR 9", "morning", False),
    ("What does lane hire cost on Tuesday evenings?", "Lanes: 18:30 to 21:30 · Tuesday: EUR 11", "evening", True),
    ("When does the evening choir meet?", "Evening choir rehearsal: 15:00 – 16:30", "evening", False),  # a choir's name
    ("When does the garden close in January?", "1 October to 30 April: 10:00–16:00", "january", True),
    ("When does the garden close in January?", "1 April to 31 October: 09:00–20:00", "january", False),
])
def test_a_part_of_the_day_or_a_month_picks_the_row_whose_range_holds_it(question, text, literal, held):
    assert (literal in literals_held(asked(question), text)) is held


@pytest.mark.parametrize(("question", "quoted", "found"), [
    ("Does the zipline set an upper age cap?", ["Zipliners must be aged 10 or over."], ("upper", "low")),
    ("Which is the thinnest board you plane?", ["Maximum board thickness for planing: 65 mm"], ("thinnest", "high")),
    ("How old may the oldest zipliner be?", ["Zipliners aged 10 to 70 may ride; maximum age 70."], None),
    ("Which is the cheapest cabin?", ["Bunk cabin: 80 EUR, maximum 1 sleeper"], None),  # a price's end is a price
    ("Which is the fewest diners you serve?", ["The smallest party we serve is 25 diners; up to 300 diners."], None),
    ("Does the zipline set an upper age cap?", ["Harnesses are lent free."], None),  # nothing bounds the age
])
def test_quotes_bounding_only_the_other_end_of_what_is_asked(question, quoted, found):
    assert other_end_only(question, quoted) == found


@pytest.mark.parametrize(("literal", "unit", "text", "held"), [
    ("20", "litre", "item: Cider keg · size: 20 l · price per day: 45 EUR", True),  # one unit, two spellings
    ("5", "kilos", "A box of 5 kg costs 12 EUR.", True),
    ("50", "cl", "A 100 cl jar costs £9; a 25 cl jar £3.50; 50 jars a crate.", False),
])
def test_a_number_in_a_unit_is_held_by_that_number_in_that_unit(literal, unit, text, held):
    assert with_unit(literal, unit, text) is held


def test_a_later_part_that_names_nothing_is_searched_where_the_first_is_set():
    from ragwire.answer.reference import search_query

    first = "What does a porter earn per day at Brenna?"
    assert search_query("How much is overtime pay?", first) == "How much is overtime pay? brenna"
    # a part naming its own place keeps it; a yes/no part is searched as asked
    assert search_query("What does the Oslo ferry cost?", first) == "What does the Oslo ferry cost?"
    assert search_query("Is there a cafe?", first) == "Is there a cafe?"


@pytest.mark.parametrize(("question", "text", "held"), [
    ("What does the public sauna cost?", "Norra Saunahouse: evening entry 130 kr", ("public", "cost", "house")),
    ("When can I collect the bike from the pick-up point?", "Harbour bike hire, pickup point at the quay",
     ("collect", "bike", "point")),
])
def test_a_word_written_in_a_closed_compound_or_without_its_hyphen_is_not_absent(question, text, held):
    index = _Index(*held)
    assert absent_terms(question, index, [text]) == []
    assert absent_terms(question, index, ["Nothing here says it."]) != []


def test_a_compound_whose_other_half_is_no_word_of_the_collection_does_not_hold_the_word():
    # "card" opens "cardigan", but "igan" is no word: a cardigan says nothing of cards.
    index = _Index("pay", "shop")
    assert absent_terms("Can I pay by card at the shop?", index, ["Wool cardigan: 45 EUR"]) == ["card"]


def test_a_hyphenated_word_a_file_name_writes_as_one_is_not_absent():
    index = _Index("tour", "cost")
    assert absent_terms("What does the e-bike tour cost?", index, files=["fjord ebike tours"]) == []
