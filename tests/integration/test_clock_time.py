""""What time …?" is answered with a clock time (issue 33, round 21).

In a collection that never uses the word "time", "What time does the boathouse open?"
read "time" as a term the documents lack and quoted a passage near the word instead of
"The boathouse opens at 06:30".  It now expects a time of day.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "fenwick-rowing.md": """# Fenwick Rowing Club

New members pay a joining charge of 40 GBP, then 15 GBP a month.
The boathouse opens at 06:30 on weekdays.
Club nights run every Thursday from 19:00 in the library annexe.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("clock"), DOCS)


@pytest.mark.parametrize("question", ["What time does the Fenwick boathouse open?",
                                      "At what time does Fenwick open its boathouse on weekdays?"])
def test_what_time_is_answered_with_the_clock_time_of_the_thing_asked(rag, question):
    answer = rag.query(question)
    assert (answer.refused, cited_files(answer)) == (False, {"fenwick-rowing.md"}), answer.text
    assert "06:30" in answer.text and "40 GBP" not in answer.text, answer.text
