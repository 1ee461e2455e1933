"""A part that says "the one at B" or "as well as the X" is answered with its own fact.

Issue 33, round 21: "What is the joining charge at A and the one at B?" asked its
second part as "the <last noun of A> at B", and "…, as well as the cost of X" was
not split at all, so one of the two facts was never quoted.  ragwire/answer/parts.py
writes the part out ("the joining charge at B", "What is the cost of X?").
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import ingested

DOCS = {
    "fenwick-rowing.md": """# Fenwick Rowing Club

New members pay a joining charge of 40 GBP, then 15 GBP a month.
The boathouse opens at 06:30 on weekdays.
""",
    "hillside-chess.md": """# Hillside Chess Circle

The joining charge is 12 GBP; after that, play is free.
Club nights run every Thursday from 19:00 in the library annexe.
A set of tournament clocks can be borrowed for a deposit of 25 GBP.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("parts"), DOCS)


@pytest.mark.parametrize("refine", [False, True])
def test_the_one_at_another_place_is_asked_with_the_first_parts_noun(rag, refine):
    answer = rag.query("What is the joining charge at Fenwick Rowing Club and the one at Hillside Chess Circle?",
                       refine=refine)
    assert not answer.refused, answer.text
    assert "40 GBP" in answer.text and "12 GBP" in answer.text, answer.text


@pytest.mark.parametrize("refine", [False, True])
def test_as_well_as_a_noun_phrase_after_a_question_is_a_second_part(rag, refine):
    answer = rag.query("When does the Fenwick boathouse open on weekdays, as well as the deposit for the "
                       "tournament clocks at Hillside?", refine=refine)
    assert not answer.refused, answer.text
    assert "06:30" in answer.text and "25 GBP" in answer.text, answer.text
