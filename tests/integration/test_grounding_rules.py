"""Grounding rules of the extractive answerer added after the second development set (issue 33), on a corpus of our own.

Each test failed before these rules: a name the documents never use grounded by
another name of its kind (a country by a neighbouring country); a question naming
its unit answered with another quantity; a plural answer-type word ("temperatures")
refused as a word no document uses; a length asked as a "radius" answered with a
speed; a number joined to its unit ("12-month") not found as "12 months"; an
unrecognised answer-type word ("height") left unchecked; a two-part question
answered single-shot as one; "Compare X with Y" and "Tell me X and its Y" left
unsplit; a confidence that was the share of cited sentences (always 1.0).
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire
from ragwire.answer.calibration import CALIBRATION

from .helpers import cited_files, ingested

DOCS = {
    "scooter-manual.md": """# Vela S2 e-scooter manual

## Riding

The Vela S2 reaches 25 km per hour on flat ground. Riders must be at least 14 years old.

## Specifications

The maximum rider weight is 100 kg. The Vela S2 itself weighs 14 kg without its bag.
The battery is rated for -10 °C to 45 °C and charges from a 230 V socket.

## Service

Our workshop in Bergen repairs scooters for customers in Norway and Sweden.
""",
    "scooter-prices.md": """# Vela prices

A season pass valid for 12 months costs NOK 1450.
A spare tyre costs NOK 320. A phone holder costs 150 kroner.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("grounding"), DOCS)


def test_a_name_no_document_uses_is_not_grounded_by_another_name_of_its_kind(rag):
    answer = rag.query("Who repairs Vela scooters in Denmark?")
    assert answer.refused, answer.text
    assert "Denmark" in answer.text


def test_a_question_naming_its_unit_is_not_answered_with_another_quantity(rag):
    answer = rag.query("What is the capacity of the Vela S2 battery in watt-hours?")
    assert answer.refused, answer.text


def test_a_plural_answer_type_word_is_answered_by_a_value_of_that_type(rag):
    answer = rag.query("What temperatures is the Vela S2 battery rated for?")
    assert answer, answer.text
    assert "45 °C" in answer.text


def test_a_radius_is_a_length_not_a_speed(rag):
    answer = rag.query("What is the turning radius of the Vela S2?")
    assert answer.refused, answer.text


def test_a_number_joined_to_its_unit_is_found_written_apart(rag):
    answer = rag.query("What does the 12-month season pass cost?")
    assert answer, answer.text
    assert "NOK 1450" in answer.text and cited_files(answer) == {"scooter-prices.md"}


def test_an_unrecognised_answer_type_word_must_be_grounded(rag):
    answer = rag.query("What is the Vela S2's height?")
    assert answer.refused, answer.text


def test_a_two_part_question_is_answered_part_by_part_without_refine(rag):
    answer = rag.query("How much does the Vela S2 weigh, and in which city is the workshop?")
    assert answer, answer.text
    # each part answered from its own quotes, or named as not covered by the one search's chunks
    assert "14 kg" in answer.text
    assert "Bergen" in answer.text or "In which city is the workshop?\nThe documents do not cover this part" in answer.text


def test_compare_x_with_y_answers_both_sides(rag):
    answer = rag.query("Compare the price of a spare tyre with the price of a phone holder.", refine=True)
    assert answer, answer.text
    assert "NOK 320" in answer.text and "150 kroner" in answer.text


def test_an_uncovered_part_is_named_not_filled(rag):
    answer = rag.query("Tell me the Vela S2's weight and its height.", refine=True)
    assert answer, answer.text
    assert "14 kg" in answer.text and "do not cover this part" in answer.text


def test_confidence_is_read_from_the_calibration_table(rag):
    answer = rag.query("What does a spare tyre cost?")
    assert answer, answer.text
    assert answer.confidence in {c for _, c in CALIBRATION}
