"""A thing counted one way in the question and only other ways in the quotes: the four-berth cabin answered with the two-berth's row.

Price lists and timetables name their rows by a count: a two-berth cabin, a five-night stay, a
half-day class, a double room.  The row of the next count shares every word of the question
but one, so the embedding ranks it close, and the checks of absent words pass (the count is
a number, not a word the collection lacks).  When the question counts a noun ("a four-berth
cabin") and the quotes count that noun only otherwise ("two-berth", "six-berth"), stating the
asked count nowhere beside it and in no range that holds it, the quotes answer for another
row.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .asked import asked, in_range, same_unit
from .instances import INSTANCES, SPELLED_VALUES, measure_unit
from .text import stem

# Counts that name a row without a digit: a single room, a double stint, a half-day or full-day ride.
_ROW_COUNTS = {"single": 1.0, "double": 2.0, "triple": 3.0, "half": 0.5, "full": 1.0, "whole": 1.0}
_VALUES = SPELLED_VALUES | _ROW_COUNTS
_NUMBER = rf"\d+(?:[.,]\d+)?|{'|'.join(sorted(_VALUES, key=len, reverse=True))}"
# The question's count and its noun, joined as one modifier: "four-berth", "2-bedroom", "double room".
_ASKED = re.compile(rf"\b({_NUMBER})(?:-|\s(?=[a-z]))([a-z]{{3,}})\b", re.IGNORECASE)
# A count before a noun in a quote, joined or not: "Three-day", "2 days".
_COUNTED = re.compile(rf"\b({_NUMBER})[-\s]([a-z]{{3,}})\b", re.IGNORECASE)
# A range of counts before a noun ("3–5 days", "two to four nights") and an open bound ("up to 4 nights").
_RANGE = re.compile(rf"\b({_NUMBER})\s*(?:[–-]|to)\s*({_NUMBER})[-\s]([a-z]{{3,}})\b", re.IGNORECASE)
_BOUND = re.compile(rf"\b(up to|under|less than|at most|over|more than|at least)\s+({_NUMBER})[-\s]([a-z]{{3,}})\b",
                    re.IGNORECASE)
_BELOW = ("up to", "under", "less than", "at most")
# A period naming a ticket or a rate with no count before it is one of it: a "day ticket" is a one-day ticket, a
# "week pass" a one-week pass.
_PERIODS = frozenset({"hour", "day", "night", "week", "month", "year"})
_ONE_PERIOD = re.compile(r"(?<![\w-])(?<!\d\s)(hour|day|night|week|month|year)[-\s](?:tickets?|pass(?:es)?|cards?|"
                         r"rates?|hire|rental|permits?|licen[cs]es?|memberships?|fares?|tariffs?)\b", re.IGNORECASE)
_FOR = re.compile(r"\bfor\s+$", re.IGNORECASE)


def value(number: str) -> float:
    """The count a digit string or a number word stands for (``"2"``, ``"two"``, ``"double"``: 2.0)."""
    lowered = number.lower()
    return _VALUES[lowered] if lowered in _VALUES else float(lowered.replace(",", "."))


def other_count(question: str, quoted: Sequence[str]) -> tuple[str, str] | None:
    """The count-and-noun of ``question`` ("four-berth") and a count of that noun the ``quoted`` texts give instead
    ("two-berth"), when they give it only for other counts; None when the question counts no noun, or the quotes
    state its count, hold it in a range, or never count that noun."""
    text = " ".join(quoted)
    for named in _ASKED.finditer(question):
        number, noun = named.groups()
        joined = "-" in named.group(0)
        # Unjoined, only a row word counts ("double room"), and only against another row word ("single room"): "a
        # single guest pass" is one pass, not one of the "2 guests" a household pass admits.  A count the thing
        # is asked for ("a lesson for three people") is a row's condition too, against the rows' counts ("2 people").
        wanted_for = not joined and bool(_FOR.search(question[:named.start()]))
        if not joined and number.lower() not in _ROW_COUNTS and not wanted_for:
            continue
        wanted, root = value(number), stem(noun)
        counted = [(value(m.group(1)), m.group(0)) for m in _COUNTED.finditer(text) if stem(m.group(2)) == root
                   and (joined or wanted_for or m.group(1).lower() in _ROW_COUNTS)]
        if joined and not counted and root in _PERIODS:
            counted = [(1.0, m.group(0)) for m in _ONE_PERIOD.finditer(text) if m.group(1).lower() == root]
        if wanted_for and re.search(rf"(?:\b(?:per|each|a)\s+|/\s*){re.escape(root)}", text, re.IGNORECASE):
            continue  # a rate per person or per night answers any count of them
        if not counted or any(count == wanted for count, _ in counted) or _held(wanted, root, text):
            continue
        if wanted == 1 and re.search(rf"(?:\b(?:per|a|an|each|one)\s+|/\s*){re.escape(noun)}s?\b", text, re.IGNORECASE):
            continue  # "a full day" is the day a rate is given per ("25 EUR per day" beside "15 EUR per half day")
        return named.group(0), counted[0][1]
    return None


def _held(wanted: float, root: str, text: str) -> bool:
    """Whether a range or an open bound in ``text`` over the same noun holds the count ``wanted``."""
    for m in _RANGE.finditer(text):
        if stem(m.group(3)) == root and value(m.group(1)) <= wanted <= value(m.group(2)):
            return True
    for m in _BOUND.finditer(text):
        if stem(m.group(3)) == root:
            bound = value(m.group(2))
            if (wanted <= bound) if m.group(1).lower() in _BELOW else (wanted >= bound):
                return True
    return False


# A later one of several, priced apart: "a second child", "the third checked bag".  Not a time ("per second") nor a
# place in a result ("coming second").
_ORDINAL = re.compile(r"(?<!per )(?<!\d )\b(second|third|fourth|fifth|2nd|3rd|4th|5th)\s+([a-z]{3,})(?:\s+([a-z]{3,}))?",
                      re.IGNORECASE)
# Each ordinal's other way of writing it.
_ORDINAL_FORMS = {"second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th"}
_ORDINAL_FORMS |= {digits: word for word, digits in _ORDINAL_FORMS.items()}
# Words that price every one after the first alike ("each additional child", "further bags").
_LATER = re.compile(r"\b(?:additional|extra|further|subsequent|another|siblings?|next|more)\b", re.IGNORECASE)


def other_ordinal(question: str, quoted: Sequence[str]) -> tuple[str, str] | None:
    """A later one of a thing asked for ("a second child") and what the ``quoted`` texts give instead, when they
    name the thing but never the later one: no such ordinal, no word for every one after the first ("additional"),
    and no rate per one ("per child", "each bag"); None otherwise."""
    m = _ORDINAL.search(question)
    if not m:
        return None
    ordinal = m.group(1).lower()
    forms = {ordinal, _ORDINAL_FORMS[ordinal]}
    text = " ".join(quoted)
    tokens = [w.lower() for w in re.findall(r"[\w-]+", text)]
    nouns = {stem(w) for w in m.groups()[1:] if w}
    if forms & set(tokens) or _LATER.search(text):
        return None
    if any(a in ("per", "each", "every") and stem(b) in nouns for a, b in zip(tokens, tokens[1:], strict=False)):
        return None
    named = next((w for w in tokens if stem(w) in nouns), None)
    if named is None:
        return None
    asked = next(w for w in m.groups()[1:] if w and stem(w) == stem(named))
    return f"{m.group(1)} {asked}", f"one {named}"


# Rooms and beds are named by how many they sleep, the noun often left to a column ("Room: Twin, shared bath").
_OCCUPANCY = ("single", "double", "twin", "triple", "quadruple", "quad")
_OCCUPIED = re.compile(rf"\b({'|'.join(_OCCUPANCY)})\s+(rooms?|beds?|cabins?|bedrooms?|suites?)\b", re.IGNORECASE)


def other_occupancy(question: str, quoted: Sequence[str]) -> tuple[str, str] | None:
    """A room or bed asked by how many it sleeps ("a triple room") and the quotes' other sizes ("double"), when
    they never name the asked one; None otherwise."""
    m = _OCCUPIED.search(question)
    if not m:
        return None
    text = " ".join(quoted).lower()
    asked = m.group(1).lower()
    if re.search(rf"\b{asked}\b", text):
        return None
    others = [w for w in _OCCUPANCY if w != asked and re.search(rf"\b{w}\b", text)]
    return (m.group(0), others[0]) if others else None


# A number before a unit in a quote ("20 × 20 cm", "10 kg", "1.5 l").
_MEASURED = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s*([a-zA-Zµ°]+)")


def other_measure(question: str, quoted: Sequence[str]) -> tuple[str, str] | None:
    """A size the question names a row by ("a 30 × 30 cm album", "the 22 kg machine") and the size the ``quoted``
    texts give instead ("20 × 20 cm"), when they give that unit only for other numbers and in no range holding it.

    A length of time is left out: "within 24 hours" or "after 7 days" in a question is a condition, not a row.
    """
    text = " ".join(quoted)
    for literal, wanted, unit in asked(question).numbers:
        if not unit or not measure_unit(unit) or INSTANCES["duration"].search(f"2 {unit}"):
            continue
        given = [(float(m.group(1).replace(",", ".")), m.group(0)) for m in _MEASURED.finditer(text)
                 if same_unit(unit, m.group(2))]
        if not given or any(value == wanted for value, _ in given) or in_range(wanted, unit, text):
            continue
        return f"{literal} {unit}", given[0][1]
    return None
