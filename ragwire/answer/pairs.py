"""The two words naming what a wh-question asks for ("boiling point", "file system"), and whether a text names them.

Each word alone is common (a point, a file; a system); the pair names one attribute, which a document
stating it names too.  A document may name the pair in other words than the question's, in three ways
this module reads:

* its head by a word the lexicon says stands for it: "the storage fee" names the storage charge;
* a modifier and its head as one word that is a kind of the head: a "surcharge" is an extra charge;
* an end of a scale by another word for that end: "the smallest order we take" and "orders no
  smaller than" name the minimum order, "no longer than 12 metres" the longest boat, in the
  sentence that names the head (or anywhere, when the head is only "amount", "number" or "value");
* its modifier by the document's file name: in "kiln-rules.md", "the firing fee" is the kiln fee;
* its modifier in brackets after the head, in one field: "Boat wash (premium)" is the premium wash.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from .ages import bands_in_numbers
from .asked import DAYS
from .context import NumberedSource, file_words
from .ends import SEGMENT, end_named, ends
from .expectations import MODIFIERS, expectation
from .focus import PAYERS
from .lexicon import lexicon
from .text import QUESTION_FRAME, STOPWORDS, same_family, stem, words

# The pair's words must be written in lower case (not a name), past a modifier ("the annual service fee":
# service fee), and the second must not take an object (a verb: "which key opens the …").
_BE = r"\s+(?i:is|are|was|were)(?:\s+(?i:the|a|an))?"
_ASKED_PHRASE = re.compile(rf"^(?:(?i:what|which)(?:{_BE})?|(?i:who){_BE})(?:\s+(?:[\w-]+\s+){{0,2}}[\w-]+'s)?\s+")
_WHEN = DAYS | frozenset("weekday weekdays weekend weekends holiday holidays summer winter spring autumn".split())
_OBJECTS = frozenset("the a an my our your its their it them".split())


def asked_pair(question: str) -> tuple[str, str] | None:
    """The two words naming what an untyped wh-question asks for ("boiling point"), or None when it opens otherwise."""
    question = question.strip()
    m = _ASKED_PHRASE.match(question)
    if not m or expectation(question) is not None:
        return None
    tokens = [t.rstrip("?,.;:!") for t in question[m.end():].split()]
    while tokens and tokens[0] in MODIFIERS:
        tokens.pop(0)
    if len(tokens) < 2 or not all(re.fullmatch(r"[a-z][a-z-]+", t) for t in tokens[:2]):
        return None
    first, second = tokens[:2]
    if first in STOPWORDS or first in QUESTION_FRAME or second in STOPWORDS or tokens[2:3] and tokens[2] in _OBJECTS:
        return None
    if len(m.group(0).split()) == 1 and tokens[2:3] and tokens[2] not in STOPWORDS:
        return None  # "what causes engine noise": a verb and its object, not "what fuel mix is …"
    if len(m.group(0).split()) == 2 and m.group(0).split()[0].lower() == "who" and _passive(first):
        return None  # "who was elected chair": a verb in the passive and the role it gave, not an elected chair
    if ((first in PAYERS or first in _WHEN) and len(tokens) > 2 and re.fullmatch(r"[a-z][a-z-]+", tokens[2]) and tokens[2] not in STOPWORDS
            and (len(tokens) == 3 or tokens[3] in STOPWORDS)):
        # A payer before a two-word thing ("the senior lift pass"): the thing is the two words, the payer its row
        # ("Lift pass: … 45 EUR senior"); so is a kind of day ("the weekend opening hours": "Sat–Sun 9–17").
        return second, tokens[2]
    return first, second


def _passive(word: str) -> bool:
    """Whether ``word`` is a verb's past participle ("elected", "chosen"): a verb's form, not the verb itself."""
    return word.endswith(("ed", "en")) and any(base != word and lexicon().usual_part(base) == "v"
                                               for base in lexicon().lemmas(word))


def pair_in_sources(pair: tuple[str, str], sources: Sequence[NumberedSource], headings: dict[int, str]) -> bool:
    """Whether the ``sources`` name the pair (see :func:`pair_stated`), or one whose file name names its modifier
    names its head: a document is about what its name says, so its "subscription" is the boiler's in a file
    called "boiler-letter"."""
    if pair_stated(pair, " ".join(f"{s.text} {headings[s.index]}" for s in sources)):
        return True
    first = stem(pair[0])
    return any(any(same_family(first, stem(w)) for w in words(file_words(s)))
               and any(_head(pair[1], w) for w in words(f"{s.text} {headings[s.index]}")) for s in sources)


# A kind in brackets after a thing's name, in one field of a row ("Service: Boat wash and wax (premium) · …").
_BRACKETED = re.compile(r"(?P<named>[^:·|()\n]{1,80})\((?P<inside>[^()\n]{1,40})\)")
# How many words before the bracket may name the thing it qualifies.
_BRACKET_REACH = 6


def pair_stated(pair: tuple[str, str], text: str) -> bool:
    """Whether ``text`` names the pair: its words side by side in some form and either order ("boiling points",
    "point (boiling)"), joined ("filesystem"), or in the other words the module's docstring lists."""
    tokens = words(text)
    first = stem(pair[0])
    joined = {stem(pair[0] + pair[1]), f"{pair[0]}-{pair[1]}"}
    modifier = lexicon().usual_part(pair[0]) not in ("n", None)
    for token, after in zip(tokens, [*tokens[1:], ""], strict=True):
        if token in joined or stem(token) in joined:
            return True
        if modifier and _compound_of(pair[1], token):
            return True
        if after and {(same_family(first, stem(token)), _head(pair[1], after)),
                      (_head(pair[1], token), same_family(first, stem(after)))} & {(True, True)}:
            return True
    for m in _BRACKETED.finditer(text):
        if any(same_family(first, stem(w)) for w in words(m["inside"])) and \
                any(_head(pair[1], w) for w in words(m["named"])[-_BRACKET_REACH:]):
            return True
    end = end_named(pair[0])
    if end is None:
        return False
    if stem(pair[1]) == "age" and _age_bound(end, text):
        return True
    frame = pair[1] in QUESTION_FRAME
    return any(end in ends(segment) and (frame or any(_head(pair[1], w) for w in words(segment)))
               for segment in SEGMENT.split(text))


def _age_bound(end: str, text: str) -> bool:
    """Whether ``text`` gives an age band with a youngest age when ``end`` is the low one: "from 16 years", "18+" and
    "ages 8 to 12" state a minimum age without the words.  "Under 16" states no oldest age: it is mostly a rule for
    the young ("under-16s walk beside a parent")."""
    return end == "low" and any(lo > 0 for lo, _ in bands_in_numbers(text))


# How many hypernym steps apart a document's noun may be from the pair's head and still name it: a fee is a
# charge in two; three steps up, a type meets a group and an address a location.
HEAD_DEPTH = 2


@lru_cache(maxsize=65536)
def _head(head: str, word: str) -> bool:
    """Whether ``word`` names the pair's head: a form of its family, or a noun the lexicon says stands for it.

    Cached: the pair check asks it of every word of the retrieved text, each word twice (before and after its
    neighbour), and again per sentence for an end of a scale."""
    if same_family(stem(head), stem(word)):
        return True
    return len(word) > 2 and lexicon().usual_part(word) == "n" and lexicon().stands_for(head, word, HEAD_DEPTH) is True


def _compound_of(head: str, word: str) -> bool:
    """Whether ``word`` is one word of a modifier and ``head`` that names a kind of it ("surcharge": a charge)."""
    return len(word) > len(head) + 1 and word.endswith(head) and lexicon().stands_for(head, word) is True
