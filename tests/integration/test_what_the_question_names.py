"""What a question names decides which passages may answer it (issue 33, round 24).

- A question that names one organisation by a word of its file's name is answered from that file,
  even when another file's passage ranks first (elsewhere.files_naming).
- A word the documents write only inside a closed compound ("sauna" in "saunahouse") or a hyphenated
  word they write as one ("pick-up" as "pickup" in a file name) is no word "nothing mentions"
  (evidence.absent_terms).
- A kind of thing named by a noun before it that the answering file never uses is not answered with
  another kind's row (siblings.other_modifier).
- A yes/no question whose quotes say nothing of its thing but the file's own name is not answered by them
  (answerable.unmentioned weighs only the words the file or collection does not name anyway).
- A later part that names nothing of its own asks about the first part's thing: when the first part
  is not covered, neither is it (reference.names_nothing).
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
    "marsh_lane_cobbler.md": """# Marsh Lane Cobbler

Resoling leather shoes takes three working days and costs £38 a pair.
Heels are replaced on the spot for £14.
We take cash and cards; card payments carry a 2% surcharge.
""",
    "hillside_pottery_club.md": """# Hillside Pottery Club

Card payments cost nothing extra at reception; kiln fees may also be paid in cash.
A bisque firing costs £6 per shelf and a glaze firing £9 per shelf.
""",
    "norra_saunahouse_prices.md": """# Norra Saunahouse

| Entry | Price |
| --- | --- |
| Morning entry (7:00-11:00) | 90 kr |
| Evening entry (17:00-22:00) | 130 kr |

Towels can be hired for 25 kr.
""",
    "juniper_smoothie_bar.md": """# Juniper Smoothie Bar: menu

| Smoothie | Small | Large |
| --- | --- | --- |
| Banana smoothie | £4.20 | £5.60 |
| Kiwi smoothie | £4.50 | £5.90 |
| Beetroot smoothie | £4.80 | £6.20 |

Oat milk is free of charge.
""",
    "harbour_bike_hire_pickup.md": """# Harbour Bike Hire

| Bike | Per day |
| --- | --- |
| City bike | €15 |
| Electric bike | €32 |

Child seats are lent free with any bike. Bikes are collected from the harbour office from 8:00.
Riders meet in the park behind the office.
""",
    "kelda_spring_baths.md": """# Kelda Spring Baths

At Kelda Spring Baths there are three pools of natural spring water from our own well.

Entry: €9 for adults, €5 for children. Towels are included.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("names"), DOCS)


def test_a_question_naming_a_file_by_its_subject_is_answered_from_that_file(rag):
    answer = rag.query("Does paying by card cost extra at the cobbler?")
    assert not answer.refused, answer.text
    assert cited_files(answer) == {"marsh_lane_cobbler.md"}
    assert "2%" in answer.text


def test_the_named_file_answers_though_another_files_passage_is_ranked_first(rag):
    # A large collection's retrieval often ranks a near-topic passage of another file first.
    question = "Does paying by card cost extra at the cobbler?"
    hits = sorted((Hit(d.page_content, d.metadata) for d in rag.retrieve(question, top_k=8)),
                  key=lambda h: not h.metadata["source"].endswith("hillside_pottery_club.md"))
    assert hits[0].metadata["source"].endswith("hillside_pottery_club.md")
    sources = [NumberedSource(i, h.text, h) for i, h in enumerate(hits, 1)]
    vocabulary = CollectionVocabulary(rag.collection, rag.sparse_encoder)
    extraction = extract(question, sources, rag.embedding, vocabulary=vocabulary)
    assert extraction.refusal is None, extraction.render()[0]
    files = {s.index: s.hit.metadata["source"].rsplit("/", 1)[-1] for s in sources}
    assert {files[q.source] for q in extraction.quotes} == {"marsh_lane_cobbler.md"}
    assert any("2%" in q.text for q in extraction.quotes)


def test_a_word_written_only_inside_a_compound_is_not_absent(rag):
    answer = rag.query("What does evening entry to the sauna cost?")
    assert not answer.refused, answer.text
    assert "130 kr" in answer.text


def test_a_hyphenated_word_written_as_one_in_a_file_name_is_not_absent(rag):
    answer = rag.query("From what time is the bike pick-up at the harbour office?")
    assert "nothing in the documents mentions 'pick-up'" not in answer.text
    assert not answer.refused, answer.text
    assert "8:00" in answer.text


def test_a_kind_the_list_never_names_is_refused_naming_the_kinds_it_does(rag):
    answer = rag.query("How much is a large mango smoothie at Juniper?")
    assert answer.refused, answer.text
    assert "'mango smoothie'" in answer.text


def test_a_kind_the_list_names_is_answered(rag):
    answer = rag.query("How much is a large kiwi smoothie at Juniper?")
    assert not answer.refused, answer.text
    assert "£5.90" in answer.text


@pytest.mark.parametrize("refine", [False, True])
def test_a_later_part_naming_nothing_is_not_covered_when_the_first_part_is_not(rag, refine):
    answer = rag.query("Can I hire a tandem at Harbour Bike Hire, and how much would it be?", refine=refine)
    assert answer.refused, answer.text


@pytest.mark.parametrize("refine", [False, True])
def test_a_later_part_naming_nothing_is_answered_when_the_first_part_is(rag, refine):
    answer = rag.query("Can I hire an electric bike at Harbour Bike Hire, and how much would it be?", refine=refine)
    assert not answer.refused, answer.text
    assert "€32" in answer.text


def test_a_yes_no_question_answered_only_by_the_files_name_is_refused_naming_its_thing(rag):
    # "park" is a word of the collection (the bike hire's), so "parking" is no absent term.
    answer = rag.query("Is there parking at Kelda Spring Baths?")
    assert answer.refused, answer.text
    assert "'parking'" in answer.text
