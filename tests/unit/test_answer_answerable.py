"""Answerability: a near-topic question whose specific term the sources never state is refused, naming it."""

from __future__ import annotations

from ragwire.answer.answerable import missing_terms
from ragwire.answer.extractive import extractive_answer

from .test_extractive import WordEmbedding, _source

RELEASES = [
    _source(1, "Firmware 3.3.1 is a maintenance release. All sites running 3.3.0 should update."),
    _source(2, "Firmware 3.2.0 is a feature release that adds opportunity charging and speed zones."),
]
BUYING = [_source(1, "The AR-7 is bought outright. The price of the AR-7 includes the charging station.")]


def test_a_version_no_source_carries_is_missing():
    # guards issue 19 item 3: "What new features will firmware 3.4 bring?" was answered with 3.3.1's notes
    assert missing_terms("What new features will firmware 3.4 bring?", RELEASES, WordEmbedding()) == ["3.4"]
    text, refused = extractive_answer("What new features will firmware 3.4 bring?", RELEASES, WordEmbedding(),
                                      threshold=0.1)
    assert refused and text == "The retrieved documents do not answer this question: nothing in them states '3.4'."


def test_versions_and_code_families_the_sources_carry_are_not_missing():
    assert missing_terms("What changed in 3.3?", RELEASES, WordEmbedding()) == []  # 3.3.0, 3.3.1
    codes = [_source(1, "E-6010 Load cell overload. E-6020 Deck sensor fault.")]
    assert missing_terms("Error codes beginning with E-6 are about what?", codes, WordEmbedding()) == []


def test_a_key_word_with_nothing_near_it_in_the_sources_is_missing():
    # guards issue 19 item 3: "Can the AR-7 be leased instead of bought?" was answered "No." from another FAQ
    assert missing_terms("Can the AR-7 be leased?", BUYING, WordEmbedding()) == ["leased"]


def test_a_word_stated_in_another_form_is_not_missing():
    sources = [_source(1, "A full charge takes three hours. Recalibration of the lidar takes four minutes.")]
    assert missing_terms("How long does charging take?", sources, WordEmbedding()) == []
    assert missing_terms("How long does recalibrating take?", sources, WordEmbedding()) == []
