"""Periods of time a rate is given per: an hour, a day, a night, a week, a weekend, a month, a year.

A price list states each rate per its period ("€45 a night", "Studio plan (monthly) · €70",
"€5/day"), and a question asks for one ("the yearly subscription", "a caravan pitch for a whole
week").  A quote that prices the thing per another period, and never names the period asked
for, does not answer the question: a monthly fee is no yearly one, and a nightly rate is no
price for the week.  A period may also be named by its length in a smaller unit (a day is
"24 hours", a week "7 days"), which covers it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .ends import SEGMENT
from .instances import instance
from .text import stem, words

# A span of time a text may name by its length in a smaller unit: a locker "for a day" is priced "per 24 hours",
# a pass "for a week" as "7 days".  Exact lengths only: a month is no fixed number of days.
SAME_SPAN = {
    "day": re.compile(r"\b(?:24|twenty-four)[- ]?(?:hours?|hrs?|h)\b", re.IGNORECASE),
    "week": re.compile(r"\b(?:7|seven)[- ]days?\b", re.IGNORECASE),
    "fortnight": re.compile(r"\b(?:14|fourteen)[- ]days?\b|\b(?:2|two)[- ]weeks?\b", re.IGNORECASE),
    "hour": re.compile(r"\b(?:60|sixty)[- ]?(?:minutes?|mins?)\b", re.IGNORECASE),
    "year": re.compile(r"\b(?:12|twelve)[- ]months?\b|\b365[- ]days?\b", re.IGNORECASE),
    # Days named by the run of them: "Sat–Sun 09:00–16:00" are the weekend's hours, "Mon–Fri" a weekday's.
    "weekend": re.compile(r"\bSat(?:urday)?s?\.?\s*(?:[–-]|to|and|&)\s*Sun(?:day)?s?\b", re.IGNORECASE),
    "weekday": re.compile(r"\bMon(?:day)?s?\.?\s*(?:[–-]|to)\s*Fri(?:day)?s?\b", re.IGNORECASE),
}

# The adjectives and adverbs that give a rate's period on their own ("monthly", "per annum").
_RATE_WORDS = {"hourly": "hour", "daily": "day", "nightly": "night", "weekly": "week", "fortnightly": "fortnight",
               "monthly": "month", "yearly": "year", "annual": "year", "annually": "year", "annum": "year",
               "pcm": "month"}
# The periods a rate is per, each with the words that name it in any form (noun, abbreviation, and the rate
# words above): a quote holding one of them names the period, whatever it says of it.
PERIOD_WORDS = {period: frozenset(nouns.split()) | {w for w, p in _RATE_WORDS.items() if p == period}
                for period, nouns in (("hour", "hour hours hr hrs"), ("day", "day days diem"),
                                      ("night", "night nights overnight"), ("week", "week weeks"),
                                      ("fortnight", "fortnight fortnights"), ("month", "month months"),
                                      ("year", "year years"), ("weekend", "weekend weekends"))}
_NOUNS = "|".join(PERIOD_WORDS)
# "per night", "a week", "each month", "/day", "for a whole week", "by the hour", "a week's hire", and a column
# named so ("price_per_day: 1 890").
_PER = re.compile(rf"(?:(?:\b|(?<=_))(?:per|a|an|one|each|every|by\s+the)[\s_]+(?:(?:whole|full|entire|single)\s+)?|/\s*)"
                  rf"(?P<period>{_NOUNS}|hr|yr|mo|wk)\b(?!-)", re.IGNORECASE)
# Short forms ("/hr", "per yr"); not a bare "h", which "km/h" makes a speed.
_SHORT = {"hr": "hour", "yr": "year", "mo": "month", "wk": "week"}


def asked_period(question: str) -> str | None:
    """The period ``question`` asks a rate for ("year" for "a yearly pass", "week" for "for a whole week"), or None
    when it names none or more than one ("per night or per week" asks for both)."""
    found = _periods(question)
    return next(iter(found)) if len(found) == 1 else None


def names_period(period: str, text: str) -> bool:
    """Whether ``text`` names ``period`` in any form ("nights", "annually", "12 months" for a year)."""
    # "full-day" and "7-night" name their period as a word of their own does.
    said = {part for w in words(text) for part in w.split("-")}
    forms = PERIOD_WORDS[period]
    return bool(said & forms) or any(stem(w) in forms for w in said) or bool(
        (span := SAME_SPAN.get(period)) and span.search(text))


def other_period(question: str, quoted: Sequence[str]) -> tuple[str, str] | None:
    """The period ``question`` asks a rate for and the one the ``quoted`` passages price per instead; or None.

    Only when no quote names the asked period in any form and one prices something per another
    period, its amount and its period in one sentence or row ("Studio plan (monthly) · €70").
    """
    period = asked_period(question)
    if period is None or any(names_period(period, text) for text in quoted):
        return None
    for text in quoted:
        for segment in SEGMENT.split(text):  # a rate and its amount are said in one sentence, line or row
            # "Per day (zł): 90": a column may name the currency and the period both.
            if instance("amount of money", segment) and (others := _periods(segment) - {period}):
                return period, sorted(others)[0]
    return None


# "The weekend rate", "a weekend pass": the weekend names a rate's period only before what is priced; "a kayak at
# the weekend" says when, and is priced per hour all the same.
_WEEKEND_RATE = re.compile(r"\bweekend\s+(?:rates?|prices?|pass(?:es)?|tickets?|fees?|hire|rental|tariffs?|packages?)\b",
                           re.IGNORECASE)


def _periods(text: str) -> set[str]:
    """The periods ``text`` gives a rate per: by a rate word ("monthly") or a phrase ("per night", "/day")."""
    found = {_RATE_WORDS[w] for w in (w.lower() for w in words(text)) if w in _RATE_WORDS}
    found |= {"weekend"} if _WEEKEND_RATE.search(text) else set()
    found |= {_SHORT.get(word, word) for word in (m.group("period").lower() for m in _PER.finditer(text))}
    return found


def other_period_text(asked: str, quoted: str) -> str:
    """The refusal when the quotes give a rate per ``quoted`` period, not per the ``asked`` one."""
    return f"The documents do not say: the closest passages give a rate per {quoted}, not per {asked}."
