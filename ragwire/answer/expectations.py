"""What kind of answer a question expects, and where in it the answer must attach (classic QA answer typing).

"What does a year's membership cost?" expects an amount of money for the
membership; "How long does shipping take?" a duration for the shipping; "How much
does the printer weigh?" a mass.  :func:`expectation` reads that from the question's form
alone: the wh-phrase ("how much", "how long", "how steep", "what … price"), tables
of the units that state each type (:mod:`.instances`; a general phenomenon, not a list of questions), and the head noun of the phrase the type attaches to (its *focus*).
Whether a passage gives such an answer is :mod:`.coverage`'s to say.  Questions of no recognised form
get no expectation.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from .focus import AUXILIARIES, MODIFIERS, PREPOSITIONS, PRONOUNS, focused
from .instances import INSTANCES, SPELLED_NUMBERS
from .instances import PLAIN as _PLAIN
from .lexicon import lexicon
from .text import WORD as _WORD
from .text import stem as _stem

__all__ = ["ABOVE_SEA", "DIMENSIONS", "MODIFIERS", "OTHER_DIMENSIONS", "RELATIVE_CHARGES", "SPELLED_NUMBERS", "SUPERLATIVES",
           "Expectation", "expectation", "is_yes_no", "names_type", "type_word"]

# Verbs that name the measure asked for ("how much does it weigh", "what does it cost").
_MEASURE_VERBS = {"weigh": "mass", "cost": "amount of money"}
# "How much per minute does …", "how much a night do …": the rate's period or unit between "how much" and the verb.
_RATE = r"(?: (?:per|a|an|each) [\w-]+)?"
# "How <adjective>" and its superlative ask for a measure.
_HOW_ADJECTIVE = {
    "loud": "sound level", "noisy": "sound level", "quiet": "sound level",
    "steep": "gradient", "heavy": "mass", "far": "length", "wide": "length", "tall": "length",
    "high": "length", "deep": "length", "fast": "speed", "quick": "speed",
    "hot": "temperature", "cold": "temperature", "warm": "temperature",
    "often": "frequency", "frequently": "frequency", "soon": "duration", "quickly": "duration",
}
_SUPERLATIVE = {"loudest": "sound level", "steepest": "gradient", "heaviest": "mass", "fastest": "speed",
                "highest": "", "lowest": "", "hottest": "temperature", "coldest": "temperature",
                "widest": "length", "tallest": "length", "longest": "", "shortest": ""}
# A superlative of a measure is stated by a bound ("the longest stay allowed": "at most 14 nights"), never by itself.
SUPERLATIVES = frozenset(_SUPERLATIVE)
# Head nouns of "what / which <noun>" and "<noun> of X" that name a measure.
_TYPE_NOUNS = {
    "price": "amount of money", "prices": "amount of money", "cost": "amount of money",
    "costs": "amount of money", "fee": "amount of money", "fees": "amount of money",
    "duration": "duration", "lead time": "duration", "delivery time": "duration",
    "turnaround": "duration", "response time": "duration", "waiting time": "duration",
    "noise": "sound level", "noise level": "sound level", "sound level": "sound level",
    "decibel": "sound level", "decibels": "sound level", "volume": "sound level",
    "gradient": "gradient", "incline": "gradient", "slope": "gradient", "angle": "gradient",
    "weight": "mass", "mass": "mass",
    # A length is of time or of space, as "how long" is: a booking's, a film's, a boat's.
    "length": "duration or length", "width": "length", "height": "length", "depth": "length", "distance": "length",
    "dimensions": "length", "size": "length", "radius": "length", "diameter": "length", "thickness": "length",
    "power consumption": "power", "power draw": "power", "wattage": "power",
    "speed": "speed", "temperature": "temperature",
    "percentage": "percentage", "percent": "percentage", "proportion": "percentage",
    "voltage": "voltage", "version": "version", "date": "calendar date", "year": "date",
    "opening hours": "time of day", "what time": "time of day",
    "rating": "rating", "certification": "rating", "protection class": "rating",
    "phone number": "telephone number", "telephone number": "telephone number",
    # Nouns that name a sum paid: a passage giving none does not answer "how big is the penalty for …".
    "fine": "amount of money", "fines": "amount of money", "fare": "amount of money", "fares": "amount of money",
    "rent": "amount of money", "deposit": "amount of money", "toll": "amount of money",
    "surcharge": "amount of money", "charge": "amount of money", "charges": "amount of money",
    # A sum charged as an amount or a share ("a late penalty of 15 EUR"), which documents call a fee as often.
    "penalty": "amount or percentage", "penalties": "amount or percentage",
    # A deadline is a day ("by 15 May", "no later than the 10th"), whatever the documents call it.
    "deadline": "calendar date", "deadlines": "calendar date",
    # A rate is a sum only per a period or a distance ("the nightly rate"): a flow, interest or sample rate is not.
    "rate": "amount of money",
    # A height above the sea is a length a document gives in metres or feet ("1,450 m above sea level").
    "altitude": "length", "elevation": "length",
}
# Events the clock times ("the boarding time", "a kick-off time"); a time of other nouns is a length ("the
# journey time", "the fastest time") or no measure ("the time control").
_CLOCK_EVENTS = ("check-in|check-out|checkout|admission|entry|start|starting|opening|closing|departure|arrival|"
                 "pick-up|pickup|collection|kick-off|boarding|curfew")
_PRICE_PERIODS = ("nightly|daily|hourly|weekly|monthly|yearly|annual|day|night|hour|week|weekend|month|year|half-day|"
                  "full-day|mileage|room")
# The pattern of a type noun with more than one sense, in the sense naming the type only.
_NOUN_PATTERNS = {"rate": rf"(?:{_PRICE_PERIODS}) rates?"}
# A type noun's other senses: a person "in charge", a battery's "charge level".
_OTHER_SENSES = {"charge": re.compile(r"\bin charge\b|\bcharge (?:level|state)\b|\bstate of charge\b")}
# The words that name the answer type asked for ("how heavy", "what price"): a document states
# the type by its units (68 kg, 2950 EUR), so these need not occur in it.
# "Number" names no type alone ("a tax number", "the number of seats"), only after "phone".
# "How much notice": a length of time ahead, however the documents name the notice ("48 hours before").
_AHEAD = frozenset({"notice", "warning"})
TYPE_WORDS = (frozenset(_HOW_ADJECTIVE) | frozenset(_SUPERLATIVE) | {w for n in _TYPE_NOUNS for w in n.split()}
              | frozenset({"weigh", "weighs", "cost", "costs", "charge", "charges", "long", "much", "many"}) | _AHEAD) - {"number"}
_TYPE_STEMS = frozenset(_stem(w) for w in TYPE_WORDS)


def type_word(word: str) -> bool:
    """Whether ``word`` names an answer type, in any inflection ("temperatures", "prices", "weighs")."""
    return word in TYPE_WORDS or _stem(word) in _TYPE_STEMS


# Words that name a type only inside its own name: "number" in "phone number" (see TYPE_WORDS); as stems.
_OWN_TYPE_STEMS = {"telephone number": frozenset({_stem("number")})}


def names_type(word: str, expected: Expectation | None) -> bool:
    """Whether ``word`` names the recognised answer type ``expected`` ("prices" of money, "number" of a telephone
    number): a document states the type by its values, not by the word.  False when no type is recognised."""
    if expected is None:
        return False
    return type_word(word) or _stem(word) in _OWN_TYPE_STEMS.get(expected.kind, frozenset())


# Sums often stated as a share of a price rather than an amount ("a 30 % deposit", "a 4 % card surcharge",
# "insurance: 2 % of the declared value", "late cancellations are charged 50 %").
RELATIVE_CHARGES = frozenset({"deposit", "deposits", "surcharge", "surcharges", "commission", "discount", "discounts",
                               "supplement", "premium", "tip", "interest", "markup", "mark-up", "down payment",
                               "advance", "refund", "reduction", "service charge", "insurance", "tax", "taxes",
                               "vat", "gratuity", "extra charge", "cancellation", "cancellations", "no-show",
                               "no-shows"})
_RELATIVE_CHARGE = re.compile(rf"\b(?:{'|'.join(map(re.escape, sorted(RELATIVE_CHARGES)))})\b")
# After "how much" these are no thing measured: money is priced, more/less and comparatives ("how much faster") compare.
_NUMBER_OF = re.compile(r"^(?:what|which) (?:is|are|was|were) the (?:(?:max|maximum|min|minimum|largest|smallest|"
                        r"highest|lowest|greatest|total|usual|typical|exact) )?number of ")
_NOT_MASS_NOUNS = frozenset({"money", "more", "less", "time"})
_GRADABLE = frozenset(_HOW_ADJECTIVE) | frozenset("long short big small large cheap dear low late early light strong".split())


def _comparative(word: str) -> bool:
    """Whether ``word`` is the comparative of a measuring adjective ("faster", "bigger", "heavier", "later")."""
    return any(word in (a + "er", a + "r", a + a[-1] + "er", a[:-1] + "ier") for a in _GRADABLE)


_OPENING_PREPOSITIONS = "at|to|above|below|over|under|beyond|up to|down to|from|within|in|on|by"
_EVENT_TIMES = frozenset({"delivery time", "response time", "waiting time"})
# A length is one of several dimensions; the passage must name the one asked for.
# Comparatives name the dimension too ("no taller than 2.2 metres"); short stems do not join them by family.
ABOVE_SEA = ("altitude", "elevation", "sea", "asl", "masl", "amsl")
DIMENSIONS = {"tall": ("tall", "taller", "height", "high", "higher"), "high": ("height", "high", "higher", "tall", "taller"),
               "wide": ("width", "wide", "wider"), "deep": ("depth", "deep", "deeper"),
               "far": ("distance", "far", "farther", "further", "away", "range")}
_LENGTH_NOUNS = {"altitude": ABOVE_SEA, "elevation": ABOVE_SEA, "height": ("height", "high", "tall"), "width": ("width", "wide"), "depth": ("depth", "deep"),
                 "radius": ("radius",), "diameter": ("diameter",), "thickness": ("thickness", "thick"),
                 "distance": DIMENSIONS["far"], "length": ("length", "long", "longer", "short", "shorter")}
# A distance is any length no other dimension is named for: "swim 200 m" says how far, "2 m high" does not.
OTHER_DIMENSIONS = ("height", "high", "tall", "width", "wide", "depth", "deep", "thickness", "thick")
_TIME_NOUNS = {"seconds", "minutes", "hours", "days", "weeks", "months", "years"}

# "What's the fee?" asks what "What is the fee?" does, with either apostrophe; read unexpanded, it had no answer type.
_CONTRACTED = re.compile(r"\b(what|who|where|when|how|which)['’]s\b|\b(what)s\b", re.IGNORECASE)
_YES_NO = re.compile(r"^\s*(?:can|could|may|must|should|shall|will|would|is|are|was|were|do|does|did|has|have)\b",
                     re.IGNORECASE)


@dataclass(frozen=True)
class Expectation:
    """The answer a question asks for.

    Attributes:
        kind: The answer type ("amount of money", "duration", …), as the refusal names it.
        focus: The phrase of the question the answer attaches to ("shipping of a spare battery pack").
        heads: The head words of ``focus`` a passage must state: the phrase's head and that of
            its ``of`` complement ("delivery", "module").  Empty when the form gives no clear focus.
        aspect: For a length, the words naming its dimension, one of which the passage must state:
            "mounted 2 m off the ground" is no answer to "how tall".
    """

    kind: str
    focus: str
    heads: tuple[str, ...]
    aspect: tuple[str, ...] = ()  # a length's dimension: one of these words must be there ("height", "tall")
    counted: tuple[str, ...] = ()  # "how many <noun>": a number must count one of these words ("12 spaces")
    instead: tuple[str, ...] = ()  # words a passage may name in place of the heads: a journey for its route

    def refusal(self) -> str:
        about = f" for {self.focus}" if self.focus else ""
        return f"The documents give no {self.kind}{about}."


def is_yes_no(question: str) -> bool:
    """Whether ``question`` opens with an auxiliary ("Can the printer be rented?", "Is the battery covered?")."""
    return bool(_YES_NO.match(question))


def expectation(question: str) -> Expectation | None:
    """The answer type ``question`` asks for and its focus, or None for a question of no recognised form.

    A yes/no question ("Can the printer be rented?") expects no typed answer, even when
    a clause after it does ("Does the pool open on Sundays, and until when?").
    """
    if _YES_NO.match(question):
        return None
    question = _CONTRACTED.sub(lambda m: f"{m.group(1) or m.group(2)} is", question)
    words = [w.lower() for w in _WORD.findall(question)]
    # "What is the highest number of late returns …" asks how many, as "how many late returns" does; the bound is read by
    # the passage's own words ("up to 15 faults").
    text = _NUMBER_OF.sub("how many ", " ".join(words))
    kind, rest = _kind(text)
    if kind is None:
        return None
    # A word capitalised inside the question is a name ("the Gravel Pro", "Linden Hill"): a passage
    # about another product of the same kind shares the focus's last word, not its name.
    names = {w.lower() for w in _WORD.findall(question)[1:] if w[:1].isupper()}
    phrase, heads, instead = focused(rest, names)
    # A fee is as often a share of a price as a sum ("a 3 % booking fee", "a late fee of 5 %"); a list of "fees"
    # prices its rows in money, where a share beside them is a discount.
    if kind == "amount of money" and (_RELATIVE_CHARGE.search(text) or re.search(r"\bfee\b", text)):
        kind = "amount or percentage"  # "what deposit is due": "a deposit of 30 %" answers it as "EUR 50" would
    found = Expectation(kind, phrase, heads, instead=instead)
    if kind == "number" and (m := re.search(r"\bhow many ((?:[\w-]+ ?){1,3})", text)):
        counted = tuple(w for w in m.group(1).split() if w not in MODIFIERS)[:2]
        # "how many walkers arrive", "how many boats sail": a verb after the noun is no part of what is counted.
        counted = counted[:1] if counted[1:] and (counted[1] in AUXILIARIES | PREPOSITIONS or (
            lexicon().usual_part(counted[1]) == "v" and lexicon().usual_part(counted[0]) != "v")) else counted
        # A unit ("how many amperes", "how many kilos of plums") asks for a measure in any of its units
        # ("16 A", "40 kg"): the unit is no thing a passage must name.
        measures = [k for k, p in INSTANCES.items() if k not in _PLAIN and p.search(f"1 {counted[0]}")]
        if not measures:
            found = dataclasses.replace(found, counted=counted)
        elif len(measures) == 1:
            found = dataclasses.replace(found, kind=measures[0], heads=tuple(h for h in found.heads if h != counted[0]))
    if kind == "length" and (m := re.search(rf"\bhow ({'|'.join(DIMENSIONS)})\b", text)):
        return dataclasses.replace(found, aspect=DIMENSIONS[m.group(1)])
    if kind == "length" and (m := re.search(rf"\b({'|'.join(_LENGTH_NOUNS)})s?\b", text)):
        # "what is the pipe's diameter": a length of another dimension (a mounting height) is no answer.
        return dataclasses.replace(found, aspect=_LENGTH_NOUNS[m.group(1)])
    return found


def _kind(text: str) -> tuple[str | None, str]:
    """The answer type and the words after its trigger (where the focus is)."""
    if re.search(r"\bhow long (?:will|would|does|do|did|can|could) it take\b", text) or \
            re.search(r"\bhow many \w+ (?:will|would|does|do|did) it take\b", text):
        return "duration", ""  # "how long … take to <verb>": an activity, no one focus noun
    if m := re.search(r"\bhow long (?:does|do|did|will|would) (?:(?!\btake\b).)+? take to (\w+)", text):
        return "duration", "of " + m.group(1)  # "how long does <X> take to <verb>": the verb's action is timed
    if m := re.search(r"\bhow long (?:does|do|did|will|would) ((?:(?!\btake\b).)+?) take\b", text):
        return "duration", "is " + m.group(1)
    if (m := re.search(r"\bhow long (?:does|do|did|will|would|must|should) ((?:(?!\bhave\b).)+?) (?:have|need) to (\w+)",
                       text)) and m.group(1).split()[0] not in PRONOUNS:
        return "duration", "of " + m.group(2)  # "how long do buyers have to cancel": the duty's act is timed
    if m := re.search(r"\bhow long (?:is|are|was|were)\b", text):
        return "duration or length", text[m.end():]  # "long" measures time or space: the film's, the tunnel's
    if m := re.search(r"\bhow long\b", text):
        return "duration", text[m.end():]
    if m := re.search(rf"\bhow many ({'|'.join(_TIME_NOUNS)})\b", text):
        return "duration", text[m.end():]
    for verb, measure in _MEASURE_VERBS.items():
        # "how much / what does <X> weigh | cost": the verb names the measure, <X> is its focus
        if m := re.search(rf"\b(?:how much{_RATE}|what) (?:does|do|did|will|would) ((?:(?!\b(?:{verb}|what)\b).)+?) "
                          rf"{verb}\b", text):
            if m.group(1) == "it" and text[m.end():].startswith(" to "):
                return measure, text[m.end():]  # "what will it cost to reserve a kayak": the kayak is priced
            return measure, "is " + m.group(1)
    if m := re.search(r"^(?:(?:at|by|until|till|from) )?what time\b", text):
        return "time of day", text[m.end():]  # "at what time do gates shut": a clock time
    if m := re.search(r"^when (?:was|were|did)\b", text):
        # An event of the past ("when was X released", "when did X open") happened on a date: a
        # changelog or notice dates it in its heading ("4.1.2 – 2026-07-02"), which covers() reads.
        return "date", _event(("does" if m.group(0).endswith("did") else "is") + text[m.end():])
    if m := re.search(r"^(?:(?:on|in) )?(?:what|which) day of the week\b", text):
        return "day of the week", text[m.end():]  # a weekday's name answers it, not a date or an hour
    if re.search(r"\bhow old\b|\bwhat age\b", text):
        # "How old must a rider be", "from what age": an age, written as a band or a bound ("aged 4 to 8", "12+").
        return "age", ""
    if m := re.search(r"^when (?:is|are|does|do|will|would|can|should|must|may)\b", text):
        # "When is the lunch break", "when does the season finish": a time of some kind, whatever the passage's own.
        # No focus: what happens then is said too many ways ("open", "hours", a day's row) to be required.
        return "date or time", ""
    if m := re.search(r"\bhow much extra\b", text):
        # A supplement, given as "15 € more" or "a 20 % surcharge"; "does <X> cost" prices X, as without "extra".
        rest = text[m.end():]
        priced = re.match(r" (?:does|do|did|will|would) (.+?) (?:cost|charge)\b", rest)
        return "amount or percentage", "is " + priced.group(1) if priced else rest
    if (m := re.search(r"\bhow much ([a-z-]+) (?:is|are|was|were|does|do|did|will|would|can|could|may|might|must|"
                       r"should|shall)\b", text)) and m.group(1) not in _NOT_MASS_NOUNS and not _comparative(m.group(1)):
        if m.group(1) in _TYPE_NOUNS:
            # "how much weight does a shelf hold": the noun names the measure, the rest is its focus.
            return _TYPE_NOUNS[m.group(1)], text[m.end(1):]
        if m.group(1) in _AHEAD:
            return "duration", ""  # "how much notice do tenants owe": "48 hours before"
        # "how much paint should one coat use": a quantity of that thing, which the passage must name.
        return "quantity", "is " + m.group(1)
    if m := re.search(r"\b(?:what|how much) (?:does|do|did|will|would) (?:(?!\bwhat\b).)+? charge(?= for\b)",
                      text) or (m := re.search(r"\bwhat (?:does|do|did|will|would) (?:(?!\bwhat\b).)+? charge\b", text)):
        # "what does <someone> charge per <unit>": the unit is priced; "how much does a gym charge for a locker":
        # the locker is (who charges is read by the checks of names, not required beside the price).  "… charge to
        # <do something>" keeps its whole clause: the act is named too many ways to be a focus.
        return "amount of money", text[m.end():]
    if m := re.search(r"\b(?:latest|earliest) (?:time|hour)\b", text):
        return "time of day", text[m.end():]  # "the latest time visitors may enter": a clock time
    if m := re.search(rf"\b({_CLOCK_EVENTS}) times?\b", text):
        # "The final boarding time on the pier", "opening times": when the event happens by the clock, the event its focus.
        return "time of day", f"{m.group(1)}{text[m.end():]}"
    if m := re.search(r"^by how much ((?:is|are|was|were|does|do|did|will|would)\b.*)", text):
        return "change in amount or share", m.group(1)
    if m := re.search(r"\bhow much (?:is|are|was|were|for|to|money)\b|\bhow much(?= (?:does|do|did|will|would)\b)",
                      text):
        rest = text[m.end():]
        if m.group().endswith(" to") and (act := re.match(r" [a-z-]+(?= (?:the|a|an|my|our|your|this|that|one)\b)", rest)):
            return "amount of money", "is" + rest[act.end():]  # "how much to hire the trailer": the trailer is priced
        return "amount of money", rest  # "how much do volunteers pay": the auxiliary opens a subject
    if m := re.search(r"\bhow (?:far|much time) (?:ahead|in advance|beforehand)\b", text):
        return "duration", text[m.end():]  # "how far ahead must I book": a lead time, not a distance
    if m := re.search(r"\bhow ([a-z]+)\b", text):
        if m.group(1) in _HOW_ADJECTIVE:
            return _HOW_ADJECTIVE[m.group(1)], text[m.end():]
        if m.group(1) == "many":
            return "number", text[m.end():]
    if m := re.search(r"\b(?:fastest|quickest) (?:time|anyone|someone|anybody|somebody|record)\b", text):
        return "duration", ""  # a record is timed ("the fastest anyone has finished it" took minutes), its verb varies
    for word, kind in _SUPERLATIVE.items():
        if kind and (m := re.search(rf"\b{word}\b", text)):
            return kind, text[m.end():]
    for noun in sorted(_TYPE_NOUNS, key=len, reverse=True):
        # The noun must head the wh-phrase ("what is the <noun> of …", "which version …") or open
        # the question ("release date of …"): a type noun later in a question names no answer type.
        kind = _TYPE_NOUNS[noun]
        # "what temperatures", "which dimensions": the plural asks for the same type.
        pat = _NOUN_PATTERNS.get(noun) or (noun if noun.endswith("s") else rf"{noun}(?:e?s)?")
        if noun in _OTHER_SENSES and _OTHER_SENSES[noun].search(text):
            continue
        if kind == "rating" and (m := re.search(rf"^(?:what|which) ([\w-]+) {pat}\b", text)):
            return kind, f"of {m.group(1)}"  # "what <class> rating": the kind of rating is the focus
        if kind in ("date", "calendar date") and (m := re.search(rf"^(?:(?:in|on|by|from|until|since) )?(?:what|which) {pat}\b", text)):
            return kind, _event(text[m.end():])  # "in which year did the mill open": the mill's date, not any date
        # A preposition may open the wh-phrase ("at what temperature", "above what wind speed", "to what depth").
        if m := re.search(rf"^(?:(?:{_OPENING_PREPOSITIONS}) )?(?:what|which)(?: ([\w-]+))? {pat}\b|^{pat}$", text):
            # "which version does <X> need": the noun is the focus itself and what follows
            # says which one, not what it is of; a word before the noun says what it is of ("what wind speed").
            before = m.group(1) if m.lastindex else None
            named = before and before not in MODIFIERS | AUXILIARIES and (
                before.endswith("ing") or lexicon().usual_part(before) in ("n", None))
            # A noun or a gerund names what it is of ("what wind speed", "what cleaning fee"); "what extra charge" does not.
            return kind, f"of {before}" if named else ""
        # "what is the <thing>'s <noun>": a possessive may stand before the noun.
        if m := re.search(rf"^(?:what|which) (?:is|are|was|were)(?: the)?((?: [\w-]+){{0,2}})(?: [\w-]+'s)? {pat}\b"
                          rf"|^(?:[\w-]+ ){{0,3}}{pat} (?:of|for)\b", text):
            at = re.compile(rf"{pat}\b").search(text, m.start())
            rest = text[at.end():] if at else ""
            # "the spare key fee at the front desk", "the berth fee per metre": where it is charged, or the unit it is
            # charged per, is not what the fee is for; the words before the noun are.
            mods = [w for w in (m.group(1) or "").split() if w not in MODIFIERS and not lexicon().end(w)]
            if mods and re.match(r" (?:per\b|at (?!(?:the )?(?:weekends?|night|noon|midnight)\b))", rest):
                # The unit it is charged per is named beside it all the same ("R35 per bird").
                per = re.match(r" per ([\w-]+)", rest)
                return kind, "of " + " ".join(mods) + (f" for {per.group(1)}" if per else "")
            # "what is the delivery time for X": the delivery of X is timed.
            return kind, f"of {noun.split()[0]} {rest}" if noun in _EVENT_TIMES else rest
    return None, ""


def _event(clause: str) -> str:
    """The clause of an event less its verb ("is the hall built" → "is the hall", "does the term end in May" →
    "does the term in May"): the verb is the event, often named otherwise by the documents (a heading's date,
    "opened", "runs from … to …"), the subject is not.  After "does" the bare verb closes the subject, before a
    place or a time; else the verb closes the clause ("must the balance for the hall be paid")."""
    tokens = clause.split()
    closes = len(tokens)
    if tokens and tokens[0] in ("does", "do", "did"):
        closes = next((i for i, t in enumerate(tokens) if i > 1 and t in PREPOSITIONS), closes)
    return " ".join(tokens[:closes - 1] + tokens[closes:]) if closes > 2 else clause
