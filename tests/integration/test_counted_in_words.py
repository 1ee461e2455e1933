"""Numbers written out and prices per unit of measure, over the real engine (issue 33, round 16).

Before round 16 a row picked by a number written out ("the four-day ride") was answered with its sibling's row,
and a price asked per gallon with the price per litre; those two tests fail there.  The third guards what must
stay answered: the row the number does name.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "tarn-valley-horse-rides.md": """# Tarn Valley horse rides

| Ride | Price per rider |
|---|---|
| Three-day moor ride | GBP 540 |
| Six-day coast ride | GBP 1,020 |

All rides include the horse, the saddle and a guide. Lunches are packed by the farm.
""",
    "tarn-valley-boatyard.md": """# Tarn Valley boatyard

Diesel for visiting boats is sold at GBP 1.90 per litre at the fuel pontoon.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("counted-in-words"), DOCS)


def test_a_row_picked_by_a_number_written_out_is_not_its_siblings(rag) -> None:
    answer = rag.query("How much is a four-day ride at Tarn Valley per rider?")
    assert answer.refused, answer.text
    assert "four-day" in answer.text


def test_the_row_the_number_names_is_answered(rag) -> None:
    answer = rag.query("How much is a three-day ride at Tarn Valley per rider?")
    assert not answer.refused, answer.text
    assert "GBP 540" in answer.text


def test_a_price_per_gallon_is_not_the_price_per_litre(rag) -> None:
    answer = rag.query("What does the boatyard charge per gallon of diesel?")
    assert answer.refused, answer.text
    assert "gallon" in answer.text

