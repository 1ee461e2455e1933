"""A later part of a multi-part question that refers back to the first: searched together with what it refers to.

Split off on its own, "…, and when do they open?" or "…, and what does parking
cost there?" has lost its subject: searched alone, it finds the opening times and
parking prices of every document.  A part with a pronoun or an anaphoric "there",
or one naming nothing after a first part that closes on a name ("…per day at
Brenna, and how much is overtime pay?"), is searched with the first part's topic
words appended (see :func:`topic_words`), so retrieval ranks the chunks about the
same thing first.  The part itself is answered and shown as the user wrote it.
(A part's "a used one" is a different matter: ``parts.split_parts`` writes the
noun into the part itself.)

A later part that names nothing of its own ("…, and how much?", "…, and until
when?") asks about the thing the first part asks about: when the documents do not cover
the first part ("can I hire a tandem there, and at what price?"), they do not cover it
either (:func:`names_nothing`), whatever price some other row gives.
"""

from __future__ import annotations

import re

from .expectations import expectation, names_type
from .lexicon import lexicon
from .text import QUESTION_FRAME, STOPWORDS, words

# Personal pronouns point outside their own part.  A bare "it" ("…, and when is it due") may point at the
# first part's action rather than a thing, which the same topic words find.
_PRONOUN = re.compile(r"\b(?:it|they|them|he|him|she)\b", re.IGNORECASE)
# A possessive points at a noun phrase of its own part when one comes before it ("what makes the pump lose its
# prime"), else outside ("what is their opening time").
_POSSESSIVE = re.compile(r"\b(?:its|their|his|her)\b", re.IGNORECASE)
_NOUN_PHRASE = re.compile(r"\b(?:the|a|an|this|that|these|those|each|every)\s+[\w-]+|(?<=\w\s)[A-Z][\w-]+")
# "there" refers to a place unless it opens an existential clause ("is there a lift", "there are two").
_THERE = re.compile(r"\bthere\b", re.IGNORECASE)
_EXISTENTIAL = re.compile(r"\b(?:is|are|was|were|be|been|being|'s)\s+there\b|\bthere\s+(?:is|are|was|were|will|would|"
                          r"should|must|may|might|can|could|'s|'re|be)\b", re.IGNORECASE)
# The name a question closes on ("… at Brenna?", "… for flat H0302?"), a capitalised word after a preposition.
_PLACE = re.compile(r"\s(?:at|in|for|from|on)\s+(?:the\s+)?[A-Z][\w'’-]*(?:\s+[A-Z0-9][\w'’-]*){0,3}\s*\??$")
_NAMED = re.compile(r"(?<=\s)[A-Z0-9]")
# A yes/no part asks whether something is so ("is there a café?"), which the first part's place does not change.
_YES_NO = re.compile(r"^\s*(?:is|are|does|do|can)\b", re.IGNORECASE)
# The preposition before a question's object: the words after it are what the question is about.
_OBJECT = re.compile(r"\s(?:of|for|at|in|on)\s", re.IGNORECASE)


def refers_back(part: str, first: str = "") -> bool:
    """Whether ``part`` names its subject by a pronoun or an anaphoric "there" ("when do they open"), or leaves it
    out: it names nothing, where ``first`` closes on a name ("…earn per day at Brenna, and how much is overtime
    pay?" asks the overtime pay at Brenna)."""
    if first and _PLACE.search(first) and not _NAMED.search(part) and not _YES_NO.match(part):
        return True
    if _PRONOUN.search(part):
        return True
    if (possessive := _POSSESSIVE.search(part)) and not _NOUN_PHRASE.search(part[: possessive.start()]):
        return True
    return len(_THERE.findall(part)) > len(_EXISTENTIAL.findall(part))


def names_nothing(part: str) -> bool:
    """Whether ``part`` has no word of its own beyond function words and the answer type it asks for."""
    # Only the type's words matter here, and "what's its fee" asks for the same type as "what is its fee".
    expected = expectation(re.sub(r"(?i)\bwhat['’]s\b", "what is", part))
    return not [w for w in words(part) if w not in STOPWORDS and len(w) > 1 and not names_type(w, expected)]


def topic_words(question: str) -> list[str]:
    """What ``question`` is about: the content words of its object after "of", "for", "at", "in" or "on" when it
    has one ("the weekly rent of the Birch cabin" → birch, cabin), else all of them, less adverbs.

    The words before such a preposition name the attribute asked for, which the next part does not
    share ("…, and how many beds does it have" means the suite, not its rate).
    """
    scope = _OBJECT.split(question, maxsplit=1)
    kept: list[str] = []
    for word in words(scope[-1]):
        if word in STOPWORDS or word in QUESTION_FRAME or len(word) < 2 or word in kept:
            continue
        if lexicon().usual_part(word) == "r":
            continue  # "usually", "only": how, not what
        kept.append(word)
    return kept


def search_query(part: str, first: str) -> str:
    """What to search for ``part``: the part itself, with ``first``'s topic words when it refers back to them."""
    if part == first or not refers_back(part, first):
        return part
    have = set(words(part))
    extra = [w for w in topic_words(first) if w not in have]
    return f"{part} {' '.join(extra)}" if extra else part
