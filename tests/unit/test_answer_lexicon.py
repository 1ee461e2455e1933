"""The packaged lexicon: which words may stand for a question's word, and which are only its siblings."""

from __future__ import annotations

import pytest

from ragwire.answer.lexicon import lexicon


@pytest.mark.parametrize(("word", "other"), [
    ("licence", "permit"),  # one sense
    ("guarantee", "warranty"),
    ("suitcase", "baggage"),  # a kind of it
    ("baggage", "suitcase"),  # either way
    ("vets", "veterinary"),  # a derivation, past the plural
    ("upkeep", "maintenance"),
])
def test_a_synonym_a_derivation_or_a_kind_stands_for_the_word(word, other):
    assert lexicon().stands_for(word, other) is True


@pytest.mark.parametrize(("word", "other"), [
    ("weekend", "weekday"),  # siblings under one parent
    ("horses", "dogs"),
    ("pear", "apples"),
    ("largest", "smallest"),  # opposites, past the superlative
    ("envelopes", "paper"),
])
def test_a_sibling_or_an_opposite_does_not_stand_for_the_word(word, other):
    assert lexicon().stands_for(word, other) is False


def test_a_word_the_lexicon_does_not_know_is_left_undecided():
    assert lexicon().stands_for("drysuit", "wetsuit") is None
    assert lexicon().stands_for("weekend", "fjellglid") is None


def test_irregular_and_regular_inflections_find_their_dictionary_form():
    assert "goose" in lexicon().lemmas("geese")
    assert "large" in lexicon().lemmas("largest")
    assert "ferry" in lexicon().lemmas("ferries")


@pytest.mark.parametrize(("word", "other", "verdict"), [
    ("smallest", "minimum", True),
    ("cheapest", "minimum", True),
    ("highest", "maximum", True),
    ("largest", "minimum", False),
    ("oldest", "minimum", False),
])
def test_a_superlative_names_its_end_of_the_scale(word, other, verdict):
    assert lexicon().stands_for(word, other) is verdict


@pytest.mark.parametrize(("word", "other", "verdict"), [
    ("cat", "dog", True),  # both kinds of one thing, two steps up
    ("pine", "birch", True),
    ("lunch", "dinner", True),
    ("senior", "adult", False),  # a kind of it: it stands for it, no sibling
    ("price", "fee", False),  # they meet three steps up: too broad a kin
    ("warranty", "guarantee", False),  # one sense
    ("drysuit", "wetsuit", False),  # unknown
])
def test_siblings_are_kinds_of_one_thing_neither_standing_for_the_other(word, other, verdict):
    assert lexicon().siblings(word, other) is verdict
