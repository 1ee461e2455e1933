"""Who does something: a passage that names no one does not say who; the passage that names the person does.

"Who keeps the boathouse keys?", "who repairs the boats?" are answered by a name: a person's ("the bosun, Mira
Okonjo"), a firm's ("Tideway Marine does repairs"), or a place's where a branch is meant ("the yard in Ryeford").
A name is a capitalised word the dictionary does not know ("Okonjo", not "Winter" or "August") and the question
does not say: a quote with none is about the boathouse, not who keeps its keys.  :func:`naming_someone` picks the
passages to quote for "who does …", "who is the …" and "who should I phone …"; :func:`names_no_one` objects when
the quotes of a "who does …" question name no one.  Questions of right ("who can join", "who gets a discount") are
answered otherwise and not read here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from .answerable import WHO_ROLE
from .contact import asks_contact
from .focus import PAYERS
from .lexicon import lexicon
from .text import STOPWORDS, WORD, content_words, stated, stems, words

C = TypeVar("C")

# "Who runs …", "who looks after …": an act, whose doer a passage names.  Not "who can/may/is …", nor who gets or pays.
WHO_DOES = re.compile(r"^\s*who\s+(?:(?:is|are)\s+(?=[a-z]+ing\b))?"  # "who is running …" asks the act as "who runs"
                      r"(?!(?:can|could|may|might|must|should|shall|will|would|is|are|was|were|has|have|had|"
                      r"do|does|did|gets?|pays?|qualif\w*|needs?)\b)[a-z]+", re.IGNORECASE)
# "Who should I phone …", "who do we ask …", "who should a club secretary ask …": someone the asker turns to, whom a
# passage names as it names a doer ("Bookings: <a name>, <a number>").
_WHO_TO_ASK = re.compile(r"^\s*who(?:m)?\s+(?:should|do|does|can|could|must|shall|would|will|may)\s+"
                         r"(?:i|we|you|one|they|(?:an?|the|my|our)\s+[\w-]+)\s", re.IGNORECASE)
_WORDS = re.compile(r"[^\W\d_][\w'’.-]*")
# How many words from a name a word for its holder's role may stand ("Head of ski school: <name>").
_ROLE_SPAN = 4
# Kinds of person a service is for or priced by, not who provides it: a row "Adult · <place name>" names no role.
_SERVED = PAYERS | frozenset("""youth youths pupil pupils beginner beginners participant participants customer customers
client clients people person persons""".split())


def names_no_one(question: str, quoted: Sequence[str]) -> bool:
    """Whether ``question`` asks who does something and the ``quoted`` texts name no one it does not already name."""
    if not WHO_DOES.match(question) or asks_contact(question):
        return False
    asked = {w.lower() for w in WORD.findall(question)}
    return not any(_names_person(text, asked) for text in quoted)


def asks_someone(question: str) -> bool:
    """Whether ``question`` asks who does something, holds a role or is the one to turn to (not how to reach them)."""
    return bool(WHO_ROLE.match(question) or WHO_DOES.match(question) and not asks_contact(question)
                or _WHO_TO_ASK.match(question))


def states_duty(question: str, text: str) -> bool:
    """Whether ``text`` names the role or the act ``question`` asks the holder of ("Treasurer: …" for "who is the
    treasurer", "Camp manager: …" for "who manages the camp")."""
    return asks_someone(question) and any(stated(w, stems(text)) for w in _duty(question))


def _duty(question: str) -> list[str]:
    """The word for the role or the act a who-question asks about ("treasurer", "coaches"); [] for neither."""
    if role := WHO_ROLE.match(question):
        return words(role.group(1))[-1:]
    return [act.group().split()[-1].lower()] if (act := WHO_DOES.match(question)) else []


def naming_someone(question: str, candidates: list[C], text_of: Callable[[C], str],
                   titled: Callable[[C], str]) -> list[C]:
    """The ``candidates`` that name a person, the ones saying most plainly that they are the person asked for first,
    when ``question`` asks who does something, holds a role or is the one to turn to ([] else).

    "Who coaches the rowers?" is answered by the passage "Head coach: <a name>", though the club's
    address and its season may be nearer the question as a whole.  A person is named by a capitalised
    word the dictionary does not know (a given name or a surname, not "Winter" or "August") that neither
    the question nor the candidate's title (``titled``: its file and heading, which name the
    organisation) says.  Of those, the ones naming the role or the act ("treasurer", "coach" for "who
    coaches") are kept when there are any: another passage may name another person; else the ones naming what
    the act is done to ("chemistry" of "who teaches chemistry"); else the ones naming the person beside a word for
    a kind of person ("Head of ski school: <name>"), not only a place.  "Who should I phone …" asks for someone
    to turn to, named the same way.
    """
    if not asks_someone(question):
        return []
    asked = {w.lower() for w in WORD.findall(question)}
    duty = _duty(question)
    # What the act is done to or the role is of ("who teaches chemistry"), less the names, which every passage
    # about the organisation may say.
    objects = content_words(question) - {w.lower() for w in WORD.findall(question)[1:] if w[:1].isupper()} - set(duty)
    people = []  # each candidate naming someone: its title's words, its stems and its named people
    for c in candidates:
        title = {w.lower() for w in WORD.findall(titled(c))}
        if named := _named_people(text_of(c), asked | title):
            people.append((c, title, stems(text_of(c)), named))
    return ([c for c, _, said, _ in people if any(stated(w, said) for w in duty)]
            or [c for c, title, said, _ in people if any(stated(w, said) for w in objects - title)]
            or [c for c, _, _, named in people if _by_role(named)] or [c for c, _, _, _ in people])


def _named_people(text: str, known: set[str]) -> list[tuple[int, list[str]]]:
    """Each capitalised word of ``text`` the dictionary does not know and ``known`` lacks (a person's name), as its
    place among the words of ``text``, with those words (lowercased)."""
    found = [m.group() for m in _WORDS.finditer(text)]
    said = [w.rstrip(".").lower() for w in found]
    names = []
    for i, (shown, word) in enumerate(zip(found, said, strict=True)):
        # Three letters at least: a currency ("Kč", "Rs") or a unit is no name.
        if (not shown[:1].isupper() or shown.isupper() or len(word) < 3 or word in known or word in STOPWORDS
                or not re.sub(r"['’.-]", "", word).isalpha() or lexicon().knows(word)):
            continue
        # A compound of dictionary words ("Non-members") is a name only after another capitalised word, as a
        # hyphenated given name follows its family name ("Ho Mei-lin").
        if all(lexicon().knows(part) for part in word.split("-")) and not (i and found[i - 1].istitle()):
            continue
        names.append(i)
    return [(i, said) for i in names]


def _names_person(text: str, known: set[str]) -> bool:
    """Whether ``text`` names a person (see :func:`_named_people`)."""
    return bool(_named_people(text, known))


def _by_role(named: list[tuple[int, list[str]]]) -> bool:
    """Whether a person :func:`_named_people` found stands beside a word for a kind of person ("Head coach: <name>",
    "<name>, our host")."""
    return any(lexicon().kind_of(w, "person") for i, said in named
               for w in said[max(0, i - _ROLE_SPAN):i] + said[i + 1:i + 1 + _ROLE_SPAN] if w not in STOPWORDS | _SERVED)
