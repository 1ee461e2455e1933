"""Grounding rules of the extractive answerer added in issue 33's fifth round, on a corpus of our own.

Each test guards a failure seen across the development sets: a thing no document names
(an animal, a vehicle) answered with a passage about another thing of its kind, which
the embedding puts about as near as a synonym; an attribute asked for by two words
("spending cap") answered with a passage that says each word apart; a value asked in a
unit no document uses (Fahrenheit) answered in another unit of its dimension;
and a duration refused because the question's "someone" or a verb's particle ("the
drive back") was read as a noun the passage must name.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "grooming.md": """# Paws Corner grooming

## Prices

A full wash and dry for a dog costs EUR 35. A brush-out for a cat costs EUR 20.
Nail clipping for a rabbit costs EUR 8.

## Booking

Book a grooming slot at the counter or by phone; a slot lasts about an hour.
The groomer waits 15 minutes for a late customer; after that the slot goes to the next pet.
""",
    "aquarium-care.md": """# Paws Corner aquarium care

The tropical aquariums in the shop are kept at 25 °C. The water is changed every Monday.
""",
    "pet-taxi.md": """# Paws Corner pet taxi

Our pet taxi collects pets from their homes. The drive from the kennels to the shop takes 20 minutes.
""",
    "loyalty-card.md": """# Paws Corner loyalty card

The loyalty card gives members 5 % off all spending in the shop. We accept cash and all major credit cards.
A free cap and collar set comes with every tenth purchase. The card is free and never expires.
""",
    "warranty.md": """# Paws Corner aquarium warranty

Every aquarium pump we sell carries a warranty of two years from the date of purchase.
Keep the receipt: the warranty is honoured on presentation of it.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("kinds"), DOCS)


def test_a_thing_no_document_names_is_not_grounded_by_another_of_its_kind(rag):
    # The price list names dogs, cats and rabbits; a hamster is near all three, none stands out.
    answer = rag.query("How much does a wash cost for a hamster at Paws Corner?")
    assert answer.refused, answer.text
    assert "'hamster'" in answer.text


def test_a_synonym_that_stands_out_still_grounds_the_noun(rag):
    answer = rag.query("Is an aquarium pump covered by a guarantee?")
    assert answer, answer.text
    assert "two years" in answer.text and cited_files(answer) == {"warranty.md"}


def test_an_attribute_named_by_two_words_is_refused_when_no_document_names_the_pair(rag):
    # "spending" and "cap" are both in the loyalty card's text, never side by side.
    answer = rag.query("What is the spending cap on the Paws Corner loyalty card?")
    assert answer.refused, answer.text
    assert "'spending cap'" in answer.text


def test_an_attribute_named_by_two_words_is_answered_when_a_document_names_them(rag):
    answer = rag.query("Which credit cards does Paws Corner accept?")
    assert answer, answer.text
    assert "major credit cards" in answer.text and cited_files(answer) == {"loyalty-card.md"}


def test_a_value_asked_in_a_unit_no_document_uses_is_refused(rag):
    answer = rag.query("Which temperature in Fahrenheit do the shop's tropical aquariums need?")
    assert answer.refused, answer.text
    assert "fahrenheit" in answer.text.lower()


def test_someone_in_a_duration_question_names_no_one_the_passage_must_mention(rag):
    answer = rag.query("How long does the groomer wait for someone who is late?")
    assert answer, answer.text
    assert "15 minutes" in answer.text and cited_files(answer) == {"grooming.md"}


def test_a_verbs_particle_is_not_a_noun_the_passage_must_name(rag):
    answer = rag.query("How long is the drive back from the kennels?")
    assert answer, answer.text
    assert "20 minutes" in answer.text and cited_files(answer) == {"pet-taxi.md"}
