"""Who does something: a passage that names no one does not say who.

"Who keeps the boathouse keys?", "who repairs the boats?" are answered by a name: a person's ("the bosun, Mira
Okonjo"), a firm's ("Tideway Marine does repairs"), or a place's where a branch is meant ("the yard in Ryeford").
Documents write names capitalised inside a sentence.  A quote in which every capital opens a sentence, a line or
a column, or repeats a word of the question, names no one the question does not: it is about the boathouse, not
who keeps its keys.  Questions of reach ("who do I call"), of right ("who can join", "who gets a discount") and of role
("who is the treasurer", read by :func:`.answerable.role_unmentioned`) are answered otherwise and not read here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .contact import asks_contact
from .siblings import ON_A_SCALE
from .text import WORD

# "Who runs …", "who looks after …": an act, whose doer a passage names.  Not "who can/may/is …", nor who gets or pays.
_WHO_DOES = re.compile(r"^\s*who\s+(?!(?:can|could|may|might|must|should|shall|will|would|is|are|was|were|has|have|had|"
                       r"do|does|did|gets?|pays?|qualif\w*|needs?)\b)[a-z]+", re.IGNORECASE)
# What may stand before a word that opens a sentence, a line, a column or a bracket.
_OPENS = ".!?:;·—–-([/|•*#\n"
_WORDS = re.compile(r"[^\W\d_][\w'’.-]*")


def names_no_one(question: str, quoted: Sequence[str]) -> bool:
    """Whether ``question`` asks who does something and the ``quoted`` texts name no one it does not already name."""
    if not _WHO_DOES.match(question) or asks_contact(question):
        return False
    asked = {w.lower() for w in WORD.findall(question)}
    for text in quoted:
        for m in _WORDS.finditer(text):
            word = m.group().rstrip(".")
            if not word[:1].isupper() or word.lower() in asked or word.lower() in ON_A_SCALE:
                continue
            if word.isupper() and len(word) <= 3:
                continue  # a code or a unit ("CHF", "SAC"), not a name
            before = text[:m.start()].rstrip()
            if before and before[-1] not in _OPENS:
                return False
    return True
