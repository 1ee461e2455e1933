"""Round 32 (issue 33): another kind of day, a later one of several, a period ticket with no count, a currency.

Each fails on round 31's code: the weekday row answered a question about the weekend or a public
holiday; the price of one child answered for a second child; a "day ticket" answered for a
three-day ticket; an amount in rupees answered a question asking it in euros; the children's
row answered what a family pays; a title line answered "when is …".
"""

from __future__ import annotations

from ragwire.answer.counts import other_count, other_ordinal
from ragwire.answer.coverage import covers
from ragwire.answer.days import asked_day, other_day, other_day_text
from ragwire.answer.expectations import expectation
from ragwire.answer.instances import asked_currency
from ragwire.answer.siblings import quoted_sibling
from tests.conftest import WordEmbedding


def test_the_weekday_row_does_not_answer_for_the_weekend():
    quoted = ["Locker hire: weekdays 08:00-18:00 (SEK): 60"]
    assert other_day("What does locker hire cost at the weekend?", quoted) == ("weekend", "weekday")
    assert other_day_text("weekend", "weekday") == (
        "The documents do not say: the closest passages are about weekdays, not the weekend.")


def test_named_days_that_leave_out_the_asked_day_do_not_answer_for_it():
    assert other_day("When does the shop open on Tuesday?", ["Open Wed–Sat 10:00–17:00"]) == ("tuesday", "wednesday")
    assert other_day("Is the hall open on public holidays?", ["Hall: Monday to Friday 09:00–21:00"]) is not None


def test_a_day_is_answered_by_its_name_a_range_holding_it_or_a_word_for_every_day():
    assert other_day("When does the shop open on Thursday?", ["Open Wed–Sat 10:00–17:00"]) is None
    assert other_day("When does the shop open on Saturdays?", ["Sat 09:00-13:00"]) is None
    assert other_day("When does the shop open at the weekend?", ["Sunday: 11:00 to 15:00"]) is None
    assert other_day("When does the shop open on Sunday?", ["Open daily 07:00–21:00"]) is None
    assert other_day("What time does it open on a Sunday?", ["Weekends: from 10:00"]) is None
    assert other_day("What is the fee on a public holiday?", ["Public holidays as Sundays: 12 EUR"]) is None


def test_a_quote_naming_no_day_and_a_question_naming_two_are_left_alone():
    assert other_day("When does the shop open at the weekend?", ["The shop opens at 10:00."]) is None
    assert asked_day("Is it open on Saturday or Sunday?") is None
    assert asked_day("What is the weekday fare?") == "weekday"


def test_the_price_of_one_does_not_answer_for_a_second_one():
    quoted = ["Family class, one adult and one child: 40 EUR"]
    assert other_ordinal("What would a second child pay for the family class?", quoted) == (
        "second child", "one child")


def test_a_later_one_is_answered_by_its_ordinal_a_word_for_every_later_one_or_a_rate_per_one():
    question = "What would a second child pay for the family class?"
    assert other_ordinal(question, ["Discount for the 2nd child: 10 %"]) is None
    assert other_ordinal(question, ["Each additional child: 15 EUR"]) is None
    assert other_ordinal(question, ["Family class: 20 EUR per child"]) is None
    assert other_ordinal("How many litres per second does the pump move?", ["Pump: 12 litres"]) is None


def test_a_period_naming_a_ticket_without_a_count_is_one_period():
    quoted = ["Grandstand day ticket: 35 EUR"]
    assert other_count("What is a three-day grandstand ticket?", quoted) == ("three-day", "day ticket")
    assert other_count("What is a one-day grandstand ticket?", quoted) is None
    assert other_count("How much is a 2-day grandstand ticket?", ["2-day ticket: 60 EUR, day ticket 35 EUR"]) is None


def test_an_amount_asked_in_a_currency_is_answered_only_by_an_amount_in_it():
    asked = asked_currency("What does a guide earn per day in euros?")
    assert asked is not None and asked[0] == "euros"
    pattern = asked[1]
    assert not pattern.search("Daily wage (NPR): Rs 3,600 · Daily wage (USD): US$27")
    assert pattern.search("Daily wage: 25 €") and pattern.search("Daily wage: EUR 25")
    assert pattern.search("Rate (EUR): 25")


def test_a_qualified_dollar_is_that_countrys_and_a_bare_dollar_sign_any_dollar():
    us = asked_currency("What is the workshop in US dollars?")
    assert us is not None
    assert not us[1].search("Half-day workshop: A$80") and us[1].search("Half-day workshop: $80")
    assert asked_currency("How much is it in dollars?")[1].search("Half-day workshop: A$80")


def test_a_phrase_with_in_that_names_no_currency_asks_for_none():
    assert asked_currency("What do I pay in cash?") is None
    assert asked_currency("What is the fee in total?") is None
    assert asked_currency("How much is it in kroner?")[1].search("Entry: 250 kr")


def test_a_family_and_a_couple_are_payers_of_their_own_rows():
    found = quoted_sibling("What does a family pay for the season pass?", ["Season pass: adults €90, children €45"],
                           WordEmbedding())
    assert found is not None and found[0] == "family" and found[1] in {"adults", "children"}
    assert quoted_sibling("What does a couple pay for the season pass?", ["Season pass for couples: €160"],
                          WordEmbedding()) is None


def test_when_asks_for_a_time_of_some_kind_and_a_title_gives_none():
    asked = expectation("When does the depot close for its midday pause?")
    assert asked is not None and asked.kind == "date or time"
    assert covers(asked, "Lunch break: 12:30 to 13:15")
    assert covers(asked, "Closed for lunch on Saturdays")
    assert covers(asked, "The surcharge applies when the lift is out of order")
    assert not covers(asked, "Bus depot - notice to passengers 2027")
    assert not covers(asked, "Call the depot on 0161 496 0000")
