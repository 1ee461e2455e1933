"""A yes/no question about a thing no document names is refused (issue 33, round 14).

"Does the shop sell X?" asks whether X exists there.  Over documents that name X nowhere, the
nearest passages talk about the shop's other goods; before round 14 a light absent word (a
qualifier, or the object of a long question) was read as wording and one of those passages came
back as the answer.  A thing said in the documents' own words (a lock for a padlock, children for
kids) is still answered.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "harbour-cycles.md": """# Harbour Cycles workshop

## Services

We service road bikes, city bikes and electric bikes at our workshop on Quay Street.
A basic service costs EUR 45 and takes one working day. A full service costs EUR 90.
Puncture repair costs EUR 12 while you wait.

## Opening hours

The workshop is open Monday to Friday from 08:00 to 18:00 and on Saturday from 09:30 to 14:00.
""",
    "harbour-cycles-rental.md": """# Harbour Cycles rental

A city bike costs EUR 20 per day and an electric bike EUR 40 per day. Helmets and locks are included.
Children's bikes are available for riders from six years of age. Bikes must be back by 18:00.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("unnamed-things"), DOCS)


def test_a_yes_no_question_about_goods_no_document_names_is_refused_naming_them(rag) -> None:
    answer = rag.query("Does Harbour Cycles sell gift vouchers?")
    assert answer.refused, answer.text
    assert "'gift'" in answer.text and "'vouchers'" in answer.text


def test_a_light_qualifier_of_a_named_thing_is_still_a_thing(rag) -> None:
    answer = rag.query("Does Harbour Cycles sell second-hand bikes?")
    assert answer.refused, answer.text
    assert "second-hand" in answer.text


def test_a_thing_said_in_the_documents_words_is_answered(rag) -> None:
    answer = rag.query("Is a padlock included with a rental bike?")
    assert not answer.refused, answer.text
    assert "locks are included" in answer.text and cited_files(answer) == {"harbour-cycles-rental.md"}


def test_a_synonym_of_the_thing_asked_about_is_answered(rag) -> None:
    answer = rag.query("Can I hire a bicycle for my kid at Harbour Cycles?")
    assert not answer.refused, answer.text
    assert "six years" in answer.text
