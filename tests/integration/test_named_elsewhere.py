"""A name the question gives that no quoted file mentions: the quotes are about another organisation.

Issue 33, round 19: in a collection of many small organisations' documents, a wind limit
asked of one club was answered from whichever file says most about wind limits,
although the collection names that club elsewhere (so no check of absent words saw it).
ragwire/answer/elsewhere.py refuses when the quoted files never mention the name.

In a collection this small the file naming the school is always retrieved (by its name) and
quoted, so the refusal is shown on the real store's counts and model with the retrieval narrowed
to the club's file, as a large collection's retrieval often is.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire
from ragwire.answer import NumberedSource
from ragwire.answer.extractive import extract
from ragwire.retrieval import Hit
from ragwire.retrieval.vocabulary import CollectionVocabulary

from .helpers import cited_files, ingested

DOCS = {
    "oakmere-rowing.md": """# Oakmere Rowing Club: water rules

Boats stay ashore when the wind speed is above 20 knots or the river is in flood.
The boathouse opens at 06:30 on weekdays and at 07:00 on weekends.
""",
    "town-notices.md": """# Town notices

The car park behind Fernhill Sailing School is closed for resurfacing until 3 June.
The library's summer reading club starts on 1 July.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("elsewhere"), DOCS)


def _from_file(rag: RAGWire, question: str, name: str) -> list[NumberedSource]:
    hits = [Hit(d.page_content, d.metadata) for d in rag.retrieve(question, top_k=8)
            if d.metadata["source"].endswith(name)]
    assert hits, f"{name} not retrieved"
    return [NumberedSource(i, h.text, h) for i, h in enumerate(hits, 1)]


def test_the_stores_word_counts_can_be_of_one_file(rag):
    vocabulary = CollectionVocabulary(rag.collection, rag.sparse_encoder)
    sources = {d.source.rsplit("/", 1)[-1]: d.source for d in rag.list_documents()}
    assert vocabulary.documents_with("fernhill") == 1
    assert vocabulary.documents_with("fernhill", sources["town-notices.md"]) == 1
    assert vocabulary.documents_with("fernhill", sources["oakmere-rowing.md"]) == 0


def test_a_limit_quoted_from_another_organisations_file_is_refused_naming_the_one_asked_about(rag):
    question = "In how strong a wind does Fernhill Sailing School call off its lessons?"
    vocabulary = CollectionVocabulary(rag.collection, rag.sparse_encoder)
    extraction = extract(question, _from_file(rag, question, "oakmere-rowing.md"), rag.embedding, vocabulary=vocabulary)
    assert extraction.refusal is not None, extraction.render()[0]
    assert "never mention 'Fernhill Sailing School'" in extraction.refusal.reason


def test_the_organisation_whose_file_states_it_is_answered(rag):
    question = "In how strong a wind does Oakmere Rowing Club keep its boats ashore?"
    answer = rag.query(question)
    assert (answer.refused, cited_files(answer)) == (False, {"oakmere-rowing.md"}), answer.text
    assert "20 knots" in answer.text
    vocabulary = CollectionVocabulary(rag.collection, rag.sparse_encoder)
    assert extract(question, _from_file(rag, question, "oakmere-rowing.md"), rag.embedding,
                   vocabulary=vocabulary).refusal is None


def test_a_name_the_file_shortens_is_mentioned(rag):
    # "Oakmere" alone names the club; its file's name carries the rest.
    answer = rag.query("When does the Oakmere Boathouse open on weekends?")
    assert (answer.refused, cited_files(answer)) == (False, {"oakmere-rowing.md"}), answer.text
    assert "07:00" in answer.text
