"""Round 37 of issue 33: brand names written with a capital inside, and three splits of two-part questions."""

from __future__ import annotations


def test_a_word_with_a_capital_inside_is_a_name_wherever_it_stands() -> None:
    from ragwire.answer.evidence import names

    found = names("Can the kiosk repair a cracked eReader screen or a zPhone?", ["ereader", "screen", "zphone", "kiosk"])
    assert found == {"ereader", "zphone"}


def test_a_unit_in_capitals_and_a_lowercase_word_are_no_names() -> None:
    from ragwire.answer.evidence import names

    assert names("how much does the heater draw per hour?", ["heater", "hour"]) == set()


def test_two_codes_of_one_series_share_the_head_noun_the_second_names() -> None:
    from ragwire.answer.parts import split_parts

    parts = split_parts("Which is louder, the Z3 or the Z4 blender, and by how much?")
    assert parts == ["How loud is the Z3 blender?", "How loud is the Z4 blender?"]


def test_codes_of_two_series_do_not_share_a_head() -> None:
    from ragwire.answer.parts import _parallel

    assert _parallel("Z3", "Z4") and _parallel("b12", "b9")
    assert not _parallel("Z3", "K4") and not _parallel("Z3", "Z3")


def test_a_question_word_after_and_opens_a_second_question_not_a_second_subject() -> None:
    from ragwire.answer.parts import split_parts

    assert split_parts("What do lanterns cost at the night market and what's the opening time?") == [
        "What do lanterns cost at the night market?", "What's the opening time?"]


def test_two_subjects_of_one_verb_keep_the_place_after_the_verb() -> None:
    from ragwire.answer.parts import split_parts

    assert split_parts("What do a haircut and a shave cost at the barber?") == [
        "What does a haircut cost at the barber?", "What does a shave cost at the barber?"]
    assert split_parts("How much do members and guests pay per night?") == [
        "How much does members pay per night?", "How much does guests pay per night?"]
