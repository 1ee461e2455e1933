"""Prices in a currency's hundredths, and an attribute whose modifier only the file name gives, over the real engine
(issue 33, round 17).

Before round 17 a price given in cents was no amount of money, so a price question over it was refused, and "the
boiler subscription" was refused in a letter about the boiler that says only "the subscription": both tests fail
there.  The third guards the refusal the pair check exists for.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "boiler-letter-elm-court.txt": """Elm Court residents' association

Dear neighbours,

The shared boiler in the basement heats every flat from October to April.
From 1 October the subscription is 40 euros a month for each flat.
Hot water used on top of that is billed at 6 cents per litre, read on each flat's own meter.
Payments go to the treasurer, flat 2B.
""",
    "bike-shed-rules-elm-court.md": """# Elm Court bike shed

The shed opens with the same key fob as the front door.
Each flat may keep two bikes in the shed. Cargo bikes park along the back wall.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("named-by-file"), DOCS)


def test_a_price_in_cents_is_an_amount_of_money(rag) -> None:
    answer = rag.query("How much does hot water cost per litre at Elm Court?")
    assert not answer.refused, answer.text
    assert "6 cents" in answer.text


def test_the_file_name_gives_the_attribute_its_modifier(rag) -> None:
    answer = rag.query("What is the monthly boiler subscription at Elm Court?")
    assert not answer.refused, answer.text
    assert "40 euros" in answer.text
    assert cited_files(answer) == {"boiler-letter-elm-court.txt"}


def test_an_attribute_no_document_names_is_still_refused(rag) -> None:
    answer = rag.query("What is the gym subscription at Elm Court?")
    assert answer.refused, answer.text
