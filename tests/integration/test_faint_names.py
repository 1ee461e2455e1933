"""A name no document uses is refused however little it weighs (issue 33, round 14).

"What does a kilo of <a variety the roastery does not sell> cost?" over a price list of
other varieties: the name qualifies what is asked, moves the question's embedding less than
a thing does, and before round 14 was read as wording, so another variety's price came back.
Such a name is grounded by a neighbour that stands out (a spelling of its own), never by
another name of its kind; a name the documents use is answered.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "hillside-roastery-prices.md": """# Hillside Roastery trade prices

| Bean | Process | Price per kg | Minimum order |
|---|---|---|---|
| Caturra | washed | NOK 310 | 5 kg |
| Typica | natural | NOK 345 | 5 kg |
| Pacamara | honey | NOK 420 | 2 kg |

We deliver within Norway for a flat NOK 120 per order. Orders placed before 12:00 leave the same day.
""",
    "hillside-roastery-visits.md": """# Visiting Hillside Roastery

Cupping sessions run every Friday at 15:00 and cost NOK 250 per person. Book at least two days ahead.
The roastery is at Bakkeveien 4 in Lillehammer.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("faint-names"), DOCS)


def test_a_variety_no_document_names_is_refused_naming_it(rag) -> None:
    answer = rag.query("What does a kilo of Yirgacheffe beans cost at Hillside Roastery?")
    assert answer.refused, answer.text
    assert "'Yirgacheffe'" in answer.text


def test_a_variety_the_price_list_names_is_answered(rag) -> None:
    answer = rag.query("How much does Hillside Roastery charge per kilo of Typica?")
    assert not answer.refused, answer.text
    assert "NOK 345" in answer.text and cited_files(answer) == {"hillside-roastery-prices.md"}
