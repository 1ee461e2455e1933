"""Dates and times as a range filter compares them: RFC 3339 in UTC, as the loaders store ``created``/``modified``."""

from __future__ import annotations

import datetime


def rfc3339(bound: object, *, end_of_day: bool = False) -> str | None:
    """``bound`` (``"2024-03-31"``, ``"2024-03-31T12:00:00+02:00"``, ``"…Z"``) as a UTC time; None if it is neither.

    A day alone is its first moment, or its last with ``end_of_day``: an upper bound
    ``lte`` and a lower bound ``gt`` given as a day then keep (or skip) that whole day.
    A time without a zone is taken as UTC, as stored timestamps are.
    """
    if not isinstance(bound, str):
        return None
    text = bound.strip()
    try:
        if len(text) == 10:
            day = datetime.date.fromisoformat(text)
            moment = datetime.datetime.combine(day, datetime.time.max if end_of_day else datetime.time.min)
        else:
            # Python 3.10's fromisoformat does not read the "Z" of UTC
            moment = datetime.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
