"""counts.other_count: a noun the question counts, quoted only for other counts (issue 33, round 20)."""

from __future__ import annotations

import pytest

from ragwire.answer.counts import other_count, value


@pytest.mark.parametrize(("number", "expected"), [("2", 2.0), ("two", 2.0), ("Double", 2.0), ("half", 0.5),
                                                   ("1,5", 1.5)])
def test_a_count_is_read_from_digits_number_words_and_row_words(number, expected):
    assert value(number) == expected


def test_a_joined_count_quoted_only_for_other_counts_is_named_with_the_quoted_one():
    quoted = ["Two-hour private session: 60 EUR", "Four-hour private session: 110 EUR"]
    assert other_count("How much is a three-hour private session?", quoted) == ("three-hour", "Two-hour")


def test_the_asked_count_quoted_beside_its_noun_in_digits_is_stated():
    assert other_count("How much is a three-hour session?", ["Sessions of 3 hours cost 80 EUR."]) is None


def test_a_range_of_counts_holds_the_asked_count():
    assert other_count("What does a four-week course cost?", ["Courses of 2 to 6 weeks cost 25 EUR a week."]) is None
    assert other_count("What does a four-week course cost?", ["Courses of 2–3 weeks cost 25 EUR a week."]) == (
        "four-week", "3 weeks")


def test_an_open_bound_holds_the_counts_on_its_side_only():
    assert other_count("Can I book a three-night stay?", ["Stays of up to 5 nights, 40 EUR a night."]) is None
    assert other_count("Can I book a seven-night stay?", ["Stays of up to 5 nights, 40 EUR a night."]) == (
        "seven-night", "5 nights")


def test_a_row_word_is_checked_against_row_words_only():
    assert other_count("A single room, at what nightly rate?", ["Double room with breakfast: 90 per night"]) == (
        "single room", "Double room")
    assert other_count("What does a single guest pass cost?", ["Household pass, 2 guests and 3 children: 40"]) is None


def test_a_noun_the_quotes_never_count_is_left_to_other_checks():
    assert other_count("How much is a three-day pass?", ["A pass for the weekend costs 30 EUR."]) is None
    assert other_count("How much is the pass?", ["Two-day pass: 30 EUR"]) is None
