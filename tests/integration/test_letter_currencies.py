"""Prices in a currency written with plain letters, a day priced per 24 hours, sizes on one scale (issue 33, round 22).

"Rs. 40", "KSh 1,250" and "RM 85" were no amounts of money: CLDR writes those currencies'
symbols with letters only, and the answerer read only symbols with a currency sign.  A
question "for one day" was not covered by a price "per 24 hours"; and once such prices
counted, a medium trunk had to be told from the small one beside it.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "quayside-left-luggage.txt": """QUAYSIDE STATION
LEFT LUGGAGE - CHARGES

Each bag, first 24 hours: Rs. 25
Each bag, every further 24 hours: Rs. 30
Small trunk, per 24 hours: Rs. 45
Large trunk, per 24 hours: Rs. 80

CONDITIONS
Every case must carry a tag. Maximum 40 kg per case.
Lost token: a charge of sixty rupees (Rs. 60), with proof of identity.
""",
    "harbour-bakery.md": """# Harbour bakery

Sourdough loaves are baked every morning at 05:00 and sold until they run out.
A loaf of rye costs EUR 4.20; a seeded loaf EUR 4.80.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("letters"), DOCS)


def test_a_price_in_a_letter_symbol_for_a_day_is_the_price_per_24_hours(rag):
    answer = rag.query("Price of a large trunk for one day at Quayside Station?")
    assert (answer.refused, cited_files(answer)) == (False, {"quayside-left-luggage.txt"}), answer.text
    assert "Rs. 80" in answer.text


def test_an_abbreviated_currency_in_brackets_stays_in_its_sentence(rag):
    answer = rag.query("What is the charge for a lost token at Quayside Station?")
    assert not answer.refused, answer.text
    assert "Rs. 60" in answer.text


def test_a_size_the_price_list_does_not_have_is_refused_by_name(rag):
    answer = rag.query("Price of a medium trunk at Quayside Station?")
    assert answer.refused, answer.text
    assert "medium" in answer.text
