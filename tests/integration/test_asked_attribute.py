"""The attribute a question asks for must be what the quote states (issue 33, round 3), on the real store and model.

Each test guards a failure of the extractive answerer before round 3: a table row whose
column name carries the unit ("weight_kg: 12.4") not read as a weight, price or duration;
a product named in the question answered with another product sharing its last word; a
"how many" question answered by a number that counts something else; a length of another
dimension quoted for a turning radius; an attribute no document names ("which languages")
answered with a near-topic passage.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "bike-list.csv": """model,category,price_eur,weight_kg,warranty_years
Trail 3,bicycle,820,12.4,4
Falcon Pro,bicycle,1450,8.9,5
Tow bar,accessory,35,1.2,
""",
    "notes-app.md": """# Notes app pricing

Notes Pro costs 39 euros per year for each user.
""",
    "hostel.md": """# Harbour hostel

Beds in dorms 1 and 2 are bunk beds; dorm 3 has single beds.
Breakfast is served from 7:00 to 10:00 in the courtyard.
Guided walks leave the hostel at 9:30 every morning, and the guides know the old town well.

## Shuttle van

The shuttle van is 5.2 m long and seats eight passengers.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("asked"), DOCS)


@pytest.mark.parametrize(("question", "value"), [
    ("How heavy is the Trail 3?", "12.4"),
    ("How many years of warranty does the Trail 3 have?", "warranty_years: 4"),
])
def test_a_table_value_under_a_column_naming_its_unit_answers_the_typed_question(rag, question, value):
    answer = rag.query(question)
    assert answer, answer.text
    assert value in answer.text and cited_files(answer) == {"bike-list.csv"}


def test_a_product_named_in_the_question_is_not_answered_with_another_sharing_its_last_word(rag):
    answer = rag.query("How much does the Falcon Pro cost?")
    assert answer, answer.text
    assert "1450" in answer.text and "39 euros" not in answer.text


def test_how_many_wants_a_number_that_counts_the_asked_noun(rag):
    answer = rag.query("How many beds does the hostel have?")
    assert answer.refused, answer.text


def test_a_length_of_another_dimension_does_not_answer_a_turning_radius(rag):
    answer = rag.query("What is the turning radius of the shuttle van?")
    assert answer.refused, answer.text


def test_the_attribute_asked_for_that_no_document_names_is_refused_by_name(rag):
    answer = rag.query("Which languages do the hostel guides leading the morning walks speak?")
    assert answer.refused, answer.text
    assert "'languages'" in answer.text
