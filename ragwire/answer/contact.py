"""Contact details answer only questions about how to reach someone.

A letterhead, a footer or a signature ("Harbour Bakery, 12 Quay Street, 4020 Portwell,
tel. +47 22 33 44 55") names the business every question about it names, so it is
retrieved and scored high for any of them, and quoted as the answer to what the bakery
sells or what it charges.  It says none of that: it says where, when and how to reach the
business.  A passage made of contact details is therefore quoted only for a question that
asks for them (where, which address, what number to call, when it is open…).

The patterns are the shapes contact details take in most countries' writing: a telephone
number with its international prefix, an area code in brackets or a word introducing it,
an e-mail or web address, a postcode before its town, a street named by a street word
(in English, German, the Nordic languages, Dutch and the Romance languages) next to a
house number.
"""

from __future__ import annotations

import re

from .instances import INSTANCES, PHONE
from .lexicon import lexicon
from .text import STOPWORDS

_STREET_WORDS = ("street|st|road|rd|lane|ln|avenue|ave|way|drive|dr|place|pl|square|sq|quay|row|terrace|close|"
                 "court|crescent|boulevard|blvd|highway|hwy|parade|wharf|"
                 "caddesi|cad(?=\\.)|sokak|sok(?=\\.)|utca|tér")  # Turkish, Hungarian: Cumhuriyet Cad. 27, Fő utca 12
# "Drive", not "Dr" (nor "Cad." with its dot, which the lookahead above asks for and no comma can follow).
_NAMED_STREETS = "|".join(w.capitalize() for w in _STREET_WORDS.split("|") if len(w) > 3 and w.isalpha())
_STREET_SUFFIXES = "straße|strasse|gasse|weg|gade|gata|gatan|vej|veien|vegen|gate|laan|gracht|straat|plein|platz"
_STREET_PREFIXES = "rue|via|viale|calle|rua|avenida|avinguda|piazza|plaza|praça|largo|corso|chemin|ul\\.|ulica"
_CONTACT = re.compile(
    PHONE  # +47 22 33 44 55, (503) 555-0142, tel. 01632 960 455
    + r"|[\w.+-]+@[\w-]+\.[\w.-]+|\bhttps?://\S+|\bwww\.\S+"  # e-mail, web
    rf"|\b\d{{1,5}}[a-z]?,?\s+(?:[A-ZÆØÅÄÖÜ][\w'-]*\s+){{1,3}}(?i:{_STREET_WORDS})\b\.?"  # 12 Quay Street
    rf"|\b[A-ZÆØÅÄÖÜ][\w'-]*\s+(?:[A-ZÆØÅÄÖÜ][\w'-]*\s+)?(?i:{_STREET_WORDS})\b\.?,?\s+\d{{1,5}}"  # Quay Street 12
    # Harbour Drive, Kelvale: a street named with its town after a comma needs no house number to be an address.
    rf"|\b[A-ZÆØÅÄÖÜ][\w'-]*\s+(?:[A-ZÆØÅÄÖÜ][\w'-]*\s+)?(?:{_NAMED_STREETS})\b,(?=\s*[A-ZÆØÅÄÖÜ])"
    rf"|\b[A-ZÆØÅÄÖÜ]\w*(?i:{_STREET_SUFFIXES})\s+\d{{1,5}}"  # Sackstraße 19, Havnevej 3
    rf"|\b(?i:{_STREET_PREFIXES})\s+(?:[\w'-]+\s+){{1,4}}\d{{1,5}}"  # Rua das Gaivotas 14
    r"|\b(?!(?:19|20)\d\d\b)\d{4,5}(?:-\d{3})?\s+[A-ZÆØÅÄÖÜ][a-zæøåäöüß]+"  # 8010 Graz, 2655-318 Vila
    r"|\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b",  # LS12 2PX
)
# A passage holding contact details and at most this many other common words (not names, not numbers) is
# contact details: "Violin workshop of M. Leitner, Sackstraße 19, 8010 Graz" describes whose address it is.
_AROUND = 3
# Words by which a question asks how to reach someone, or where something is; and when: a letterhead or a
# footer gives the opening hours beside the address and the number.
_ASKS_CONTACT = re.compile(
    r"\b(?:where|address|addresses|phone|telephone|number|call|ring|contact|e-?mail|reach|located|location|"
    r"postcode|post code|zip|website|web site|fax|directions|find|open|opens|opening|closed|closes|closing|hours)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_][\w'-]*")


def asks_contact(question: str) -> bool:
    """Whether ``question`` asks where something is or how to reach someone.

    A capitalised word inside the question is part of a name ("Avon Reach", "the Open Water course"), not the ask.
    """
    return any(m.start() == len(question) - len(question.lstrip()) or not m.group()[:1].isupper()
               for m in _ASKS_CONTACT.finditer(question))


# A letter's dateline, the town it was written in and the day ("Portwell, 9 April 2026", "Lyon, le 3 mai 2025",
# "Springfield, March 4, 2026"), dates the letter, not what it tells of.
_DATELINE = re.compile(r"[A-ZÆØÅÄÖÜ][\w.'-]*(?: [A-ZÆØÅÄÖÜ][\w.'-]*){0,2},\s*(?:(?:le|den|the)\s)?(?:\d{1,2}(?:st|nd|rd|th)?\.?\s"
                       r"[A-Za-z]+\.?,?\s(?:19|20)\d\d|[A-Za-z]+\.?\s\d{1,2}(?:st|nd|rd|th)?,?\s(?:19|20)\d\d"
                       r"|\d{1,2}[./]\d{1,2}[./](?:19|20)\d\d)\.?")


def contact_only(text: str) -> bool:
    """Whether ``text`` is contact details: an address, number or e-mail, and little else said in common words; or a
    letter's dateline."""
    if _DATELINE.fullmatch(text.strip()):
        return True
    if not _CONTACT.search(text):
        return False
    rest = _CONTACT.sub(" ", text)
    tokens = _WORD.findall(rest)
    common = [w for i, w in enumerate(tokens) if w.lower() not in STOPWORDS and _common(w, tokens[i - 1: i], tokens[i + 1: i + 2])]
    # A date with its hour says when something happens ("our concert on 17 May at 19:30 in St Anne's Church, …").
    dated = bool(INSTANCES["calendar date"].search(rest) and INSTANCES["time of day"].search(rest))
    return len(common) <= _AROUND and not dated


def _common(word: str, before: list[str], after: list[str]) -> bool:
    """A word in common use: lower case, or capitalised alone ("Rehearsals are…") as a dictionary word; a run of
    capitalised words is a name ("Otago Harbour", "Visitor Centre")."""
    if word[0].islower():
        return True
    alone = not any(w[0].isupper() for w in before + after)
    return alone and not word.isupper() and lexicon().knows(word.lower())
