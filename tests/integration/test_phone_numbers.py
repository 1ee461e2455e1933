"""A telephone number asked for, and a request for two places' numbers (issue 33, round 22).

A question for a telephone number was refused as "nothing in the documents mentions 'phone
number'" where a letterhead writes "tel." before it: the question had no answer type.  A
request ("I need …") for the numbers of two places was asked as one question.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "lindqvist-grooming.md": """# Lindqvist dog grooming

Storgatan 14, 831 30 Östersund · tel. +46 63 512 48 90

A full groom takes two to three hours for most dogs and includes a bath, a haircut and nail clipping.
Nail clipping alone needs no appointment.
""",
    "fjallbacka-bakery.md": """# Fjällbacka bakery

Ingrid Ek, Hamngatan 3, 457 40 Fjällbacka · phone +46 525 310 77

Cardamom buns are baked every morning and cost SEK 35 each.
Sourdough loaves are sold from 07:30 until they run out.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("phones"), DOCS)


def test_a_phone_number_is_answered_from_the_letterhead_that_gives_it(rag):
    answer = rag.query("Which phone number reaches Lindqvist dog grooming?")
    assert (answer.refused, cited_files(answer)) == (False, {"lindqvist-grooming.md"}), answer.text
    assert "+46 63 512 48 90" in answer.text


def test_a_request_for_two_places_numbers_is_answered_part_by_part(rag):
    answer = rag.query("I need the telephone numbers of Lindqvist dog grooming and of the Fjällbacka bakery",
                       refine=True)
    assert not answer.refused, answer.text
    assert "+46 63 512 48 90" in answer.text and "+46 525 310 77" in answer.text
    assert cited_files(answer) == {"lindqvist-grooming.md", "fjallbacka-bakery.md"}
