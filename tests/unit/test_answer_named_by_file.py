"""A currency's hundredths as money, and a pair's modifier named by the file (issue 33, round 17), without a model."""

from __future__ import annotations

import pytest

from ragwire.answer.coverage import instance
from ragwire.answer.pairs import pair_in_sources

from .test_extractive import _source


@pytest.mark.parametrize("text", ["Each member pays 38 cents per kWh", "A first-class stamp is 95 pence",
                                  "Coffee refills: 50 öre", "Bus fare 20 kopecks", "Tea: 80 centimes"])
def test_a_currencys_hundredths_are_an_amount_of_money(text):
    assert instance("amount of money", text)


@pytest.mark.parametrize("text", ["A 5 per cent discount", "over 4 centuries old", "12 cm wide"])
def test_words_that_only_look_like_hundredths_are_not(text):
    assert not instance("amount of money", text)


def _named(index: int, text: str, name: str):
    return _source(index, text, source=f"/docs/{name}", file_name=name)


def test_a_file_named_for_the_modifier_names_the_pair_with_its_head():
    letter = _named(1, "From May the subscription is 40 a month for each flat.", "boiler-letter.txt")
    assert pair_in_sources(("boiler", "subscription"), [letter], {1: ""})


def test_a_file_named_for_something_else_does_not():
    letter = _named(1, "From May the subscription is 40 a month for each flat.", "parking-letter.txt")
    assert not pair_in_sources(("boiler", "subscription"), [letter], {1: ""})
