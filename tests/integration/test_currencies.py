"""An amount in any currency in use is money: the typed check reads CLDR's currency table, not a list of the ones we met.

Issue 33: "Total due: 4318.50 NOK" was once not money; later the table held seven codes, and
a price in Canadian dollars or Polish złoty was refused with "the documents give no amount of
money" though the row gave it.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "harbourview-kayak-club.md": """# Harbourview Kayak Club: membership

Annual dues are CAD 180 for adults and CAD 90 for juniors.
Storage of a private boat on the club rack costs CAD 95 per season.
""",
    "glina-pottery-studio.md": """# Glina pottery studio, Kraków

A two-hour wheel class costs 120 zł, clay and glazing included.
Firing your own pieces is charged by the shelf: 35 zł per firing.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("currencies"), DOCS)


@pytest.mark.parametrize(("question", "amount", "source"), [
    ("What do adults pay in yearly dues at the Harbourview kayak club?", "CAD 180", "harbourview-kayak-club.md"),
    ("How much is a wheel class at the Glina pottery studio?", "120 zł", "glina-pottery-studio.md"),
])
def test_a_price_in_any_currency_in_use_is_answered(rag, question, amount, source):
    answer = rag.query(question)
    assert (answer.refused, cited_files(answer)) == (False, {source}), answer.text
    assert amount in answer.text
