"""What a passage shows of what was asked: the attribute's words, the question's literal values (issue 33, round 6)."""

from __future__ import annotations

import pytest

from ragwire.answer.asked import asked, attribute_share, literals_held, telling


def test_the_words_after_the_wh_word_name_the_attribute_and_type_words_are_left_to_the_units():
    assert asked("What trial period applies after the first order?").words == ("trial", "period")
    assert asked("How deep is the garden pond?").words == ("deep",)
    assert asked("If I bring a cat, what's the charge?").words == ()


def test_an_attribute_written_side_by_side_counts_more_than_its_words_apart():
    wanted = asked("What is the week maximum at the depot?")
    assert attribute_share(wanted, "Week maximum · price: 90.00") == 1.5
    assert attribute_share(wanted, "Open all week; maximum load 3 t") == 1.0
    assert attribute_share(wanted, "Weekend rate · price: 12.00") == 0.0


@pytest.mark.parametrize(("question", "right", "wrong"), [
    ("When does the 07:40 tram from Oakfield arrive?", "Oakfield departs: 07:40 · Millbrook arrives: 08:25",
     "Oakfield departs: 17:40 · Millbrook arrives: 18:25"),
    ("How fast does group C ride?", "Group: C · Average speed: 22 km/h", "Group: A · Average speed: 30 km/h"),
    ("What does a rack cost for a 6 m canoe?", "Canoe length: 5.01 – 7 m · Fee: EUR 185",
     "Canoe length: 7.01 – 9 m · Fee: EUR 230"),
    ("How much is the late fee for a game 12 days overdue?", "6 to 20 days late: 45 kr.", "1 to 5 days late: 10 kr."),
    ("What is the charge for a third rabbit?", "Third rabbit: EUR 4 per night", "Second rabbit: EUR 6 per night"),
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
    wanted = asked("What rate applies after the first month of the membership?")
    assert not literals_held(wanted, "It cannot be cancelled during the first four weeks.")
    assert literals_held(asked("What is the charge for a second rabbit?"), "Second rabbit: EUR 6") == {"second rabbit"}


def test_the_attribute_follows_a_possessive_owner():
    assert asked("What was the runner's resting pulse at the check-up?").words == ("resting", "pulse")


def test_where_asks_for_the_place_of_its_subject():
    assert asked("Where is the club's repair team based?").words == ("repair", "team")
