"""A quote about a sibling of the asked thing is no answer, when the collection names the thing elsewhere.

Issue 33, round 11: a key word the collection uses somewhere (so no check of absent words
sees it) was answered with the passage about its sibling, which shares every other word of
the question: the price of one meal for another's.  ragwire/answer/siblings.py refuses when
the quotes leave the word out and hold a near sibling of it (the lexicon's kinds of one thing).
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "heronsgate-inn-prices.md": """# Heronsgate Inn: prices

Lunch in the inn's garden room costs £16 per person, with coffee.
A packed walkers' lunch costs £9 and is ready from 08:00.
Parking for guests is free.
""",
    "heronsgate-inn-news.md": """# Heronsgate Inn: news

From June the inn serves dinner on its new terrace, weather permitting.
The footpath to the lake has been resurfaced.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("siblings"), DOCS)


def test_a_sibling_of_the_asked_thing_in_the_quote_is_refused_naming_the_thing(rag):
    answer = rag.query("What does dinner in the garden room cost per person?")
    assert answer.refused, answer.text
    assert "dinner" in answer.text  # the first objection is reported, whichever check raised it


def test_the_thing_the_quote_states_is_answered(rag):
    answer = rag.query("What does lunch in the garden room cost per person?")
    assert (answer.refused, cited_files(answer)) == (False, {"heronsgate-inn-prices.md"}), answer.text
    assert "£16" in answer.text
