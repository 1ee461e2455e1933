"""A sum often stated as a share of a price is answered by the share (issue 33, round 21).

"What deposit is due?" over "A deposit of 30 % is due when you book" was refused as
"no amount of money": a deposit, a surcharge or a commission is as often a share of the
price as a sum.  A price itself is not: a discount in per cent does not say what a thing costs.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "kilnworks-courses.md": """# Kilnworks pottery courses

Booking: a deposit of 30 % secures your place; the rest is due on the first evening.
Courses run on Tuesday and Thursday evenings in the studio on Mill Lane.
Members of the Mill Lane guild get 10 % off every course.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("share"), DOCS)


def test_a_deposit_given_as_a_share_of_the_price_answers_how_much_it_is(rag):
    answer = rag.query("What deposit secures a place on a Kilnworks course?")
    assert (answer.refused, cited_files(answer)) == (False, {"kilnworks-courses.md"}), answer.text
    assert "30 %" in answer.text


def test_a_share_off_the_price_does_not_say_what_a_course_costs(rag):
    answer = rag.query("How much does a Kilnworks pottery course cost?")
    assert answer.refused, answer.text
