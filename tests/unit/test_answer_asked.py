"""What a passage shows of what was asked: the attribute's words, the question's literal values (issue 33, round 6)."""

from __future__ import annotations

import pytest

from ragwire.answer.asked import asked, attribute_share, literals_held, telling


def test_the_words_after_the_wh_word_name_the_attribute_and_type_words_are_left_to_the_units():
    assert asked("What notice period applies after the first year?").words == ("notice", "period")
    assert asked("How hard is the tap water?").words == ("hard",)
    assert asked("If I bring a cat, what's the charge?").words == ()


def test_an_attribute_written_side_by_side_counts_more_than_its_words_apart():
    wanted = asked("What is the day maximum at the garage?")
    assert attribute_share(wanted, "Day maximum · price: 28.00") == 1.5
    assert attribute_share(wanted, "Open all day; maximum height 2 m") == 1.0
    assert attribute_share(wanted, "Evening rate · price: 6.00") == 0.0


@pytest.mark.parametrize(("question", "right", "wrong"), [
    ("When does the 10:50 bus from Alby arrive?", "Alby departs: 10:50 · Berg arrives: 11:35",
     "Alby departs: 18:50 · Berg arrives: 19:35"),
    ("How fast does group C ride?", "Group: C · Average speed: 22 km/h", "Group: A · Average speed: 30 km/h"),
    ("What does a berth cost for a 9 m boat?", "Boat length: 8.01 – 10 m · Fee: DKK 9.400",
     "Boat length: 10.01 – 12 m · Fee: DKK 12.800"),
    ("What is the late fee for a book 10 days overdue?", "8 to 30 days late: 60 kr.", "1 to 7 days late: 10 kr."),
    ("What is the fee for a third dog?", "Third dog: EUR 5 per night", "Second dog: EUR 8 per night"),
])
def test_a_literal_value_of_the_question_or_a_range_holding_it_tells_the_row_apart(question, right, wrong):
    wanted = asked(question)
    held = [literals_held(wanted, right), literals_held(wanted, wrong)]
    assert held[0] & telling(held) and not held[1] & telling(held)


def test_a_literal_every_passage_holds_tells_none_apart():
    assert telling([{"312"}, {"312"}, {"312", "b"}, set()]) == {"b"}


def test_a_weekday_picks_its_line_and_an_ordinal_counts_only_with_its_noun():
    wanted = asked("When is the library open on Saturdays?")
    assert literals_held(wanted, "Saturday 10:00 to 14:00.") == {"saturday"}
    assert not literals_held(wanted, "Closed on Sundays and public holidays.")
    wanted = asked("What notice applies after the first year of the lease?")
    assert not literals_held(wanted, "It cannot be ended during the first twelve months.")
    assert literals_held(asked("What is the fee for a second cat?"), "Second cat: EUR 8") == {"second cat"}


def test_the_attribute_follows_a_possessive_owner():
    assert asked("What was the patient's blood pressure at the visit?").words == ("blood", "pressure")


def test_where_asks_for_the_place_of_its_subject():
    assert asked("Where is the club's repair team based?").words == ("repair", "team")
