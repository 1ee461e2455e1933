"""The extractive answer's decision on the real store and model: objections the rest of the evidence does not outweigh stand.

Since round 8 of issue 33 a check's objection can be overruled by the decision model
(ragwire/answer/decision.py; its logic is tested in tests/unit/test_answer_decision.py). These
guard the other side: a near-topic question is still refused, and a question the row answers is
still answered with it.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "millbrook-cycle-workshop.md": """# Millbrook Cycle Workshop: price list

| Job | Price |
|---|---|
| New chain put on any bike (chain included) | NOK 350 |
| Brake pads, front and rear | NOK 420 |
| Wheel truing, per wheel | NOK 250 |
| Puncture repair, inner tube included | NOK 180 |

Bikes left with us are ready within three working days.
""",
    "oakfield-choir.md": """# Oakfield Choir: season notes

Rehearsals are on Tuesdays from 19:00 to 21:15 in the school hall.
The season fee is CHF 120 for adults and CHF 60 for students.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("decision"), DOCS)


def test_a_price_the_row_states_is_answered_with_it(rag):
    answer = rag.query("How much is a new chain put on my bike at the workshop?")
    assert not answer.refused, answer.text
    assert "NOK 350" in answer.text
    assert cited_files(answer) == {"millbrook-cycle-workshop.md"}


def test_a_near_topic_price_the_list_never_gives_is_still_refused(rag):
    answer = rag.query("What does the workshop charge for a tandem frame respray?")
    assert answer.refused, answer.text
