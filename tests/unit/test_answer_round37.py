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

    assert split_parts("What do lanterns cost at the harbour fair and what's the opening time?") == [
        "What do lanterns cost at the harbour fair?", "What's the opening time?"]


def test_two_subjects_of_one_verb_keep_the_place_after_the_verb() -> None:
    from ragwire.answer.parts import split_parts

    assert split_parts("What do a haircut and a shave cost at the barber?") == [
        "What does a haircut cost at the barber?", "What does a shave cost at the barber?"]
    assert split_parts("How much do members and guests pay per night?") == [
        "How much does members pay per night?", "How much does guests pay per night?"]


def test_a_kind_the_focus_names_and_the_quote_never_states_objects() -> None:
    from ragwire.answer.siblings import unstated_modifier

    quoted = ["Item: Kayaks, paddles and vests · Adult: €31.00 · Child: €21.00 Equipment hire (per day)"]
    assert unstated_modifier("How much does it cost to hire sea-touring kayaks at Brightwater?", quoted) == (
        "sea-touring kayaks", "kayaks")


def test_a_word_the_lexicon_reads_as_a_verb_is_a_kind_after_a_determiner_and_the_act_after_to() -> None:
    from ragwire.answer.siblings import unstated_modifier

    assert unstated_modifier("What does a double hammock cost at the market?", ["Hammock, cotton: 40 zł"]) == (
        "double hammock", "hammock")
    assert unstated_modifier("What will it cost us to rent kayaks at the lake?", ["Kayaks: 12 € per hour"]) is None


def test_a_kind_the_quote_states_a_payer_or_a_size_is_no_unstated_kind() -> None:
    from ragwire.answer.siblings import unstated_modifier

    assert unstated_modifier("What does a cotton hammock cost?", ["Hammock, cotton: 40 zł"]) is None
    assert unstated_modifier("What does the zoo charge for an adult pass?", ["Pass: 9 €"]) is None
    assert unstated_modifier("What does the stall want for a large hammock?", ["Hammock: 40 zł"]) is None


def test_a_kind_the_quoted_file_names_elsewhere_is_no_unstated_kind() -> None:
    from ragwire.answer.siblings import unstated_modifier

    quoted = ["The permit costs 400 EUR a year and may be renewed once."]
    asked = "What does a kiosk permit cost per year?"
    assert unstated_modifier(asked, quoted) == ("kiosk permit", "permit")
    assert unstated_modifier(asked, quoted, mentioned=lambda word: word == "kiosk") is None


def test_an_unstated_kind_is_an_objection_the_decision_may_overrule() -> None:
    from ragwire.answer.decision import DECISIVE, FEATURES

    assert "modifier_unstated" in FEATURES and "modifier_unstated" not in DECISIVE


def test_a_kind_in_brackets_after_the_thing_names_the_pair() -> None:
    from ragwire.answer.pairs import pair_stated

    row = "Service: Boat wash and wax (premium) · Unit: per metre · Price: 12 EUR"
    assert pair_stated(("premium", "wash"), row)
    assert not pair_stated(("basic", "wash"), row)
    assert not pair_stated(("premium", "wash"), "Service: Boat wash · Unit: per metre (premium berths only: 12 EUR)")


def test_guests_are_counted_by_a_count_of_people() -> None:
    from ragwire.answer.coverage import covers
    from ragwire.answer.expectations import expectation

    expected = expectation("Up to how many guests may the boathouse hold?")
    assert expected is not None
    assert covers(expected, "Capacity: 60 people seated, 90 standing.")
    assert not covers(expected, "Hire: 60 EUR per evening, cleaning included.")


def test_the_time_of_an_event_the_clock_times_asks_a_time_of_day_with_the_event_its_focus() -> None:
    from ragwire.answer.expectations import expectation

    asked = expectation("What is the last boarding time at the north pier?")
    assert asked is not None and asked.kind == "time of day" and asked.heads == ("boarding",)
    assert expectation("What is the journey time to the north pier?") is None or \
        expectation("What is the journey time to the north pier?").kind != "time of day"  # type: ignore[union-attr]


def test_a_name_with_words_the_dictionary_lacks_is_mentioned_only_by_those() -> None:
    from ragwire.answer.elsewhere import distinctive

    assert distinctive(["te", "wairongoa", "thermal", "pools"]) == ["wairongoa"]
    assert distinctive(["harbour", "rowing", "club"]) == ["harbour", "rowing", "club"]


def test_two_hyphenated_modifiers_sharing_their_first_word_share_the_head() -> None:
    from ragwire.answer.parts import split_parts

    assert split_parts("Tell me the drop-off and drop-in fees at the creche") == [
        "What is the drop-off fees at the creche?", "What is the drop-in fees at the creche?"]
