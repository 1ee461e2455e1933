"""Round 30 (issue 33): numbered instances, starting prices, counts asked for, kinds named by payers, "What's".

Each fails on round 29's code: a passage about "Stage 2" answered for "Stage 5"; "from 40 EUR" answered what a
repair costs at most; the two-person row answered for five people; "adult sessions" and "a glass-bottom boat" were
answered from other kinds' rows; "What's the fee…" had no answer type; the place a fee is charged at, or the unit
it is charged per, was read as what it is for; a number of minutes under a price heading counted as a price; "the
latest time" was no clock time; "who runs A, as well as B" asked "What is B?".
"""

from __future__ import annotations

from ragwire.answer.counts import other_count
from ragwire.answer.coverage import covers
from ragwire.answer.ends import ends, other_end_only
from ragwire.answer.expectations import expectation
from ragwire.answer.labels import other_instance
from ragwire.answer.parts import split_parts
from ragwire.answer.siblings import other_modifier


def _never(_: str) -> bool:
    return False


def test_a_numbered_instance_is_not_answered_by_another_of_its_series():
    quoted = ["Stage 2 of the relay starts at the old mill; runners hand over at the bridge."]
    assert other_instance("Where does Stage 5 of the relay start?", quoted) == ("Stage 5", "stage 2")


def test_a_numbered_instance_is_answered_by_its_own_code_a_list_or_a_span_holding_it():
    assert other_instance("Where does Stage 5 start?", ["Stages 2 and 5 start at the old mill."]) is None
    assert other_instance("How long is Module 3?", ["Modules 1–4: six weeks each."]) is None
    assert other_instance("What does Plot B7 cost?", ["plot: B7 · rent: 120 EUR"]) is None


def test_a_code_in_a_files_name_names_the_instance_the_file_is_about():
    quoted = ["Fees are due before the first session.", "riverside season4 notice"]
    assert other_instance("When does Season 6 begin?", quoted) == ("Season 6", "season 4")


def test_a_number_before_a_unit_or_after_an_age_is_no_code():
    assert other_instance("What is the fare to a stop 12 km away?", ["stop 3: 2 EUR"]) is None
    assert other_instance("What can a child of age 9 do?", ["age 12 and over: climbing wall"]) is None
    assert other_instance("Where does the walk meet?", ["Walk 3 meets at the gate."]) is None


def test_a_price_given_from_an_amount_bounds_only_its_low_end():
    assert ends("Engine service: from 40 EUR per hour") == {"low"}
    assert ends("Engine service: from 40 EUR to 90 EUR") == set()
    assert ends("Open from 10:00 to 16:00") == set()
    quoted = ["Engine service: from 40 EUR per hour"]
    assert other_end_only("Tell me the highest price for an engine service.", quoted) == ("highest", "low")
    assert other_end_only("Tell me the lowest price for an engine service.", quoted) is None


def test_a_count_a_thing_is_asked_for_is_not_answered_by_another_rows_count():
    quoted = ["Boat tour, 1 h (4 people): 120 EUR"]
    assert other_count("What does a boat tour for six people cost?", quoted) == ("six people", "4 people")
    assert other_count("What does a boat tour for four people cost?", quoted) is None
    # A rate per person answers any number of them.
    assert other_count("What does a boat tour for six people cost?", ["Boat tour: 30 EUR per person"]) is None


def test_a_payer_or_a_hyphenated_word_before_a_noun_names_a_kind_of_it():
    quoted = ["Morning sessions (beginners, improvers): 90 EUR for the term"]
    assert other_modifier("How much do adult sessions cost?", quoted, _never) == ("adult sessions",
                                                                                    "morning sessions")
    boats = ["Rowing boat hire: 25 EUR per hour"]
    assert other_modifier("What does glass-bottom boat hire cost?", boats, _never) == ("glass-bottom boat",
                                                                                      "rowing boat")
    # A size stays with the checks of scales, and a kind the quoted file mentions is not another kind.
    assert other_modifier("What does small boat hire cost?", boats, _never) is None
    assert other_modifier("What does glass-bottom boat hire cost?", boats, lambda word: True) is None


def test_a_contracted_wh_word_asks_what_the_written_out_one_does():
    for contracted in ("What's the mooring fee for a dinghy?", "What’s the mooring fee for a dinghy?"):
        assert expectation(contracted) == expectation("What is the mooring fee for a dinghy?")
    # A fee may be a share of the price (round 34), so it asks for an amount or a percentage.
    assert expectation("What's the mooring fee for a dinghy?").kind == "amount or percentage"


def test_where_a_fee_is_charged_or_what_it_is_charged_per_is_not_what_it_is_for():
    assert expectation("What is the berth fee per metre at the marina?").heads == ("berth", "metre")
    assert expectation("What is the lost key fee at the town hall?").focus == "lost key"
    # A time after "at" says when, not where: the focus stays what follows.
    assert expectation("What is the sauna entry fee at the weekend?").focus == "weekend"
    assert expectation("Which price per metre applies to rope?").focus != "price"


def test_a_cancellation_charge_may_be_a_share_of_the_price():
    assert expectation("What do you charge for a cancellation made on the day?").kind == "amount or percentage"


def test_what_someone_is_charged_for_is_the_focus_not_who_charges():
    assert expectation("How much does the harbour charge for lifting a boat out?").focus == "lifting a boat"


def test_the_latest_or_earliest_time_asks_for_a_clock_time():
    assert expectation("Tell me the latest time we can board the river cruise.").kind == "time of day"


def test_a_verb_after_the_counted_noun_is_not_counted():
    assert expectation("How many walkers arrive at the hut each evening?").counted == ("walkers",)


def test_a_verb_forms_infinitive_leads_to_its_object():
    assert expectation("What is the cost of learning to sail a dinghy?").heads == ("dinghy",)


def test_a_number_of_another_measure_under_a_price_heading_is_no_price():
    expected = expectation("What is the charge for a mislaid key?")
    assert not covers(expected, "Keys must be returned within 30 minutes of the end of the slot.",
                      "Prices and fees | lost key")
    assert covers(expected, "Lost key: 25", "Prices and fees | lost key")


def test_a_noun_phrase_after_a_who_question_is_asked_by_the_same_verb():
    assert split_parts("Who runs the ferry kiosk, as well as the harbour sauna?") == [
        "Who runs the ferry kiosk?", "Who runs the harbour sauna?"]
    assert split_parts("Who is the skipper, as well as the crossing fare for a dog?")[1] == (
        "What is the crossing fare for a dog?")
