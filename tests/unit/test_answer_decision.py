"""The extractive answerer's decision: every check weighed together by the fitted model (ragwire/answer/decision.py)."""

from __future__ import annotations

import dataclasses

from ragwire.answer import NumberedSource
from ragwire.answer.decision import OVERRULE_AT, Evidence, probability
from ragwire.answer.extraction import Extraction
from ragwire.answer.extractive import Assessment, Candidate, decide
from ragwire.answer.passages import Passage
from ragwire.retrieval import Hit

TEXT = "Fitting a new chain on a city bike costs NOK 350 at the Millbrook workshop."
SOURCE = NumberedSource(1, TEXT, Hit(TEXT, {"source": "/docs/workshop.md", "file_name": "workshop.md"}))
QUOTE = Candidate(1, Passage(TEXT, "", 0), 0.71, 0.71, (1.0, 0.0))
# A typed question ("what will you ask to fit …") whose focus parse named a verb no passage states: the one check
# objects, every other signal grounds the quote.
ONE_OBJECTION = Evidence(best=0.71, quoted=0.71, strength=0.71, typed=True, typed_unfound=True, typed_quoted=True)


def _assessment(evidence: Evidence, refusals: list[Extraction] | None = None,
                chosen: list[Candidate] | None = None) -> Assessment:
    return Assessment([QUOTE] if chosen is None else chosen, [SOURCE], refusals or [], evidence)


def test_a_single_objecting_check_is_outweighed_when_the_quote_grounds_the_question():
    typed_refusal = Extraction.refused("The documents give no amount of money for fit.")
    extraction = decide(_assessment(ONE_OBJECTION, [typed_refusal]))
    assert extraction.refusal is None
    assert [q.text for q in extraction.quotes] == [TEXT]
    assert extraction.strength == probability(ONE_OBJECTION) >= OVERRULE_AT


def test_checks_that_object_together_refuse_with_the_first_checks_reason():
    evidence = dataclasses.replace(ONE_OBJECTION, strength=0.3, missing=True, ungrounded_in_sources=True,
                                   absent=1, absent_weight=0.2, absent_near=0.35, absent_unstated=True)
    first = Extraction.refused("The documents do not answer this question: nothing in the documents mentions 'tandem'.",
                               ["tandem"])
    extraction = decide(_assessment(evidence, [first, Extraction.refused("The documents give no amount of money.")]))
    assert extraction.refusal is not None
    assert extraction.refusal.terms == ("tandem",)
    assert probability(evidence) < OVERRULE_AT


def test_an_answer_no_check_objects_to_stands_and_carries_the_models_chance_as_its_strength():
    evidence = Evidence(best=0.45, quoted=0.45, strength=0.2, absent=1, absent_weight=0.2, absent_near=0.45)
    extraction = decide(_assessment(evidence))
    assert extraction.refusal is None
    assert extraction.strength == probability(evidence) < OVERRULE_AT


def test_nothing_worth_quoting_is_refused_whatever_the_evidence():
    extraction = decide(_assessment(ONE_OBJECTION, chosen=[]))
    assert extraction.refusal is not None and not extraction.quotes


def test_the_chance_of_a_right_answer_grows_with_grounding_and_falls_with_each_objection():
    weaker = dataclasses.replace(ONE_OBJECTION, strength=0.4)
    assert probability(weaker) < probability(ONE_OBJECTION)
    for check in ("missing", "ungrounded_in_sources", "pair_unstated", "unit_unfound", "yes_no_unmentioned"):
        assert probability(dataclasses.replace(ONE_OBJECTION, **{check: True})) < probability(ONE_OBJECTION), check


def test_an_objection_that_found_the_asked_thing_absent_is_never_overruled():
    # A pair of words naming the attribute never stands together, however well the rest grounds the quote.
    evidence = dataclasses.replace(ONE_OBJECTION, typed_unfound=False, pair_unstated=True)
    assert probability(dataclasses.replace(evidence, strength=0.95, quoted=0.95, best=0.95)) >= OVERRULE_AT
    pair = Extraction.refused("The documents do not answer this question: nothing in the documents mentions "
                              "'spending cap'.", ["spending cap"])
    strong = dataclasses.replace(evidence, strength=0.95, quoted=0.95, best=0.95)
    assert decide(_assessment(strong, [pair])).refusal == pair.refusal
