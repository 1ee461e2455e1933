"""A later part that refers back ("it", "they", an anaphoric "there") is searched with the first part's topic words."""

from __future__ import annotations

import pytest

from ragwire.answer.reference import refers_back, search_query, topic_words


@pytest.mark.parametrize("part", ["When do they open?", "How many people does it seat?",
                                  "What does a double room cost there?", "Is their kitchen shared?",
                                  "Can I park there, and is there a charger?"])
def test_a_pronoun_or_a_place_there_refers_back(part):
    assert refers_back(part)


@pytest.mark.parametrize("part", ["Is there a lift at the depot?", "Are there showers?", "There is a lift, right?",
                                  "What does the ferry cost?", "How much is a ticket for itinerary B?"])
def test_an_existential_there_or_a_part_naming_its_subject_does_not(part):
    assert not refers_back(part)


def test_the_topic_is_the_object_after_of_for_at_in_or_on_else_every_content_word():
    assert topic_words("Tell me the hourly charge of the Larch studio.") == ["larch", "studio"]
    assert topic_words("When are the pottery classes held?") == ["pottery", "classes", "held"]
    assert topic_words("What time is breakfast at the Lodge?") == ["lodge"]


def test_a_referring_part_is_searched_with_the_topic_words_it_lacks_and_the_others_as_written():
    first = "Tell me the hourly charge of the Larch studio."
    assert search_query("How many people does it seat?", first) == "How many people does it seat? larch studio"
    assert search_query("Is the Larch studio heated?", first) == "Is the Larch studio heated?"
    assert search_query("Is there a lift?", first) == "Is there a lift?"
    assert search_query(first, first) == first


def test_a_possessive_after_a_noun_phrase_of_its_own_part_refers_to_that_phrase():
    assert not refers_back("What usually makes the pump lose its prime?")
    assert not refers_back("Does Acme ship to their customers abroad?")
    assert refers_back("When do their gates close?")
