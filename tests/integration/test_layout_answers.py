"""Answers from terms and price lists as plain-text files print them: numbered clauses, dot leaders, bare lists.

A real collection (packaged MiniLM, embedded engine).  Each file keeps its facts on lines without final
punctuation, which a reading of the text as wrapped prose joins into one passage quoted whole or not at all.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ragwire import RAGWire

from .helpers import ingested

FILES = {
    "climbing_wall_terms.txt": (
        "GRANITE HALL CLIMBING WALL - MEMBERSHIP TERMS\n\n"
        "1. Membership\n"
        "1.1 A membership runs from the first visit and renews every month\n"
        "1.2 The monthly fee for adults is 64 EUR\n"
        "1.3 The monthly fee for students is 49 EUR\n"
        "2. Courses\n"
        "2.1 The belay course lasts 3 hours and is held on Saturday mornings\n"
        "2.2 The lead climbing course lasts 6 hours over two evenings\n"),
    "ferry_fares.txt": (
        "ISLAND FERRY FARES 2027\n\n"
        "Adult single ........................ 7,40 EUR\n"
        "Bicycle ...............ccceeeees 3,00 EUR\n"
        "Car up to 5 m .................... 38,00 EUR\n"),
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> Iterator[RAGWire]:
    with ingested(tmp_path_factory.mktemp("layout-answers"), FILES) as rag:
        yield rag


def test_a_numbered_clause_without_a_full_stop_is_quoted_alone(rag) -> None:
    answer = rag.query("How long is the belay course at the climbing wall?")

    # The clause is one quote with its own marker: not run together with the next clause or the fees above it.
    assert "The belay course lasts 3 hours and is held on Saturday mornings [1]" in answer.text
    assert "2.2" not in answer.text and "64 EUR" not in answer.text
    assert {c.file_name for c in answer.citations} == {"climbing_wall_terms.txt"}


def test_a_price_behind_a_dot_leader_is_quoted_with_its_label(rag) -> None:
    answer = rag.query("How much is a bicycle ticket on the island ferry?")

    assert "Bicycle: 3,00 EUR" in answer.text
    assert "38,00" not in answer.text and "ccce" not in answer.text
