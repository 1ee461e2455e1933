"""A key term no document uses is grounded by a word that stands for it, not by a sibling the embedding puts as near.

Issue 33: "a cat" is as near "dogs" as "a guarantee" is to "warranty" for the embedding, so the
passage about dogs answered a question about cats, and a duration of the warranty was no duration
"for the guarantee".  The packaged lexicon (ragwire/answer/lexicon.py)
tells the two apart: a synonym, a derivation or a kind of the word grounds it, a sibling does not.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "fjellro-guesthouse.md": """# Fjellro Guesthouse: guests' guide

Dogs may stay in the ground-floor rooms for NOK 150 per night; please bring their own blanket.
Breakfast is served from 07:00 to 10:00 in the dining room.
Check-out is at 11:00; a late check-out until 14:00 costs NOK 200.
""",
    "brisk-kettle-manual.md": """# Brisk KT-2 kettle: owner's manual

Descale the kettle every four weeks with a citric acid solution.
The kettle carries a warranty of two years from the date of purchase, on proof of purchase.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("lexical"), DOCS)


@pytest.mark.parametrize("question", ["Which rooms may a cat stay in at the guesthouse?",
                                      "Can my cat stay in the ground-floor rooms?"])
def test_a_sibling_of_the_asked_thing_does_not_ground_it(rag, question):
    answer = rag.query(question)
    assert answer.refused, answer.text
    assert "'cat'" in answer.text


@pytest.mark.parametrize(("question", "fact", "source"), [
    # a synonym the collection uses instead of the question's word
    ("How many years of guarantee does the Brisk kettle come with?", "two years", "brisk-kettle-manual.md"),
    # the thing the passage states, asked as it states it
    ("Which rooms may dogs stay in at the guesthouse?", "ground-floor rooms", "fjellro-guesthouse.md"),
])
def test_a_word_that_stands_for_the_asked_one_still_answers(rag, question, fact, source):
    answer = rag.query(question)
    assert (answer.refused, cited_files(answer)) == (False, {source}), answer.text
    assert fact in answer.text
