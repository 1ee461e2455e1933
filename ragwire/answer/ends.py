"""The ends of a scale: which end a word or a sentence names, and quotes that give only the other end.

"The smallest order", "the minimum order", "orders of at least £5" and "no fewer than 5" all name the low
end of one scale; "the oldest age allowed", "an upper age limit" and "up to 70 years" the high end.  A
question asking for one end is not answered by a passage that bounds the other: "does the zipline set an
upper age cap?" over "zipliners must be 10 or over" says nothing of how old a zipliner may be.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from .instances import INSTANCES, measure_unit
from .lexicon import lexicon
from .text import STOPWORDS, stated, stem, words

# A sentence or a line: where a bound and the thing it bounds are said together.
SEGMENT = re.compile(r"(?<=[.!?;])\s+|\n")
# Bounds written as phrases: "at least 25 guests" is the fewest, "up to 40" and "at most 40" the most.
_BOUND_PHRASES = (("at least", "low"), ("not less than", "low"), ("or more", "low"), ("or over", "low"),
                  ("or older", "low"), ("up to", "high"), ("at most", "high"), ("or less", "high"),
                  ("or under", "high"), ("or younger", "high"))
_BOUNDED = re.compile(rf"\b(?:{'|'.join(p for p, _ in _BOUND_PHRASES if not p.startswith('or '))})\s+\d[\d.,]*\s*([^\W\d_]+)",
                      re.IGNORECASE)
_NO_MORE = re.compile(r"\b(?:no|not)\s+([a-z]+er)\s+than\b")
# Adjectives naming an end of a limit that are neither superlatives nor extremes ("an upper age limit").
_LIMIT_ENDS = {"upper": "high", "lower": "low"}
_OTHER = {"low": "high", "high": "low"}
# A price's ends ("the cheapest room") are answered by prices, not by bounds: a room's "maximum 2 guests" is no price.
_PRICED = frozenset({"cheap", "dear", "expensive", "costly"})
# The words a price's end is of ("the highest price", "the maximum fee").
_PRICE_WORDS = frozenset({"price", "cost", "fee", "charge", "rate", "amount"})
# "from" (or "starting at") just before an amount, and a range's other end just after it.
_FROM = re.compile(r"\b(?:from|starting at|starts at)\s*$", re.IGNORECASE)
_RANGE_ON = re.compile(r"\s*(?:to|[–-])\s*\S*\d", re.IGNORECASE)


def end_named(word: str) -> str | None:
    """The end of a scale ``word`` names ("low" for "smallest", "minimum"; "high" for "longest", "upper"), None
    for another word; "most" and "least" alone are quantifiers more often than ends."""
    if word in ("most", "least"):
        return None
    return _LIMIT_ENDS.get(word) or lexicon().end(word)


def ends(segment: str) -> set[str]:
    """The ends of scales ``segment`` names: by a superlative or an extreme, a bound phrase or "no <comparative> than"."""
    lowered = segment.lower()
    out = {end for w in words(lowered) if (end := end_named(w))}
    out |= {end for phrase, end in _BOUND_PHRASES if re.search(rf"\b{phrase}\b", lowered)}
    out |= {end for m in _NO_MORE.finditer(lowered) if (end := lexicon().end(m.group(1), comparative=True))}
    if _starting_price(segment):
        out.add("low")
    return out


def _starting_price(segment: str) -> bool:
    """Whether ``segment`` gives a price as where it starts ("from A$95 per lens"), not a range ("from 10 to 20")."""
    for m in INSTANCES["amount of money"].finditer(segment):
        if _FROM.search(segment[:m.start()]) and not _RANGE_ON.match(segment[m.end():]):
            return True
    return False


def other_end_only(question: str, quoted: Sequence[str]) -> tuple[str, str] | None:
    """The word of ``question`` naming an end of a scale and the end the ``quoted`` passages bound instead, when
    every sentence of them that names what that end is of ("age" in "an upper age limit") bounds only the other
    end; None otherwise (no end asked, or a quote gives it, or none bounds what it is of)."""
    tokens = words(question)
    for i, token in enumerate(tokens):
        end = end_named(token)
        if end is None or lexicon().lemmas(token) & _PRICED:
            continue
        following = [w for w in tokens[i + 1:i + 5] if w not in STOPWORDS and w.isalpha()]
        # "The largest number of riders": the riders are what is bounded, the number is their count.
        of = following[1] if following[:1] == ["number"] and following[1:] else (following or [""])[0]
        if not of or following[0] not in tokens[i + 1:i + 3]:
            continue
        # "The highest price": an amount of money states what the end is of, whether or not the word "price" is there.
        priced = of in _PRICE_WORDS
        found = [ends(_other_measures_dropped(s, of)) for text in quoted for s in SEGMENT.split(text)
                 if stated(of, {stem(w) for w in words(s)})
                 or priced and INSTANCES["amount of money"].search(s)]
        said = set().union(*found) if found else set()
        if said == {_OTHER[end]}:
            return token, _OTHER[end]
    return None


def _other_measures_dropped(segment: str, of: str) -> str:
    """``segment`` less the bounds of another measure than ``of``: "one steward per 25 riders, for at most 2 hours"
    bounds the hours, not the guests."""
    def kept(m: re.Match[str]) -> str:
        unit = m.group(1)
        return "" if measure_unit(unit) and not stated(of, {stem(unit)}) else m.group(0)
    return _BOUNDED.sub(kept, segment)


def other_end_text(word: str, end: str) -> str:
    """The refusal for a question asking one end (``word``) over quotes bounding the other (``end``)."""
    bound = "minimum" if end == "low" else "maximum"
    return f"The documents do not say: the closest passages give only a {bound}, not what '{word}' asks for."


# The side of a threshold a number is given on: "over 3.5 tonnes", "more than 7 nights", "from 65" above it;
# "up to 3.5 tonnes", "under 6", "less than 7 nights", "at most 40" at or below it.  "12+" and "12 or more" too.
_N = r"(\d+(?:[.,]\d+)?)"
_ABOVE = re.compile(rf"\b(?:over|above|more than|heavier than|longer than|older than|larger than|bigger than|"
                    rf"exceeding|beyond)\s+{_N}|{_N}\s*\+|{_N}\s+(?:[a-z]+\s+)?(?:or|and)\s+(?:more|over|above|older)\b",
                    re.IGNORECASE)
_BELOW = re.compile(rf"\b(?:under|below|up to|less than|lighter than|shorter than|younger than|smaller than|"
                    rf"at most|max\.?|maximum|not more than|no more than)\s+{_N}|{_N}\s+(?:[a-z]+\s+)?(?:or|and)\s+"
                    rf"(?:less|under|below|younger)\b", re.IGNORECASE)


def _sides(text: str) -> dict[str, set[str]]:
    """The numbers ``text`` gives above a threshold and at or below one."""
    def numbers(pattern: re.Pattern[str]) -> set[str]:
        return {next(g for g in m.groups() if g).replace(",", ".") for m in pattern.finditer(text)}
    return {"above": numbers(_ABOVE), "below": numbers(_BELOW)}


@lru_cache(maxsize=64)
def _question_sides(question: str) -> dict[str, set[str]]:
    """:func:`_sides` of a question, read once for all the passages scored against it."""
    return _sides(question)


def sides_crossed(question: str, text: str) -> set[str]:
    """The numbers ``question`` gives on one side of a threshold that ``text`` gives only on the other ("up to 6"
    over "each kg over 6"): such a text holds no literal value of the question."""
    asked, said = _question_sides(question), _sides(text)
    return {n for side, other in (("above", "below"), ("below", "above")) for n in asked[side]
            if n in said[other] and n not in said[side]}


def other_side(question: str, quoted: Sequence[str]) -> tuple[str, str] | None:
    """``(the side asked, the side quoted)`` ("over 3.5", "up to 3.5") when ``question`` asks about one side of a
    threshold and the quotes give that same number only on the other side: the row "Van up to 3.5 tonnes" says
    nothing of a van over 3.5 tonnes.  None otherwise."""
    asked = _sides(question)
    said = _sides(" \n".join(quoted))
    for side, other in (("above", "below"), ("below", "above")):
        for number in sorted(asked[side]):
            if number in said[other] and number not in said[side]:
                names = {"above": "over", "below": "up to"}
                return f"{names[side]} {number}", f"{names[other]} {number}"
    return None
