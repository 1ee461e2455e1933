"""Days of the week a time or a price holds on: the weekend's hours answered with the weekdays'.

Timetables, opening hours and price lists split by the kind of day: weekdays and the weekend,
named days ("Tue–Sat"), public holidays.  A question asks for one ("at the weekend", "on a
public holiday", "the first Saturday ferry") and the row of another kind of day shares every
other word, so it is ranked close and passes the checks of absent words (the day is a word the
collection uses somewhere).  When the quotes name only other kinds of day, none that holds the
asked one ("Mon–Sun" holds a Tuesday, "weekends" a Saturday) and none for every day ("daily"),
they answer for another day.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .asked import DAYS, KINDS_OF_DAY, WEEK, in_cyclic_range
from .text import words

_WEEKEND_DAYS = frozenset({"saturday", "sunday"})
_WORKING_DAYS = DAYS - _WEEKEND_DAYS
# The kinds of day a question may ask about, each as it is written in a question.
_ASKED = {
    "weekend": KINDS_OF_DAY["weekend"],
    "public holiday": re.compile(r"\b(?:public|bank|national)\s+holidays?\b", re.IGNORECASE),
    "weekday": KINDS_OF_DAY["weekday"],
}
# Every day at once: a passage saying so covers whichever day was asked.
_EVERY_DAY = re.compile(r"\b(?:daily|every\s+day|each\s+day|any\s+day|all\s+week|(?:7|seven)\s+days\s+a\s+week|"
                        r"all\s+year|year[- ]round|mon(?:day)?\.?\s*(?:[–-]|to)\s*sun(?:day)?)\b", re.IGNORECASE)
# A weekday written short in a timetable: "Sat 10:00", "Mon.–Fri."; capitalised, so "sun" and "sat" stay words.
_SHORT_DAY = re.compile(r"\b(Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\b\.?")


def asked_day(question: str) -> str | None:
    """The one kind of day ``question`` asks about ("weekend", "public holiday", "weekday" or a weekday's name), or
    None when it names none or several ("Saturday or Sunday")."""
    found = {kind for kind, pattern in _ASKED.items() if pattern.search(question)}
    found |= {w.removesuffix("s") for w in words(question) if w.removesuffix("s") in DAYS}
    return next(iter(found)) if len(found) == 1 else None


def _named_days(text: str) -> set[str]:
    """The kinds of day and the weekdays ``text`` names, in full, short, or by a word for several."""
    named = {kind for kind, pattern in _ASKED.items() if pattern.search(text)}
    named |= {"public holiday"} if re.search(r"\bholidays?\b", text, re.IGNORECASE) else set()
    named |= {w.removesuffix("s") for w in words(text) if w.removesuffix("s") in DAYS}
    named |= {next(d for d in WEEK if d.startswith(m.group(1).lower())) for m in _SHORT_DAY.finditer(text)}
    return named


def _holds(day: str, text: str, named: set[str]) -> bool:
    """Whether ``text`` (naming the kinds of day ``named``) gives the asked ``day`` or a kind of day holding it."""
    if day in named or _EVERY_DAY.search(text):
        return True
    if day == "weekend":
        return bool(named & _WEEKEND_DAYS) or any(in_cyclic_range(d, text) for d in _WEEKEND_DAYS)
    if day == "weekday":
        return bool(named & _WORKING_DAYS) or any(in_cyclic_range(d, text) for d in _WORKING_DAYS)
    if day in DAYS:
        return in_cyclic_range(day, text) or ("weekend" if day in _WEEKEND_DAYS else "weekday") in named
    return False


def kinds_held(literals: Sequence[str], text: str) -> set[str]:
    """The kinds of day among a question's ``literals`` (:data:`.asked.KINDS_OF_DAY`) that ``text`` holds, naming it
    or days of it ("Tue–Fri" for "weekday"), and not the other kind: a row for both ("Mon–Fri: 350 · Sat–Sun: 450")
    tells neither apart."""
    named = _named_days(text)
    return {kind for kind in literals if kind in _OTHER_KIND
            and _holds(kind, text, named) and not _holds(_OTHER_KIND[kind], text, named)}


_OTHER_KIND = {"weekday": "weekend", "weekend": "weekday"}


def other_day(question: str, quoted: Sequence[str]) -> tuple[str, str] | None:
    """The kind of day ``question`` asks about and one the ``quoted`` texts name instead, when they name only
    others and none holding it; None when the question names no day, or the quotes name none (a price for
    every day alike)."""
    day = asked_day(question)
    if day is None:
        return None
    text = " ".join(quoted)
    named = _named_days(text)
    if not named or _holds(day, text, named):
        return None
    # The word for several days says best what the quotes are about ("weekdays" over the "Mon" of "Mon–Fri").
    order = [*_ASKED, *WEEK]
    return day, min(named, key=order.index)


def other_day_text(asked: str, quoted: str) -> str:
    """The refusal when the quotes are about another kind of day than the one asked."""
    return f"The documents do not say: the closest passages are about {_plural(quoted)}, not {_plural(asked)}."


def _plural(day: str) -> str:
    if day == "weekend":
        return "the weekend"
    return f"{day.capitalize() if day in DAYS else day}s"
