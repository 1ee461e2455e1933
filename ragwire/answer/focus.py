"""The phrase a typed question's answer attaches to (its focus), and the head words a passage must name.

"How long is a gift voucher good for?" asks about a voucher, not about "good"; "How tall
must a zipline rider be?" about a rider.  The phrase after the question's
trigger is read with a closed class of function words (prepositions, auxiliaries,
determiners, pronouns) and, for open-class words, the part of speech the lexicon says
each is mostly used as (:meth:`.lexicon.Lexicon.usual_part`): a closing adjective or
participle is said of the noun, a verb in its base form ends a subject.
"""

from __future__ import annotations

import re

from .instances import INSTANCES, PLAIN
from .lexicon import lexicon

# Words that end a noun phrase (prepositions, auxiliaries, determiners, pronouns, wh-words).
# English's one-word prepositions (a closed class), and "until" and "till", which open a clause as well.
PREPOSITIONS = frozenset("of for to in on at by with from into onto about above across against along amid among "
                         "around as before behind below beneath beside besides between beyond despite during except "
                         "inside near opposite outside over past per since than through throughout till toward towards "
                         "under underneath unlike until upon via within without after including excluding regarding "
                         "concerning".split())
AUXILIARIES = frozenset("is are was were be been being am do does did done have has had will would can could "
                        "shall should may might must need needs take takes took get gets".split())
_DETERMINERS = frozenset("a an the this that these those its their our your my his her some any each every "
                         "one".split())
# Indefinite pronouns ("when may anyone borrow the van …") name no one a passage must mention.
PRONOUNS = frozenset("it they we you i he she them us me somebody someone anybody anyone everybody everyone "
                     "that's thats".split())
# Particles of a phrasal verb end a noun phrase ("the walk back to the car", "the fee to sign in"): not nouns.
_PARTICLES = frozenset("up down out off back away".split())
_WH = frozenset("what which who whom whose when where why how".split())
MODIFIERS = frozenset("new old yearly annual monthly daily current usual typical standard list full "
                      "itself".split())
# Who pays: a student's fee is not the adult's or the child's beside it, a guest's not a member's.  The words of
# one group name one row (a kid is a child, a junior too; a visitor a guest), so they are no siblings of each
# other.  A non-member is no payer of its own: lists name them guests or visitors beside the members.
PAYER_GROUPS = tuple(frozenset(group.split()) for group in (
    "adult adults grown-up grown-ups", "child children kid kids junior juniors",
    "teen teens teenager teenagers youth youths", "senior seniors pensioner pensioners retiree retirees",
    "student students", "member members", "guest guests visitor visitors", "resident residents",
    "infant infants toddler toddlers baby babies", "couple couples", "family families"))
PAYERS = frozenset().union(*PAYER_GROUPS)
# Words naming the shape of a value, not what it is of ("the operating temperature range", "the total amount"):
# the passage gives the shape ("0 to 40 °C"), it need not name it.
_SHAPES = frozenset("range amount total sum value figure".split())
# Words for the right a price buys, which a price list leaves out: its rows name who pays or for what
# ("Adult: £8", "Day: €12" under "Admission"), so "an adult ticket" is the adult row, "a day pass" the day's.
_RIGHTS = frozenset("ticket tickets pass passes".split())
# A use of a service is priced under the service's name: "one load in a 9 kg dryer" is the dryer's row.  A
# journey is timed or priced under its own name or its vehicle's or route's: "the ride on the gondola" is the
# gondola's row or "the ride takes 11 minutes", "the drive from A" is "the drive takes" or "the run from A".
# Nouns naming only where something happens, after the word naming it: "the take-off point", "the meeting place",
# "the pick-up spot" are named by the act ("Take-off: 1,450 m", "Pick-up at the harbour").
_PLACE_WORDS = frozenset("point points place places spot spots location locations site".split())
_ALONG = frozenset("on in to from aboard onto into".split())
_USES = _RIGHTS | frozenset("load loads".split())


def focused(rest: str, names: set[str] | frozenset[str] = frozenset()) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """The focus phrase at the start of ``rest``, its heads (the words a passage must name) and the words a passage
    may name instead of them (a journey for its route: :data:`_ALONG`).

    After a copula ("how long is the repaired unit insured", "how much is a spare battery")
    or a preposition ("price of the printer") the phrase is a noun phrase: its head is its
    last word, less a trailing participle.  After another auxiliary ("how long can a
    laptop run", "how often does the vendor publish") it is a subject and its verb: the
    head is the subject's last noun before the verb.  A pronoun ("what does it cost") gives no focus.
    """
    tokens = rest.split()
    subject = bool(tokens) and tokens[0] in AUXILIARIES - {"is", "are", "was", "were", "be", "been", "am"}
    infinitive = False
    while tokens and (tokens[0] in AUXILIARIES | _DETERMINERS | PREPOSITIONS | _WH or tokens[0] in MODIFIERS
                      or _usually(tokens[0], "r")):  # an adverb ("charge just to clip") names nothing
        infinitive = tokens.pop(0) == "to"
    if not tokens or tokens[0] in PRONOUNS:
        return "", (), ()
    content, used = _noun_phrase(tokens)
    content = _relative_dropped(content, tokens[used:])
    if content[:1] and (content[0].endswith("ing") or infinitive) and len(content) == 1 and tokens[used:used + 1]:
        # "learning to drive a car": the verb form's own infinitive leads to its object as a determiner does.
        # A phrasal verb's particle and preposition lead to its object too: "the deadline to send off for a sample".
        lead = used + next((i for i, t in enumerate(tokens[used:]) if t not in _PARTICLES), len(tokens) - used)
        lead += lead > used and tokens[lead:lead + 1] != [] and tokens[lead] in PREPOSITIONS
        chained = 2 if tokens[lead:lead + 1] == ["to"] and tokens[lead + 2:lead + 3] and tokens[lead + 2] in _DETERMINERS else 0
        if tokens[lead + chained:lead + chained + 1] and tokens[lead + chained] in _DETERMINERS:
            # A verb form heads the phrase ("the charge for renting a canoe out"): the action is named
            # in other words by the documents ("canoes hired by the day"), its object is not.
            obj, more = _noun_phrase(tokens[lead + chained + 1:])
            if obj:
                content, used = _predicate_dropped(obj)[-1:], lead + chained + 1 + more
    if not content:
        return "", (), ()
    # "the price of a kayak", "a ticket for the ferry": what the phrase is of or for follows it.
    of_what = tokens[used:used + 1] in (["of"], ["for"])
    if not subject:
        content = _clause_dropped(content)
    if subject:
        # "does the library's fee go up": the owner is no head of the subject, its noun is ("fee"), unless a name.
        head = _subject([w for w in content if not w.endswith("'s")])
        if content == head and _usually(head[0], "v") and any(t[:1].isdigit() for t in tokens[:used]) and of_what:
            head = []  # "does a 9-year-old pay for museum entry": the subject is an age, what it pays for is the focus
        # A name in the subject ("the Gravel Pro battery") is asked about too, as in any noun phrase.
        content = [*dict.fromkeys(w for w in tokens[:used] if w in names and w not in head), *head]
    elif content[-1].endswith("ed") or _participle(content[-1]):
        content = content[:-1]  # a participle ("is refunded", "is the repaired unit insured", "are dishes kept")
    else:
        content = _predicate_dropped(content)
    if not content and not of_what:
        return "", (), ()
    core = [w for w in content if w not in _SHAPES]
    if len(core) > 1 and (core[-1] in _RIGHTS or core[-1] in _PLACE_WORDS):
        core = core[:-1]
    elif core and tokens[used:used + 1] and tokens[used] in _ALONG and (core[-1] in _USES or _journey(core[-1])):
        thing, end = _object(tokens, used)
        if thing:
            heads = [thing[-1], *(w for w in thing[:-1] if w in names)]
            instead = () if core[-1] in _USES else (core[-1],)
            return " ".join(tokens[:end]), tuple(dict.fromkeys(heads)), instead
    # "a kid's ticket": the owner is named without its ending ("Kid: 15,00", "kids under 12").
    heads = [_single(_owner(core[-1])), *(w for w in core[:-1] if w in names)] if core else []
    phrase = tokens[:used]
    if of_what:
        second, end = _object(tokens, used)
        if subject and second and end == len(tokens) and second[-1] in lexicon().usual \
                and lexicon().usual_part(second[-1]) in ("v", "a"):
            # After an auxiliary the clause ends in its verb ("how long should the cycle for E-17 run"), one
            # mostly an adjective too ("how long does the tour of the caves last"): the last word is what the
            # subject does, not a noun the passage must name.
            second = second[:-1]
        if second:
            heads.append(second[-1])
            phrase = tokens[:end]
            if heads[0] != second[-1] and _measure_word(heads[0]) and tokens[used] == "of":
                heads.pop(0)  # "a month of gym use", "a kilo of plums": the measure is no focus
    return " ".join(phrase), tuple(dict.fromkeys(heads)), ()


def _object(tokens: list[str], at: int) -> tuple[list[str], int]:
    """The content words of the noun phrase after the preposition at ``tokens[at]``, past its determiners, and the
    index where that phrase ends."""
    start = at + 1
    while start < len(tokens) and tokens[start] in _DETERMINERS:
        start += 1
    words, used = _noun_phrase(tokens[start:])
    return _relative_dropped(words, tokens[start + used:]), start + used


def _relative_dropped(words: list[str], after: list[str]) -> list[str]:
    """``words`` less a closing verb in "-ing" that opens a clause about the noun before it ("a pupil boarding at …",
    "a guest staying at …"): not its head.  A noun in "-ing" stays ("a boat mooring in the harbour")."""
    if len(words) > 1 and after[:1] and after[0] in PREPOSITIONS and words[-1].endswith("ing") \
            and lexicon().usual_part(words[-1]) != "n" \
            and any(lexicon().usual.get(base) == "v" for base in lexicon().lemmas(words[-1])):
        return words[:-1]
    return words


def _journey(word: str) -> bool:
    """Whether ``word`` names a journey (a ride, a trip, a crossing, a flight, a drive)."""
    return lexicon().stands_for("journey", word, 2) is True


def _single(word: str) -> str:
    """``word`` less a count of one ("one-day" → day, "single-trip" → trip): a list names one of its unit alone
    ("Day pass", "Trip")."""
    return re.sub(r"^(?:one|single|1)-(?=[a-z])", "", word)


def _owner(word: str) -> str:
    """``word`` less a possessive ending ("kid's" → kid, "members'" → members)."""
    return re.sub(r"(?<=\w)(?:['’]s|(?<=s)['’])$", "", word)


def _usually(word: str, part: str) -> bool:
    """Whether ``word`` is mostly used as the part of speech ``part`` (the lexicon's n, v, a or r)."""
    return lexicon().usual_part(word) == part


def _predicate_dropped(words: list[str]) -> list[str]:
    """``words`` less a closing adjective ("a quote good for", "the pass valid", "a parcel late")."""
    if len(words) > 1 and _usually(words[-1], "a"):
        return words[:-1]  # an adverb stays: "to carry tiles upstairs" is another service than carrying tiles
    return words


def _clause_dropped(words: list[str]) -> list[str]:
    """``words`` up to a verb their plural noun is the subject of ("how many stairs lead down", "photos come with",
    "tests held at"): a plural noun modifies no noun after it ("boat hire" does).  An adverb stays: "to carry
    tiles upstairs" is another service than carrying tiles."""
    for i in range(1, len(words)):
        before, word = words[i - 1], words[i]
        plural = before.endswith("s") and not before.endswith("ss") and _usually(before, "n")
        verb = word in lexicon().usual and _usually(word, "v") or _participle(word)
        if plural and verb:
            return words[:i]
    return words


def _measure_word(word: str) -> bool:
    """Whether ``word`` is a unit of some measure ("year", "metre", "kilos"): "1 <word>" is a measured value."""
    return any(p.search(f"1 {word}") for k, p in INSTANCES.items() if k not in PLAIN)


def _participle(word: str) -> bool:
    """Whether ``word`` is an irregular form of a verb ("kept", "sold", "paid"), as a participle closing a clause."""
    base = lexicon().irregular.get(word, "")
    return lexicon().usual.get(base) == "v" and word not in lexicon().usual


def _subject(words: list[str]) -> list[str]:
    """The head of a clause's subject ahead of its verb: "a balloon passenger be" → passenger, "a laptop run"
    → laptop, "a written quote" → quote.  The last noun before the verb, which after an auxiliary stands in its
    base form ("do volunteers pay": volunteers is no verb); the first word stands as a noun even when it is
    mostly a verb (the subject needs one), adjectives are passed over."""
    head = ""
    for word in words:
        part = lexicon().usual_part(word)
        if head and part == "v" and word in lexicon().usual:
            break
        if part in ("n", "v", None):
            head = word
    return [head or words[0]] if words else []


def _noun_phrase(tokens: list[str]) -> tuple[list[str], int]:
    """The content words of the noun phrase opening ``tokens``, and how many tokens it spans."""
    stop = PREPOSITIONS | AUXILIARIES | _DETERMINERS | PRONOUNS | _PARTICLES | _WH | {"and", "or", "but", "if", "so"}
    n = 0
    while n < len(tokens) and tokens[n] not in stop:
        n += 1
    return [t for t in tokens[:n] if t not in MODIFIERS and not t[0].isdigit()], n
