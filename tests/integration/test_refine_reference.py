"""Refinement without an LLM: a later part that says "it", "they" or "there" is searched with what the first part is about.

A real collection (packaged MiniLM, embedded engine): three venues, each in its own file, each
with a capacity and a price in the same words, so a part searched on its own words alone cannot
tell them apart.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ragwire import RAGWire

from .helpers import ingested

VENUES = {
    "larch.md": "# Larch studio\n\nThe Larch studio is a quiet room above the bakery. Booking the Larch studio costs "
    "35 euros per hour, cleaning included. The room seats 6 people around a single oak table.",
    "harbour.md": "# Harbour hall\n\nHarbour hall looks out over the ferry quay. How big is the hall? It "
    "seats 140 people in rows, or 90 at round tables. Evening hire is 400 euros.",
    "mill.md": "# Mill loft\n\nThe Mill loft has exposed beams and a projector. It seats 25 people. "
    "Hire is 60 euros per hour; the lift is out of order until May.",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> Iterator[RAGWire]:
    with ingested(tmp_path_factory.mktemp("refine-reference"), VENUES) as rag:
        yield rag


def test_a_part_saying_it_is_searched_with_the_first_parts_subject_and_answered_from_its_file(rag):
    refined = rag.query("What does booking the Larch studio cost, and how many people does it seat?",
                        top_k=1, refine=True)

    assert "35 euros per hour" in refined.text and "seats 6 people" in refined.text
    assert "140 people" not in refined.text
    assert {c.file_name for c in refined.citations} == {"larch.md"}
    searches = [s.data["query"] for s in refined.trace if s.step == "retrieve"]
    assert searches[:2] == ["What does booking the Larch studio cost?",
                            "How many people does it seat? booking larch studio cost"]


def test_an_existential_there_is_not_a_reference_and_the_part_is_searched_as_written(rag):
    refined = rag.query("What does the Mill loft cost per hour, and is there a lift?", top_k=1, refine=True)

    searches = [s.data["query"] for s in refined.trace if s.step == "retrieve"]
    assert searches[1] == "Is there a lift?"
