"""What a passage shows of what was asked: the attribute's own words, and the literal values the question names.

The embedding ranks passages by topic, and a document's neighbouring sentences and
table rows share its topic: the row of group A and the row of group B, the departure
at 07:15 and the one at 17:15, "a week; maximum load" and "Week maximum".  What tells
the answer apart is evidence read off the passage: it names the attribute asked for
("what delivery charge": *delivery charge*, side by side when the question writes two
words), and it holds the question's literal values (a time, a code, a one-letter key, a
number) or a range that contains an asked number ("6 to 20 days" for 12 days, "3.01 – 5 m"
for a 4 m canoe).  :func:`evidence` scores that per passage; the extractive answerer
ranks the whole retrieved set by it, not only by the embedding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .expectations import type_word
from .instances import UNITS
from .text import QUESTION_FRAME, STOPWORDS, stated, stem, stems, words

_TOKEN = re.compile(r"[\w.-]+")
_VALUE = re.compile(r"[\w.:/-]+")  # a value as written: a time (10:50), a date (2027-01-07), a code
# The phrase naming what is asked: the words after the question's wh-word, past its auxiliaries and
# determiners ("what is the notice period", "which insurance company"), or a "how" adjective ("how hard").
_WH = re.compile(r"\b(?:what(?:'?s)?|which|who|how much|how many)\b((?:\W+[\w'-]+){1,6})", re.IGNORECASE)
_HOW = re.compile(r"\bhow ([a-z]+)\b", re.IGNORECASE)
_WHERE = re.compile(r"\bwhere (?:is|are|was|were|does|do|did|can|could)\b((?:\W+[\w'-]+){1,6})", re.IGNORECASE)
# "How <word>" asking a measure or a manner, not an attribute the passage would name.
_HOW_NOT_ATTRIBUTE = frozenset("much many long often do does did is are can could should to come about".split())
# Values the question writes out: a time (10:50), a number (9, 2.5), a date or code (2024-01-07, E-17).
_LITERAL = re.compile(r"(?<![\w.:-])(\d{1,2}:\d{2}|\d[\d.,:/-]*\d|\d)(?:\s*([a-zA-Zµ°%]+))?")
# A one-letter key ("group B", "zone C", "category B car"): a capital letter standing alone, not "I" or "A".
_KEY = re.compile(r"(?<=\s)([B-HJ-Z])(?=[\s?.,!]|$)")
# A clothing-style size code picks one row of a size table: "an M-size unit", "a size XL box", "the XS locker".
_SIZE_CODE = re.compile(r"(?<![\w-])(XXS|XS|S|M|L|XL|XXL|XXXL)-size[ds]?\b|\bsize[- ](XXS|XS|S|M|L|XL|XXL|XXXL)(?![\w-])")
# The kinds of day a question may ask about that hold several weekdays, each as it is written in a question.
KINDS_OF_DAY = {"weekday": re.compile(r"\b(?:weekdays?|working\s+days?)\b", re.IGNORECASE),
                 "weekend": re.compile(r"\bweekends?\b", re.IGNORECASE)}
# "a third lesson": an ordinal picks one row of several as a number does.
ORDINALS = frozenset("first second third fourth fifth sixth seventh eighth ninth tenth".split())
# "open on Saturdays": a day of the week picks one line of a timetable as a number does.
DAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
# The scales whose values come round again, in order: a range "1 October to 30 April" holds January.
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
WEEK = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ORDINAL_DAY = r"(?:\d{1,2}(?:st|nd|rd|th)?\.?\s*)?"
_CYCLIC_RANGE = re.compile(rf"\b([a-z]{{3,9}})\b\.?\s*{_ORDINAL_DAY}(?:–|—|-|to|until|till|through|thru)\s*{_ORDINAL_DAY}"
                           r"([a-z]{3,9})\b", re.IGNORECASE)
# Parts of the day by their hours: "lane hire on Sunday mornings" is the 06:30–11:30 slot.  Not the night, which
# is also what a stay is counted in ("per night").
PARTS_OF_DAY = {"morning": (5.0, 12.0), "afternoon": (12.0, 17.5), "evening": (17.5, 23.0)}
_TIME_SLOT = re.compile(r"\b(\d{1,2})[:.h](\d{2})\s*(?:–|—|-|to|until)\s*(\d{1,2})[:.h](\d{2})\b")
_N = r"\d+(?:[.,]\d+)?"
# Ranges a passage gives ("6 to 20 days", "3.01 – 5 m", "over 5 m", "up to 20 kg"), by how they bound.
_BETWEEN = re.compile(rf"({_N})\s*(?:[a-zA-Z°]+\s*)?(?:–|—|-|to|until)\s*({_N})\s*([a-zA-Z°%]*)")
_ABOVE = re.compile(rf"\b(?:over|above|more than|from|longer than|at least)\s+({_N})\s*([a-zA-Z°%]*)", re.IGNORECASE)
_BELOW = re.compile(rf"\b(?:up to|under|below|less than|at most|max\.?|maximum|within)\s+({_N})\s*([a-zA-Z°%]*)",
                    re.IGNORECASE)


@dataclass(frozen=True)
class Asked:
    """What a passage answering the question shows.

    Attributes:
        words: The words naming the attribute asked for ("notice", "period"), as written.
        literals: The question's literal values, lower-cased ("10:50", "b", "e-17").
        numbers: Its numbers as ``(literal, value, the unit written after it)``: a range holding one states it.
    """

    words: tuple[str, ...] = ()
    literals: tuple[str, ...] = ()
    numbers: tuple[tuple[str, float, str], ...] = ()


_AGE_GROUP = re.compile(r"\bunder[- ](\d{1,2})s?\b|\bU-?(\d{1,2})s?\b", re.IGNORECASE)


def asked(question: str) -> Asked:
    """The attribute words and literal values of ``question`` (see :class:`Asked`)."""
    attribute: list[str] = []
    if m := _WH.search(question):
        phrase = m.group(1)
        if owner := re.match(r"^(?:[\w-]+\W+){0,4}?[\w-]+'s\b", phrase.strip()):
            phrase = phrase.strip()[owner.end():]  # "what is the tenant's deposit": the owner's attribute
        tokens = words(phrase)
        while tokens and (tokens[0] in STOPWORDS or tokens[0] in QUESTION_FRAME):
            tokens.pop(0)
        for token in tokens[:2]:
            if token in STOPWORDS or any(c.isdigit() for c in token):
                break
            if not type_word(token):  # "what's the charge": the type's units show it, not the word
                attribute.append(token)
    if not attribute and (m := _WHERE.search(question)):
        # "where is the sorting depot located": the place of that subject, which the passage names beside it.
        phrase = m.group(1)
        if owner := re.match(r"^(?:[\w-]+\W+){0,4}?[\w-]+'s\b", phrase.strip()):
            phrase = phrase.strip()[owner.end():]
        for token in words(phrase)[:3]:
            if token in STOPWORDS or token in QUESTION_FRAME:
                if attribute:
                    break
                continue
            attribute.append(token)
        attribute = attribute[:2]
    for m in _HOW.finditer(question):
        if m.group(1).lower() not in _HOW_NOT_ATTRIBUTE and m.group(1).lower() not in attribute:
            attribute.append(m.group(1).lower())
    literals = [m.group(1).lower() for m in _LITERAL.finditer(question)]
    literals += [m.group(1).lower() for m in _KEY.finditer(question)]
    literals += [f"size:{m.group(1) or m.group(2)}" for m in _SIZE_CODE.finditer(question)]
    tokens = [_day(t) for t in words(question)]
    literals += [w for w in tokens if w in DAYS]
    # A kind of day picks rows as a weekday does: "on weekdays" is the "Tue–Fri" row, not the weekend's.
    literals += [kind for kind, pattern in KINDS_OF_DAY.items() if pattern.search(question)]
    literals += [w.removesuffix("s") for w in tokens if w.removesuffix("s") in PARTS_OF_DAY]
    literals += [w for w in tokens if w in MONTHS]
    # An age group picks its row as a number does, written "under-15", "under 15s" or "U15" alike.
    literals += [f"u{m.group(1) or m.group(2)}" for m in _AGE_GROUP.finditer(question)]
    # An ordinal counts with its noun: "the second child" picks a row, "after the first year" none.
    literals += [f"{w} {n}" for w, n in zip(tokens, tokens[1:], strict=False) if w in ORDINALS]
    numbers = []
    for m in _LITERAL.finditer(question):
        value = _number(m.group(1))
        if value is not None:
            numbers.append((m.group(1).lower(), value, (m.group(2) or "").lower()))
    return Asked(tuple(attribute), tuple(dict.fromkeys(literals)), tuple(numbers))


def attribute_share(wanted: Asked, text: str) -> float:
    """How much of the attribute ``text`` names: the share of its words stated, 1.5 when written side by side."""
    if not wanted.words:
        return 0.0
    said = stems(text)
    share = sum(stated(w, said) for w in wanted.words) / len(wanted.words)
    if len(wanted.words) > 1 and share == 1.0 and _side_by_side(wanted.words, text):
        return 1.5
    return share


def literals_held(wanted: Asked, text: str) -> set[str]:
    """The question's literal values ``text`` holds: the very token, or a range containing an asked number."""
    tokens = {_day(t.strip(".,;:()").lower()) for t in _VALUE.findall(text)}
    units = {lit: unit for lit, _, unit in wanted.numbers if unit}
    # A part of the day is held by a time slot in it, not by its word: "Evening asana" names a class, not a time.
    held = {lit for lit in wanted.literals if lit in tokens and lit not in PARTS_OF_DAY
            and (lit not in units or with_unit(lit, units[lit], text))}
    held |= {lit for lit in wanted.literals if " " in lit and _side_by_side(tuple(lit.split()), text)}
    # A size code is written in capitals, standing alone ("Size: M", "M · 6 m2"), not a unit after a number ("2.4 m").
    held |= {lit for lit in wanted.literals if lit.startswith("size:")
             and re.search(rf"(?<![\w.,-])(?<!\d )(?<!\d){lit[5:]}(?![\w'’-])", text)}
    held |= {lit for lit in wanted.literals if lit in PARTS_OF_DAY and _in_part_of_day(lit, text)}
    held |= {lit for lit in wanted.literals if lit in MONTHS and in_cyclic_range(lit, text)}
    held |= {lit for lit in wanted.literals if re.fullmatch(r"u\d+", lit)
             and any((m.group(1) or m.group(2)) == lit[1:] for m in _AGE_GROUP.finditer(text))}
    for lit, value, unit in wanted.numbers:
        if lit not in held and in_range(value, unit, text):
            held.add(lit)
    return held


def _in_part_of_day(part: str, text: str) -> bool:
    """Whether ``text`` gives a time slot in that part of the day ("06:00 to 12:00" is the morning's): its middle
    falls in the part's hours."""
    start, end = PARTS_OF_DAY[part]
    for m in _TIME_SLOT.finditer(text):
        first, last = int(m.group(1)) + int(m.group(2)) / 60, int(m.group(3)) + int(m.group(4)) / 60
        last += 24 if last <= first else 0
        middle = (first + last) / 2
        if start <= middle < end or start <= middle + 24 < end:
            return True
    return False


def _day(word: str) -> str:
    """A weekday in the singular ("saturdays": saturday); any other word as it is."""
    return word[:-1] if word.endswith("s") and word[:-1] in DAYS else word


def with_unit(literal: str, unit: str, text: str) -> bool:
    """Whether ``text`` writes the number in the unit the question gives it ("10 days", not "10 kr"), or under a
    column named in it ("speed_mbps: 300", "Weight (kg): 16.5")."""
    if any(same_unit(unit, m.group(1))
           for m in re.finditer(rf"(?<![\w.]){re.escape(literal)}\s*([a-zA-Z°%]+)", text, re.IGNORECASE)):
        return True
    return any(same_unit(unit, m.group(1)) for m in re.finditer(
        rf"(?<![^\W_])([a-zA-Z°%]+)\)?\s*:\s*{re.escape(literal)}(?![\d.,]\d|\d)", text, re.IGNORECASE))


def identifying(literals: set[str], question: str, timed: bool) -> set[str]:
    """The ``literals`` of ``question`` that name the row asked about: what it is ("8 kg", "size:M", "u15", a code, a
    number in a range), not what it is priced per ("per 100 sheets"); and when it holds (a day, a month, a part of the
    day) only for a question asking a time (``timed``): a timetable's row for a day gives that day's times, but a price
    list's row for a day prices whatever the row is of, not the meal asked about for that day."""
    return {lit for lit in literals if (timed or lit not in _WHENS)
            and not re.search(rf"\b(?:per|every|each)\s+{re.escape(lit)}\b", question, re.IGNORECASE)}


# The answer types that are times: a row for the asked day or month gives them.
TIMED_KINDS = frozenset({"time of day", "frequency", "calendar date", "date", "duration"})
# The literals saying when a row holds, not what it is of (see identifying()).
_WHENS = DAYS | set(MONTHS) | set(PARTS_OF_DAY) | set(KINDS_OF_DAY)


def telling(held: Sequence[set[str]]) -> set[str]:
    """The literals held by at most half the passages: one most passages hold (a product's model number) tells none apart."""
    counts: dict[str, int] = {}
    for found in held:
        for lit in found:
            counts[lit] = counts.get(lit, 0) + 1
    return {lit for lit, n in counts.items() if 2 * n <= len(held)}


def _number(token: str) -> float | None:
    if ":" in token or token.count("-") or token.count("/"):
        return None
    try:
        return float(token.replace(",", ""))
    except ValueError:
        return None


def in_range(value: float, unit: str, text: str) -> bool:
    """Whether ``text`` bounds a range that holds ``value`` (in ``unit`` when the question names one): "6 to 20 days"
    holds 12 days, "3.01 – 5 m" a 4 m canoe."""
    for m in _BETWEEN.finditer(text):
        low, high = _float(m.group(1)), _float(m.group(2))
        if low is not None and high is not None and low < high and low <= value <= high and same_unit(unit, m.group(3)):
            return True
    for pattern, holds in ((_ABOVE, lambda v, b: v > b), (_BELOW, lambda v, b: v <= b)):
        for m in pattern.finditer(text):
            bound = _float(m.group(1))
            if bound is not None and holds(value, bound) and unit and same_unit(unit, m.group(2)):
                return True
    return False


def in_cyclic_range(word: str, text: str) -> bool:
    """Whether ``text`` gives a range of months or weekdays that holds ``word`` ("1 October to 30 April" holds
    January, "Mon–Fri" a Wednesday); a range may wrap round the year or the week."""
    place = _on_cycle(_day(word.lower()))
    if place is None:
        return False
    cycle, at = place
    for m in _CYCLIC_RANGE.finditer(text):
        start, end = _on_cycle(m.group(1).lower()), _on_cycle(m.group(2).lower())
        if start and end and start[0] is cycle and end[0] is cycle and start[1] != end[1]:
            if (at - start[1]) % len(cycle) <= (end[1] - start[1]) % len(cycle):
                return True
    return False


def _on_cycle(word: str) -> tuple[tuple[str, ...], int] | None:
    """The scale ``word`` names a value of (a month, a weekday; in full or by its first three letters), and where."""
    for cycle in (MONTHS, WEEK):
        for i, name in enumerate(cycle):
            if word == name or len(word) >= 3 and name.startswith(word):
                return cycle, i
    return None


def _float(text: str) -> float | None:
    try:
        return float(text.replace(",", "."))
    except ValueError:
        return None


def same_unit(asked_unit: str, given: str) -> bool:
    """No unit asked, or the range's unit is the same word (in some form: "days" for "day", "m" for "m")."""
    if not asked_unit:
        return True
    given = given.lower()
    if not given:
        return False
    # One unit in two spellings: "20 l" for "20 litres", "5 kilos" for "5 kg" (instances.UNITS).
    return given == asked_unit or stem(given) == stem(asked_unit) or any(
        re.fullmatch(p, given) and re.fullmatch(p, asked_unit.lower()) for p in UNITS.values())


def _side_by_side(attribute: tuple[str, ...], text: str) -> bool:
    """Whether the attribute's words stand next to each other in ``text``, in order, no punctuation between."""
    for clause in re.split(r"[^\w\s'-]+", text):
        tokens = [stem(w) for w in words(clause)]
        wanted = [stem(w) for w in attribute]
        for i in range(len(tokens) - len(wanted) + 1):
            if tokens[i:i + len(wanted)] == wanted:
                return True
    return False


def identifiers(text: str) -> set[str]:
    """Codes, part numbers and versions: tokens with a digit and a letter (E-17) or two dots (3.3.1)."""
    out = set()
    for token in _TOKEN.findall(text):
        token = token.strip(".-").lower()
        if any(c.isdigit() for c in token) and (any(c.isalpha() for c in token) or token.count(".") >= 2):
            out.add(token)
    return out


def codes_carried(codes: set[str], passages: Sequence[str]) -> list[bool]:
    """Whether each passage (with its headings) carries a code of the question.

    A code most passages carry is a product name (KX-2), not what the question is about.
    """
    if not codes:
        return [False] * len(passages)
    held = [codes & identifiers(p) for p in passages]
    telling_ = {c for c in codes if 2 * sum(c in h for h in held) <= len(passages)}
    return [bool(h & telling_) for h in held]
