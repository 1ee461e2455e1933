"""A quote for another kind of the asked thing is no answer (issue 33, round 23).

A price list gives one row per kind, and the row for the asked kind's neighbour shares every other
word of the question: the monthly plan's price was quoted for the yearly one, the adults' fee for a
student's, a hand-knitted scarf's price for a machine-knitted one's, a nightly rate for a week.
ragwire/answer/periods.py reads the period a rate is asked for, ragwire/answer/siblings.py the
payers and the compounds of one head; each refuses naming what the quotes are about instead.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "tidewater-makerspace.md": """# Tidewater makerspace: plans and fees

| Plan | Price | Access |
| --- | --- | --- |
| Studio (monthly) | CA$70 | weekdays, 9:00 to 18:00 |
| Workshop (monthly) | CA$115 | every day, 7:00 to 23:00 |

Adults pay CA$42 for the laser cutter induction; juniors under 16 pay CA$21.
""",
    "lindholm-knitwear-prices.md": """# Lindholm knitwear: price list

- Shawl, hand-knitted alpaca: €120
- Scarf, hand-knitted merino: €64
- Beanie, hand-knitted merino: €29
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("kinds"), DOCS)


@pytest.mark.parametrize(("question", "named"), [
    ("What does the yearly studio plan cost at Tidewater makerspace?", "per month"),
    ("What do students pay for the laser cutter induction at Tidewater?", "'students'"),
    ("What does a machine-knitted merino scarf cost at Lindholm?", "'machine-knitted'"),
])
def test_a_quote_about_another_kind_of_the_asked_thing_is_refused_naming_it(rag, question, named):
    answer = rag.query(question)
    assert answer.refused, answer.text
    assert named in answer.text


@pytest.mark.parametrize(("question", "stated", "file"), [
    ("What does the monthly studio plan cost at Tidewater makerspace?", "CA$70", "tidewater-makerspace.md"),
    ("What do juniors pay for the laser cutter induction at Tidewater?", "CA$21", "tidewater-makerspace.md"),
    ("What does a hand-knitted merino scarf cost at Lindholm?", "€64", "lindholm-knitwear-prices.md"),
])
def test_the_kind_the_quote_names_is_answered(rag, question, stated, file):
    answer = rag.query(question)
    assert (answer.refused, cited_files(answer)) == (False, {file}), answer.text
    assert stated in answer.text
