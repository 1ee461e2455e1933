"""Ages a row is for: an 11-year-old's price is in the row whose ages hold 11.

A price list gives one row per age band ("Child (6–12)", "riders 12 and over", "under 6:
free", "Junior (14 to 17 years)"), and a question names an age ("for a
11-year-old", "our 13-year-old daughter", "a child aged 9").  The rows of every band share the
question's other words, so the embedding cannot tell them apart; the ages can.  Passages
whose bands hold the asked age are quoted before the others, and when every passage that
gives a band gives one without the age, the answer is about another age and is refused.  A
passage naming payers but no ages ("Extra adult: NZ$22") gives their usual bands.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from .focus import PAYER_GROUPS
from .instances import SPELLED_VALUES

_SPELLED = "|".join(sorted((w for w, v in SPELLED_VALUES.items() if v == int(v) and 1 <= v <= 20), key=len,
                           reverse=True))
_AGE = rf"(\d{{1,2}}|{_SPELLED})"
# "an 11-year-old", "a seven-year-old", "a child aged 9", "who is 12 years old", "I'm 68, what …".
# Not a band itself: "pupils aged 5 to 11" asks for that band's row, which its words find.
_ASKED = re.compile(rf"\b{_AGE}[- ]years?[- ]old\b|\baged\s+{_AGE}\b(?!\s*(?:to|–|-|and|or)\s*\d)"
                    rf"|\b{_AGE}\s+years\s+old\b|\b(?:I'm|I am|I’m)\s+{_AGE}\b(?=\s*(?:[—–,;.:!?-]|and\b|$))",
                    re.IGNORECASE)
_N = r"(\d{1,2})"
# The bands a passage gives, each as (youngest, oldest): "ages 6 to 12", "age 12–14", "(6–12)" after a payer word,
# "12 and over", "14+" in an age column, "under 6", "over 65", "from 8 years".
_BANDS = (
    (re.compile(rf"\b(?:ages?d?|children|child|kids?|juniors?|youths?|teens?|students?|dancers?|pupils?|"
                rf"participants?)\W{{0,3}}(?:\w+\W+){{0,2}}?{_N}\s*(?:to|–|-|and)\s*{_N}\b", re.IGNORECASE),
     lambda m: (int(m.group(1)), int(m.group(2)))),
    (re.compile(rf"\b{_N}\s*(?:to|–|-)\s*{_N}\s*(?:years|yrs|y\.o\.)", re.IGNORECASE),
     lambda m: (int(m.group(1)), int(m.group(2)))),
    (re.compile(rf"\b{_N}\s*(?:years\s*)?(?:and|or)\s*(?:over|older|above|up)\b", re.IGNORECASE),
     lambda m: (int(m.group(1)), math.inf)),
    (re.compile(rf"\b(?:ages?|aged?)\W{{0,3}}{_N}\s*\+", re.IGNORECASE), lambda m: (int(m.group(1)), math.inf)),
    (re.compile(rf"\bunder[- ]{_N}s?\b", re.IGNORECASE), lambda m: (0, int(m.group(1)) - 1)),
    (re.compile(rf"\bover[- ]{_N}s?\b", re.IGNORECASE), lambda m: (int(m.group(1)) + 1, math.inf)),
    (re.compile(rf"\bfrom\s+(?:age\s+)?{_N}\s+years?\b", re.IGNORECASE), lambda m: (int(m.group(1)), math.inf)),
    # "adults from 25 pay", "members aged from 60": a payer from an age on, with no end after it.
    (re.compile(rf"\b(?:adults?|seniors?|pensioners?|members?|people|persons?|pupils?|students?)\s+(?:aged\s+)?from\s+"
                rf"(?:age\s+)?{_N}\b(?!\s*(?:years?\s*)?(?:to|–|-)\s*\d|\s*years?\b)", re.IGNORECASE),
     lambda m: (int(m.group(1)), math.inf)),
)


# The ages a payer stands for where a list gives no numbers: loose, since lists draw the lines differently (a child
# is under 16 or under 18, a senior 60 or 65 and over), but an 11-year-old is no adult anywhere.  Each payer group of
# focus.PAYER_GROUPS is found by one of its words and named by its plural in a refusal.
_PAYER_BANDS: dict[str, tuple[tuple[float, float], str]] = {
    "infant": ((0, 3), "infants"), "child": ((0, 17), "children"), "teen": ((12, 19), "teens"),
    "adult": ((16, math.inf), "adults"), "senior": ((60, math.inf), "seniors")}
_PAYER_WORDS = {word: band for group in PAYER_GROUPS for payer, (band, _) in _PAYER_BANDS.items() if payer in group
                for word in group}
_PAYER_PLURALS = {band: plural for band, plural in _PAYER_BANDS.values()}
_WORDS = re.compile(r"[a-z]+")


def asked_age(question: str) -> int | None:
    """The age ``question`` names ("an 11-year-old" → 11), or None."""
    m = _ASKED.search(question)
    if not m:
        return None
    value = next(g for g in m.groups() if g)
    return int(value) if value.isdigit() else int(SPELLED_VALUES[value.lower()])


def bands(text: str) -> list[tuple[float, float]]:
    """The age bands ``text`` gives, as ``(youngest, oldest)``: in numbers, else by its payer words ("Extra adult")."""
    return bands_in_numbers(text) or [_PAYER_WORDS[w] for w in _WORDS.findall(text.lower()) if w in _PAYER_WORDS]


def bands_in_numbers(text: str) -> list[tuple[float, float]]:
    """The age bands ``text`` gives in numbers ("ages 6 to 12", "from 16 years"), not by its payer words."""
    return [band(m) for pattern, band in _BANDS for m in pattern.finditer(text)]


def holds(age: int, text: str) -> bool | None:
    """Whether a band of ``text`` holds ``age``; None when ``text`` gives no band."""
    found = bands(text)
    return None if not found else any(lo <= age <= hi for lo, hi in found)


def other_age(question: str, quoted: Sequence[str]) -> tuple[str, str] | None:
    """``(the asked age, a band the quotes give)`` when the quotes give age bands and none holds the asked age."""
    age = asked_age(question)
    if age is None:
        return None
    found = [b for text in quoted for b in bands(text)]
    if not found or any(lo <= age <= hi for lo, hi in found):
        return None
    lo, hi = found[0]
    worded = not bands_in_numbers(" ".join(quoted))
    band = (_PAYER_PLURALS[(lo, hi)] if worded and (lo, hi) in _PAYER_PLURALS
            else f"ages {lo:g} and over" if hi == math.inf else f"ages under {hi + 1:g}" if lo == 0
            else f"ages {lo:g} to {hi:g}")
    return f"a {age}-year-old", band


def other_age_text(asked: str, band: str) -> str:
    """The refusal for quotes about another age band."""
    return f"The documents do not say: the closest passages give prices for {band}, not for {asked}."
