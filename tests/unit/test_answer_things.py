"""Which absent words name things that must be grounded however light (issue 33, round 7)."""

from __future__ import annotations

from ragwire.answer.evidence import things


def test_a_qualifier_of_the_thing_asked_for_is_a_thing():
    assert things("How much is the rabies jab at the Oakfield clinic?", ["rabies"]) == {"rabies"}


def test_the_word_naming_what_is_asked_for_is_left_to_the_answer_type():
    assert things("What phone number should I dial to reserve a court?", ["number"]) == set()


def test_a_name_is_a_thing_and_a_verb_is_not():
    assert things("Is the Millbrook pool open on Whit Monday?", ["whit"]) == {"whit"}
    assert things("Can I hire a canoe at Oakfield?", ["hire"]) == set()
