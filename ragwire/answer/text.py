"""Words of questions and passages, in one place: tokens, stems, unit abbreviations, stopwords and cosine.

Stems come from the Snowball English stemmer (``snowballstemmer``), with one step
on top: a stem of five letters or more that opens another at most three letters
longer is the same word family (``deliv`` / ``deliveri``: delivered ~ delivery).
Measured on 20 word-family pairs and 16 look-alike pairs (tests/unit/test_answer_text.py):
the hand-written suffix stripper this replaces joined 18/20 families and kept 13/16
look-alikes apart, the old first-letters rule 18/20 and 0/16, Snowball alone 17/20 and
16/16, Snowball with this step 20/20 and 10/16 (it joins weight ~ weigh and cover ~
coverage, wanted here, and station ~ stationary, policy ~ police, not wanted).  For a
grounding check a family too wide errs towards answering, which the rarity rule bounds.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

# Letters of any alphabet: "café", "Tromsø" and "Müller" are one word each, not "caf" and "troms".
WORD = re.compile(r"[^\W_]+(?:[.,'/-][^\W_]+)*")

# Unit abbreviations and spellings → the word a question uses ("km" answers "kilometre").
UNIT_NAMES = {"km": "kilometre", "kilometer": "kilometre", "m": "metre", "meter": "metre", "h": "hour",
              "hr": "hour", "hrs": "hour", "min": "minute", "mins": "minute", "sec": "second", "kg": "kilogram",
              "g": "gram", "db": "decibel", "nok": "krone", "kr": "krone", "eur": "euro", "usd": "dollar",
              "cm": "centimetre", "centimeter": "centimetre", "mm": "millimetre", "millimeter": "millimetre",
              "ml": "millilitre", "milliliter": "millilitre", "cl": "centilitre", "centiliter": "centilitre",
              "liter": "litre", "lb": "pound", "lbs": "pound", "oz": "ounce"}

# Abbreviations after which a period does not end a sentence ("e.g. the", "approx. 5").
SENTENCE_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "approx", "incl", "cf", "fig", "dr", "mr", "mrs",
                                    "ms", "st"})

# Function words and question words: never what a question is specifically about.
STOPWORDS = frozenset("""
a about above after again against all also am an and any anyone anything are around as at be because been before far
being below between both but by can could did do does doing done down during each else even ever every few for from
further get gets getting go goes going got had has have having he her here hers him his how however i if in into is
it its itself just like long many may me might mine more most much must my myself near need needs no nor not nothing now of
off often on once one only or other our ours out over own per put quite rather really same say see shall she should
so some someone something still such than that the their them then there these they thing things this those through
to too under until up upon us use used using very via want was way we well were what whatever when where whether
which while who whom whose why will with within without would yes yet you your yours
""".split())

# Verbs and nouns that frame a question rather than name its topic ("tell me", "what happens",
# "which kind of"): a document need not contain them to answer it.
QUESTION_FRAME = frozenset("""
tell explain describe list name give show find know mention state says said happen happens happened
kind kinds type types sort exactly usually typically actually currently approximately roughly total
does mean means meaning ask asked possible allowed able please someone anybody somebody
range amount value figure level
""".split())

_MIN_SHARED = 5
_MAX_EXTRA = 3


def words(text: str) -> list[str]:
    """Lowercased word tokens (``e-4711``, ``3.2.0`` and ``1,000`` stay whole; a possessive ``'s`` goes)."""
    return [w.removesuffix("'s") for w in WORD.findall(text.lower())]


def content_words(text: str) -> set[str]:
    """The words of ``text`` that can stand in for a question's word: alphabetic, three letters or more, not a function word."""
    return {w for w in words(text) if w not in STOPWORDS and w.isalpha() and len(w) > 2}


@functools.lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball stem of ``word``, a unit abbreviation read as its name first (``kg`` → ``kilogram``)."""
    word = word.lower()
    word = UNIT_NAMES.get(word, word)
    return str(_stemmer().stemWord(word))


def same_family(a: str, b: str) -> bool:
    """Whether two stems are one word family: equal, or one of five letters or more opens the other, at most three letters longer."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= _MIN_SHARED and len(long_) - len(short) <= _MAX_EXTRA and long_.startswith(short)


def folded(word: str) -> str:
    """``word`` without its accents ("Zürich": zurich, "café": cafe): a question typed on an English keyboard drops them."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


def stems(text: str) -> set[str]:
    return {stem(w) for w in words(text)}


def stated(word: str, text_stems: Iterable[str]) -> bool:
    """Whether ``word`` is in a text (given as its stems) in some form of the same family."""
    target = stem(word)
    return any(same_family(target, s) for s in text_stems)


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine similarity of two vectors (0.0 when either is zero)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    norm = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y) / norm if norm else 0.0


def cosines(vectors: Sequence[Sequence[float]] | np.ndarray, against: Sequence[float] | np.ndarray) -> np.ndarray:
    """Cosine of each row of ``vectors`` with ``against``, in one matrix product."""
    m = np.asarray(vectors, dtype=np.float64)
    v = np.asarray(against, dtype=np.float64)
    if m.size == 0:
        return np.zeros(0)
    norms = np.linalg.norm(m, axis=1) * np.linalg.norm(v)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (m @ v) / norms
    return np.nan_to_num(out)
