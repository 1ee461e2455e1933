"""A typed question's focus read by parts of speech (issue 33, round 11): the noun a passage must name, not the
adjective, adverb, verb or preposition beside it; units and the two senses of "long" as measures."""

from __future__ import annotations

import pytest

from ragwire.answer.coverage import covers
from ragwire.answer.expectations import expectation
from ragwire.answer.lexicon import lexicon


@pytest.mark.parametrize(("word", "part"), [
    ("cheese", "n"), ("passengers", "n"), ("comes", "v"), ("good", "a"), ("written", "a"), ("just", "r"),
    ("zzqx", None),
])
def test_the_lexicon_knows_the_part_of_speech_a_word_is_mostly_used_as(word, part):
    assert lexicon().usual_part(word) == part


@pytest.mark.parametrize(("question", "heads"), [
    # a closing adjective or adverb is said of the noun, it is not the noun
    ("How long is a gift voucher good for?", ("voucher",)),
    ("What is the fee for collecting a parcel late?", ("parcel",)),
    # a clause's subject is headed by its last noun before the verb, past the adjectives before it
    ("How tall must a zipline rider be?", ("rider",)),
    ("How long does a signed estimate from the workshop stay valid?", ("estimate",)),
    ("How much do summer interns pay for lunch?", ("interns", "lunch")),
    # a preposition ends the noun phrase, an irregular participle closes the clause
    ("What is the toll for a van through the mountain tunnel?", ("van",)),
    ("How cold are the chilled salads kept?", ("salads",)),
    ("How much is boat storage including a wash?", ("storage",)),
])
def test_the_focus_head_is_the_noun_of_the_phrase(question, heads):
    expected = expectation(question)
    assert expected is not None and expected.heads == heads


def test_an_obligation_times_its_act_not_the_people_bound_by_it():
    expected = expectation("How long do members have to renew their card?")
    assert expected is not None and expected.kind == "duration" and expected.heads == ("renew",)
    assert covers(expected, "Cards must be renewed within 30 days of expiry.")


def test_how_many_of_a_unit_asks_for_a_measure_in_any_of_its_units():
    expected = expectation("How many kilos of apples does a picker fill in an hour?")
    assert expected is not None and (expected.kind, expected.heads) == ("mass", ("apples",))
    assert covers(expected, "A picker fills about 90 kg of apples an hour.")
    assert not covers(expected, "A picker fills about 90 crates of apples an hour.")


def test_a_measure_heading_an_of_phrase_is_the_rate_not_the_focus():
    expected = expectation("What does a kilo of plums cost?")
    assert expected is not None and expected.heads == ("plums",)
    assert covers(expected, "Plums: 4.20 EUR per kg")


def test_how_long_is_a_thing_is_answered_by_a_length_or_a_duration():
    tunnel = expectation("How long is the harbour tunnel?")
    assert tunnel is not None
    assert covers(tunnel, "Tunnel length: 3.2 km")
    assert covers(tunnel, "Crossing the tunnel takes 4 minutes.")
    assert not covers(tunnel, "The tunnel toll is NOK 60.")


def test_how_far_is_any_length_no_other_dimension_is_named_for():
    expected = expectation("How far can a guest swim from the pier?")
    assert expected is not None and expected.kind == "length"
    assert covers(expected, "Guests may swim up to 300 m from the pier.")
    assert not covers(expected, "A guest diving from the pier must wait until it is 4 m deep.")
