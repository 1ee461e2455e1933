"""answer/text.py: one home for word tokens, stems, unit names and cosine; the stemmer choice is measured here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ragwire.answer.text import cosine, cosines, same_family, stated, stem, stems, words

# Word families the development corpus (examples/docs) uses in questions and answers, and look-alikes.
FAMILIES = [("delivery", "delivered"), ("deliveries", "delivery"), ("charging", "charge"), ("charger", "charging"),
            ("weigh", "weighs"), ("weighing", "weighs"), ("recalibration", "recalibrating"), ("kilometre", "km"),
            ("batteries", "battery"), ("notify", "notification"), ("replacement", "replace"),
            ("covered", "covers"), ("mapping", "maps"), ("shipping", "shipped"), ("warranty", "warranties"),
            ("operator", "operators"), ("navigation", "navigate"), ("hours", "hour"), ("priced", "price"),
            ("minutes", "min")]
LOOK_ALIKES = [("weight", "weigh"), ("port", "portable"), ("cover", "coverage"), ("general", "generate"),
               ("organ", "organisation"), ("news", "new"), ("station", "stationary"), ("universe", "university"),
               ("policy", "police"), ("arm", "army"), ("card", "cardiac"), ("ship", "shipment"), ("lid", "lidar"),
               ("car", "cart"), ("part", "party"), ("plan", "planet")]


def test_the_stemmer_joins_every_word_family_and_keeps_ten_of_sixteen_look_alikes_apart():
    joined = sum(same_family(stem(a), stem(b)) for a, b in FAMILIES)
    apart = sum(not same_family(stem(a), stem(b)) for a, b in LOOK_ALIKES)
    assert (joined, apart) == (20, 10)


def test_a_unit_abbreviation_is_stated_by_its_name_and_a_currency_code_by_the_currency():
    assert stated("kilometre", stems("Each km costs 0.45 EUR."))
    assert stated("kroner", stems("Total due: 4318.50 NOK"))
    assert stated("millilitres", stems("Large cup (700 ml)")) and stated("centimetres", stems("30 cm wide"))
    assert stated("pounds", stems("a 12 lb turkey")) and not stated("millilitres", stems("700 mm"))


def test_words_keep_codes_versions_and_numbers_whole():
    assert words("Error E-4711 after firmware 3.2.0 cost 1,000 EUR, the robot's fault") == [
        "error", "e-4711", "after", "firmware", "3.2.0", "cost", "1,000", "eur", "the", "robot", "fault"]


def test_cosine_of_vectors_and_of_rows():
    assert cosine([1, 0], [1, 0]) == pytest.approx(1.0)
    assert cosine([0, 0], [1, 0]) == 0.0
    assert list(cosines([[1, 0], [0, 1], [0, 0]], [1, 0])) == pytest.approx([1.0, 0.0, 0.0])


def test_no_answer_module_keeps_its_own_stemmer_cosine_or_abbreviation_table():
    # Regression: three stemmers, two abbreviation tables and three cosines lived in answer/ (issue 33).
    for path in Path("ragwire/answer").glob("*.py"):
        if path.name == "text.py":
            continue
        names = {n.name for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(n, (ast.FunctionDef, ast.Assign)) and hasattr(n, "name")}
        names |= {t.id for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Assign)
                  for t in n.targets if isinstance(t, ast.Name)}
        assert not names & {"_stem", "_cosine", "_ABBREVIATIONS", "_STOPWORDS"}, path


def test_a_word_with_letters_outside_ascii_is_one_word():
    # Round 4: "café" was read as "caf" and "Holmøy" as "holm", so a term was counted and grounded as another word.
    from ragwire.answer.text import words

    assert words("Are dogs allowed in the café at Holmøy or Müllerstraße?") == [
        "are", "dogs", "allowed", "in", "the", "café", "at", "holmøy", "or", "müllerstraße"]
