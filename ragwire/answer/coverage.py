"""Whether a passage gives the answer a question expects: a value of its type, about its focus.

:func:`covers` reads a passage against an :class:`.expectations.Expectation`: an instance of the type in its
text or the headings above it (:mod:`.instances` says what one looks like), of the dimension asked and counting
the noun asked, and every focus head, in some form, in the passage, its headings or its document's name.
"""

from __future__ import annotations

import re

from .expectations import ABOVE_SEA, DIMENSIONS, OTHER_DIMENSIONS, Expectation
from .instances import INSTANCES, SPELLED_NUMBERS, UNITS, instance, labelled
from .instances import NUMBER as _N
from .periods import SAME_SPAN
from .text import STOPWORDS, stems
from .text import WORD as _WORD
from .text import stated as _stated_in
from .text import stem as _stem

__all__ = ["covers", "instance", "labelled", "measured", "stated"]


def covers(expected: Expectation, text: str, context: str = "", title: str = "") -> bool:
    """Whether a passage ``text`` (under headings ``context``, in a document named ``title``) gives the expected answer.

    An instance of the type must be in the text or its headings ("Release 5.1 (4 March
    2024)" dates the sentences under it), and each focus head too, in some form
    (``delivery`` ~ ``delivered``, ``kilometre`` ~ ``km``), or in the document's name: a
    document names its subject once ("acme-lamp-manual"), not in every sentence.
    """
    if not measured(expected, text, context):
        return False
    words = stems(f"{text} {context}")
    named = words | stems(title) if title else words
    # People, or guests, are stated by the count measured() found ("8 participants" counts people, "120 people" guests).
    heads_named = all(_stated_in(h, named) or _spanned(h, f"{text} {context}") or h in _PERSONS and h in expected.counted
                      or _unit_named(h, f"{text} {context}") for h in expected.heads)
    # A journey's route may be named in place of it, or the journey in place of its route.
    return heads_named or bool(expected.instead) and all(_stated_in(w, named) for w in expected.instead)


def _unit_named(head: str, text: str) -> bool:
    """Whether ``text`` names the unit ``head`` is a spelling of in another spelling ("kg" for "kilo"), not one letter."""
    pattern = next((p for p in UNITS.values() if re.fullmatch(p, head)), None)
    return pattern is not None and any(len(m.group()) > 1 for m in re.finditer(rf"(?<!\w)(?:{pattern})(?!\w)", text,
                                                                                 re.IGNORECASE))


def _spanned(head: str, text: str) -> bool:
    """Whether ``text`` names the span of time ``head`` by its length in a smaller unit ("24 hours" for a day)."""
    pattern = SAME_SPAN.get(_stem(head))
    return pattern is not None and bool(pattern.search(text))


def measured(expected: Expectation, text: str, context: str = "") -> bool:
    """Whether a passage gives a value of the expected type as asked (a length's dimension, a count's noun), about anything."""
    if not (instance(expected.kind, f"{text} | {context}") or _priced(expected.kind, text, context)):
        return False
    said = stems(f"{text} {context}")
    if expected.aspect and not any(_stated_in(a, said) for a in expected.aspect) and not _unnamed_aspect(
            expected.aspect, text, said):
        return False
    # A heading may count for the rows under it: "Group lessons (at most 6 pupils)" over the packages' prices.
    return not expected.counted or _counts(expected.counted, text) or bool(context) and _counts(expected.counted, context)


# A place's altitude, or how high it is, is given as where it sits or what it rises to, without the word: "the hut
# stands at 2,300 m", "the pass tops out at about 1,750 metres", "the summit is 2,870 m".
_SITS_AT = re.compile(rf"\b(?:at|summit|peak)\s(?:[a-z]+\s){{0,2}}?{_N}\s?(?:m|metres?|meters?|ft|feet)\b", re.IGNORECASE)


def _unnamed_aspect(aspect: tuple[str, ...], text: str, said: set[str]) -> bool:
    """Whether a length ``text`` gives without naming its dimension is of the ``aspect`` asked: a distance when no
    other dimension is named, an altitude or a height when it is where a place sits."""
    if any(_stated_in(d, said) for d in OTHER_DIMENSIONS):
        return False
    return aspect == DIMENSIONS["far"] or aspect in (ABOVE_SEA, DIMENSIONS["high"]) and bool(_SITS_AT.search(text))


def _counts(nouns: tuple[str, ...], text: str) -> bool:
    """Whether a number in ``text`` counts one of ``nouns``: the noun at most three words after it, no function
    word between ("12 spaces", "1,500 full charge cycles"); "Pupils in years 1 and 2 are…" counts no pupils."""
    tokens = [w.lower() for w in _WORD.findall(text)]
    # "a" and "half" count nothing ("the price of a half crate" gives no number of crates).
    number = re.compile(rf"{_N}|(?:{SPELLED_NUMBERS.replace('|half', '')})", re.IGNORECASE)
    people = any(n in _PERSONS for n in nouns)
    # The counted noun as the verb before its number: "the main hall seats 640" counts seats.
    if any(any(_stated_in(n, {_stem(m.group(1).lower())}) for n in nouns) for m in _VERB_COUNT.finditer(text)):
        return True
    # A label naming what its number counts: "Guests allowed in the barn at once: 60", "Seated capacity: 120".
    for label in _LABELLED_COUNT.findall(text):
        said = {_stem(w.lower()) for w in _WORD.findall(label)}
        if any(_stated_in(n, said) for n in nouns) or people and said & _CAPACITY:
            return True
    for i, token in enumerate(tokens):
        if not number.fullmatch(token):
            continue
        if people and i and tokens[i - 1] in _HOLDS_PEOPLE:
            return True  # "the hall seats 120", "the cabin sleeps 4"
        for word in tokens[i + 1:i + 4]:
            if any(_stated_in(n, {_stem(word)}) for n in nouns) or people and word in _PEOPLE:
                return True
            if word in STOPWORDS:
                break
    return False


# "How many people": people are counted by what they are there as ("8 participants", "up to 40 guests") or by what
# holds them ("seats 120").  A count of adults or children is a row of a price list, not how many fit.
_ANYONE = frozenset("people persons person".split())
# People counted as what they are there as ("how many guests fit") are counted as people too ("120 people seated").
_PERSONS = _ANYONE | frozenset("guests guest participants participant visitors attendees diners pax".split())
_PEOPLE = _PERSONS | frozenset("seats places spaces".split())
_HOLDS_PEOPLE = frozenset("seats sleeps accommodates".split())
# A label before a bare count: the value is the number alone or with a place or a bound ("6 in the stalls"), not a
# number of something else ("passenger: 2 adults"), and the label ends in a word, not in an hour ("at 13:30").
_LABELLED_COUNT = re.compile(r"([^:·|\n]*[^\W\d_)])\)?\s*:\s*(?:up to |max\.? |about )?\d[\d.,]*(?=\s*(?:$|[·|,;.\n(]|"
                             r"(?:in|on|at|per|a|an|the|max|maximum|total)\b))", re.IGNORECASE)
_VERB_COUNT = re.compile(r"\b([a-z]+s) \d+(?:[.,]\d+)*(?!\s*[^\W\d_]|\s*[€£$%])(?![.,]?\d)")
_CAPACITY = frozenset(_stem(w) for w in "capacity people persons guests seats places".split())


def _priced(kind: str, text: str, context: str) -> bool:
    """A number under a heading that says it is a price ("Price list 2024") is an amount of money, unless it is a
    value of another measure ("more than 15 minutes late" under "Payment and fees")."""
    if kind not in ("amount of money", "amount or percentage") or not re.search(
            r"\b(?:prices?|costs?|rates?|fees?|tariffs?)\b", context, re.IGNORECASE):
        return False
    for other in _NOT_PRICES:
        text = INSTANCES[other].sub(" ", text)
    return bool(re.search(r"\d", text))


_NOT_PRICES = ("duration", "time of day", "date", "calendar date", "length", "mass", "volume", "temperature", "speed")


def stated(word: str, text: str) -> bool:
    """Whether ``word`` is in ``text`` in some form (same word family, or a unit's abbreviation)."""
    return _stated_in(word, stems(text))
