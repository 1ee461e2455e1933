"""Parts of the day a time slot falls in: a pitch on a Sunday morning is the 06:00–12:00 row, not the afternoon's.

A price list or a timetable splits the day into clock-time slots ("Time slot: 12:00 to 18:00"), while a question
names the part of the day ("on a Sunday morning", "in the evening").  Each part spans the hours English uses it
for: the morning until noon, the afternoon from noon to six, the evening from five to eleven, the night from six
to six ("practice night" is an evening).  A slot is of the part when the two overlap by an hour or more; a
passage giving slots, none of them of the part asked, is about another part of the day.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

# Hours from midnight; a part past midnight runs on past 24.
_PARTS = {"morning": (5.0, 12.0), "afternoon": (12.0, 18.0), "evening": (17.0, 23.0), "night": (18.0, 30.0),
          "lunchtime": (11.5, 14.0)}
_ASKED = re.compile(r"\b(morning|afternoon|evening|night|lunchtime)s?\b", re.IGNORECASE)
_SLOT = re.compile(r"\b(\d{1,2})[:.h](\d{2})\s*(?:to|–|-|until|till)\s*(\d{1,2})[:.h](\d{2})\b")
_OVERLAP = 1.0  # hours


def asked_part(question: str) -> tuple[float, float] | None:
    """The hours of the part of the day ``question`` names ("on a Sunday morning"), or None."""
    found = {m.group(1).lower() for m in _ASKED.finditer(question)}
    return _PARTS[found.pop()] if len(found) == 1 else None


def of_part(question: str, items: Sequence[T], text: Callable[[T], str]) -> list[T]:
    """The ``items`` (passages, whose ``text`` is read) but those giving clock-time slots none of which is of the
    part of the day ``question`` names; all of them when none is left, no part is named or no slot given."""
    part = asked_part(question)
    if part is None:
        return list(items)
    return [item for item in items if _fits(part, text(item))] or list(items)


def _fits(part: tuple[float, float], text: str) -> bool:
    slots = [(int(a) + int(b) / 60, int(c) + int(d) / 60) for a, b, c, d in _SLOT.findall(text)]
    if not slots:
        return True
    low, high = part
    for start, end in slots:
        if end <= start:
            end += 24  # a slot past midnight ("22:00 to 02:00")
        for shift in (0.0, 24.0):
            if min(high, end + shift) - max(low, start + shift) >= _OVERLAP:
                return True
    return False
