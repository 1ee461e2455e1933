"""A numbered instance asked for and the quotes naming only others of its series: Term 4 answered from Term 3.

Terms, zones, levels, lines, routes, lots and auctions are told apart by a number or code after a
noun ("Zone 3", "Auction No. 49", "class C1", "line N4").  The passage about the next one in the
series shares every word of the question but that code, so the embedding ranks it close and the
checks of absent words pass (the code is a number, carried by some other digit in the sources).
When the quotes, or the names of the files they come from, label things of the series only with
other codes, and hold the asked one in no range of it ("Levels 1–3"), they answer for another
instance.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .instances import measure_unit
from .lexicon import lexicon
from .siblings import ON_A_SCALE
from .text import STOPWORDS, stem

# A code: digits with at most a letter on either side ("4", "49", "C1", "N4", "12b").
_CODE = r"[a-z]?\d{1,4}[a-z]?"
# A label and its code: "Term 4", "Auction No. 49", "zone: 3", "route #47"; the file name's "term3" too.
_LABELLED = re.compile(rf"\b([a-z]{{3,}})(?:\s*[:#]?\s*(?:no\.?|number)?\s*|(?=\d))({_CODE})\b", re.IGNORECASE)
# Further codes of one label: "lines N1 and N3", "zones 2, 3 or 4".
_MORE = re.compile(rf"\s*(?:,|&|and|or)\s*({_CODE})\b", re.IGNORECASE)
# A span of a series: "Levels 1–3", "zones 2 to 4".
_SPAN = re.compile(r"\b([a-z]{3,})\s*(\d{1,4})\s*(?:[–-]|to)\s*(\d{1,4})\b", re.IGNORECASE)
# Nouns a number follows that count, bound or date rather than label: "age 12", "over 65", "size" reads a scale.
_NOT_LABELS = frozenset("age ages aged page pages size sizes".split())


def other_instance(question: str, quoted: Sequence[str]) -> tuple[str, str] | None:
    """``(the asked instance, one the quotes name instead)`` ("Term 4", "term3") when ``question`` names a thing by
    a label and code and the ``quoted`` texts (with their files' names) label that series only with other codes;
    None when the question names no such thing, or the quotes give its code, a span holding it, or no code at all.
    """
    text = " ".join(quoted)
    for m in _LABELLED.finditer(question):
        label, code = m.group(1).lower(), m.group(2).lower()
        if not _label(label) or _measure_after(question, m.end()):
            continue
        root = stem(label)
        given = _codes(text, root)
        if not given or code in given or _spanned(code, root, text):
            continue
        return m.group(0), f"{label} {next(iter(given))}"
    return None


def _label(word: str) -> bool:
    return (word not in STOPWORDS and word not in ON_A_SCALE and word not in _NOT_LABELS and not measure_unit(word)
            and lexicon().usual_part(word) == "n")


def _measure_after(question: str, end: int) -> bool:
    """Whether a unit follows the code ("a site 10 km away"): then the number measures, it does not label."""
    after = re.match(r"\s*([^\W\d_]+)", question[end:])
    return after is not None and measure_unit(after.group(1))


def _codes(text: str, root: str) -> dict[str, None]:
    """The codes ``text`` gives things labelled by the word of stem ``root``, in order."""
    out: dict[str, None] = {}
    for m in _LABELLED.finditer(text):
        if stem(m.group(1).lower()) != root:
            continue
        out[m.group(2).lower()] = None
        end = m.end()
        while more := _MORE.match(text, end):
            out[more.group(1).lower()] = None
            end = more.end()
    return out


def _spanned(code: str, root: str, text: str) -> bool:
    if not code.isdigit():
        return False
    return any(stem(m.group(1).lower()) == root and int(m.group(2)) <= int(code) <= int(m.group(3))
               for m in _SPAN.finditer(text))
