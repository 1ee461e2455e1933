"""A thing the question counts one way that the quotes count only otherwise: another row of the list.

Issue 33, round 20: a price list names its rows by a count (a two-seat and a four-seat
kayak), and a question about a count the list does not offer was answered with the row of
the next count, which shares every other word.  ragwire/answer/counts.py refuses it, naming
both counts.
"""

from __future__ import annotations

import re

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "harbour-kayaks.md": """# Harbour Kayaks: hire prices

Every kayak comes with paddles and buoyancy aids; each paddler gets three dry bags.

| Kayak | Price per day |
|---|---|
| Single-seat sea kayak | 30 EUR |
| Two-seat sea kayak | 45 EUR |
| Four-seat sea kayak | 80 EUR |

Children under 12 paddle with an adult in a two-seat kayak.
""",
    "lakeside-pool.md": """# Lakeside Pool

Lane swimming is open from 06:00 to 09:00 on weekdays.
Courses of 2 to 6 weeks teach adults to swim; each week costs 25 EUR.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("counts"), DOCS)


def test_a_count_the_list_does_not_offer_is_refused_naming_the_counts(rag):
    answer = rag.query("How much is a three-seat sea kayak for a day at Harbour Kayaks?")
    assert answer.refused, answer.text
    # "three" is in the list (three dry bags), so no check of absent words objects: the counts decide (or, since
    # round 23, the compound's other modifier, which names the same row in lower case).
    assert re.search(r"are about '(?:Single|Two|Four)-seat', not 'three-seat'", answer.text, re.IGNORECASE), answer.text


def test_a_count_the_list_offers_is_answered_with_its_row(rag):
    answer = rag.query("How much is a four-seat sea kayak for a day at Harbour Kayaks?")
    assert (answer.refused, cited_files(answer)) == (False, {"harbour-kayaks.md"}), answer.text
    assert "80 EUR" in answer.text


def test_a_count_inside_a_range_the_quotes_give_is_answered(rag):
    answer = rag.query("What does a four-week swimming course for adults cost at Lakeside Pool per week?")
    assert (answer.refused, cited_files(answer)) == (False, {"lakeside-pool.md"}), answer.text
    assert "25 EUR" in answer.text
