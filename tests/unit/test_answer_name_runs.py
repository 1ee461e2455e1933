"""The names a question writes, as ragwire/answer/elsewhere.py reads them (issue 33, round 19)."""

from __future__ import annotations

import pytest

from ragwire.answer.elsewhere import name_runs


@pytest.mark.parametrize(("question", "runs"), [
    ("When is the Brackenridge ferry office open?", ["Brackenridge"]),
    ("What does a table at Millpond Craft Fair cost?", ["Millpond Craft Fair"]),
    ("Does Tolvan's bakery deliver?", ["Tolvan's"]),
    ("Do you ship to Spain and Portugal?", ["Spain", "Portugal"]),
    ("Is the PDF version free?", ["PDF"]),
])
def test_capitalised_words_after_the_first_are_names_and_adjacent_ones_one_name(question, runs):
    assert [written for written, _ in name_runs(question)] == runs


@pytest.mark.parametrize("question", [
    "Brackenridge charges what for a cabin?",  # the first word is capitalised anyway
    "I have twelve ewes. Shearing them costs what?",  # so is every sentence's first word
    "What does a room cost in July or on a Saturday?",  # a month or a weekday is a value on a scale
    "Does error E-3310 void the warranty?",  # a code is an identifier, checked as one
])
def test_capitals_a_sentence_a_calendar_or_a_code_asks_for_are_no_names(question):
    assert name_runs(question) == []


def test_a_names_words_are_lowercased_without_the_possessive():
    assert name_runs("What are Blue Heron Kayaks' opening hours?")[0][1] == ["blue", "heron", "kayaks"]
    assert name_runs("When does Tolvan's open?")[0][1] == ["tolvan"]
