"""Is a question answerable from the retrieved text at all?  Relevance is not answerability.

A near-topic question (a product's loudness in decibels when only its power is given,
the features of a release no document mentions) retrieves passages about the right product that do not say what was asked.
Two checks find the specific thing asked for that the sources never state:

* a number, version or code of the question (``3.4``, ``E-6``, ``SKU-88213-B``)
  that no source carries;
* a word the question rests on (removing it moves the question's embedding
  by at least :data:`KEY_TERM_WEIGHT`) that no source contains, and that no word of
  the sources comes close to in meaning (cosine below :data:`NO_NEIGHBOUR`).

Both are deliberately strict: a paraphrase ("How heavy…" for "weighs 68 kg") must
still be answered, so a term counts as missing only when nothing near it is there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .asked import DAYS, asked, in_range, with_unit
from .changes import states_change
from .context import NumberedSource, file_words
from .expectations import RELATIVE_CHARGES, expectation, names_type, type_word
from .focus import AUXILIARIES
from .instances import SPELLED_VALUES, measure_unit
from .lexicon import lexicon
from .passages import split_passages
from .text import STOPWORDS, cosine, stated, stem, words

if TYPE_CHECKING:
    from ..stages import Embedder

# A term whose removal moves the question's embedding (all-MiniLM-L6-v2) by less than
# this is not what the question is about ("itself", "take", "usually").
KEY_TERM_WEIGHT = 0.10
# Synonyms and inflections score about 0.5 and more against each other as single words
# (heavy~heavier 0.90, postage~shipping 0.68, supermarket~shop 0.64); unrelated words
# stay below about 0.45.  Below this, nothing in the sources is near the term.
NO_NEIGHBOUR = 0.40
# How near a word must be to name the thing or role an "is there a …" or "who is the …" question asks after: a
# synonym ("footwear" for "shoes" 0.75), not a word of its topic ("price" for "discount" 0.56, "cheese" for
# "restaurant" 0.51).  The line is narrow: "signal" for "reception" (0.596) falls below it.
THING_NEIGHBOUR = 0.60



def missing_terms(question: str, sources: Sequence[NumberedSource], embedding: Any) -> list[str]:
    """The specific terms of ``question`` that the ``sources`` never state ([] when none is missing).

    Args:
        question: What was asked.
        sources: The numbered sources the answer may quote.
        embedding: The collection's embedding model (``embed_query`` / ``embed_documents``).
    """
    text = " ".join(f"{s.text} {s.hit.metadata.get('heading_path') or ''}" for s in sources)
    # A file's name says what the file is about ("the window cleaning firm" over its terms, which never say "window").
    vocabulary = set(words(text)) | {w for s in sources for w in words(file_words(s))}
    # A number in a unit inside a range the sources give in that unit is carried by it ("a 4 m canoe": "3.01 – 5 m");
    # a bare number is not ("version 5.0" is no quantity in "3 to 7 days").
    measured = {lit: (value, unit) for lit, value, unit in asked(question).numbers if unit}
    # So is a number joined to its unit ("a 9-year-old" in "6 to 12 years", "a 3-day pass" in "2-5 days").
    measured |= {t: (float(m.group(1).replace(",", "")), m.group(2)) for t in _numbers(question)
                 if (m := _JOINED.fullmatch(t))}
    # A number in a unit of measure is carried by that number in that unit, not by the same digits elsewhere:
    # "a 50 cl jar" is not in a list of 25 cl and 100 cl jars that also prices something at 50.
    weighed = {t for t, (_, unit) in measured.items() if t.isdigit() and measure_unit(unit)}
    rows: list[str] = []

    def in_unit(literal: str, unit: str) -> bool:
        # A table gives the unit in its header ("| Weight (kg) |"), which its rows read as passages carry.
        if with_unit(literal, unit, text):
            return True
        rows[:] = rows or [" ".join(p.text for s in sources for p in split_passages(s.text))]
        return with_unit(literal, unit, rows[0])

    missing = [t for t in _numbers(question)
               if not (in_unit(t, measured[t][1]) if t in weighed else _grouped(t, text) if _GROUP.fullmatch(t)
                       else _carried(t, vocabulary))
               and not (t in measured and in_range(*measured[t], text))]
    missing += [t for t in dict.fromkeys(words(question)) if (m := _SPELLED_JOINED.fullmatch(t))
                and measure_unit(m.group(2)) and not _spelled_carried(t, _VALUES[m.group(1)], m.group(2), vocabulary, text)]
    return missing + _key_terms_without_neighbour(question, vocabulary, embedding, text)


def unmentioned(question: str, quoted: Sequence[str], embedding: Any,
                implicit: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The key words of a yes/no ``question`` that the ``quoted`` passages never mention ([] when none).

    "Can the printer be rented?" is not answered by "No. The printer is built for offices"
    (an FAQ's reply to another question): what a yes or no answers must be in the passage
    that says it.  Key words and "near in meaning" are as in :func:`missing_terms`, but
    the vocabulary is that of the quoted passages (with their headings), not of every source.
    The ``implicit`` words (the collection's subject, the quoted files' names) count as mentioned and are not
    weighed: any passage of the file covers them.
    """
    said = set(words(" ".join(quoted)))
    weights = dict(key_terms(question, _content_terms(question), embedding))
    absent = [t for t in _key_terms_without_neighbour(question, said | set(implicit), embedding, " ".join(quoted))
              if t in weights]
    # A passage that covers most of what the question rests on may say it in other words
    # ("webhooks for job completion" for "notify"); one that misses most of it answers another question.  The
    # subject it leaves unsaid (the file's, the collection's) is covered by any passage, so it is not weighed.
    weighed = {t: w for t, w in weights.items() if t not in implicit}
    if sum(weights[t] for t in absent) * 2 > sum(weighed.values()):
        return absent
    return []


# "Is there a <thing> …": the thing is what the answer must speak of, whatever else the question names.
_THERE_IS = re.compile(r"^\s*(?:is|are|was|were|will)\s+there\s+(?:be\s+)?(?:an?\s+|any\s+|some\s+)?"
                       r"((?:[\w'-]+\s+){0,3}?[\w'-]+?)(?=\s+(?:at|in|on|for|if|when|near|inside|to|with|by|from|"
                       r"during|after|before|or|and)\b|\s*[,?]|\s*$)", re.IGNORECASE)
# A bound (a limit of weight, a minimum age) is stated by its number ("over 110 kg"), and a supplement ("is it
# extra") by its sum ("a 5 EUR surcharge"), not by the word.
_BOUNDS = frozenset("limit limits restriction restrictions minimum maximum cap extra".split())


def existence_unmentioned(question: str, quoted: Sequence[str], embedding: Embedder) -> list[str]:
    """The thing an "is there a …" ``question`` asks after, when the ``quoted`` passages never mention it ([] else).

    "Is there a playground at the farm?" is not answered by the farm's address: the passage that
    says yes or no names the playground (or a word near it).  A sum or a bound asked after ("an extra
    charge", "a weight limit") is stated by its value, so it is not required as a word.
    """
    head = _head(_THERE_IS, question, frozenset())
    if not head or type_word(head) or head in _BOUNDS:
        return []
    return _unnamed([head], quoted, embedding)


# "Who is the club's treasurer": the role is what the person asked for is named by.  An act ("who keeps the
# keys") is not checked: documents often state it in other words ("become the property of").  A subject pronoun
# opens a clause about the role ("the secretary I write to", "the coach we ask"), not a longer name of it.  A verb
# that gives someone a role names it after the verb ("who was voted in as chair", "who was appointed as the warden").
_GIVES_ROLE = r"(?:elected|appointed|named|chosen|voted|nominated|selected|made)\s+(?:as\s+)?(?:(?:the|a|an)\s+)?"
WHO_ROLE = re.compile(r"^\s*who(?:['’]s|\s+(?:is|are|was|were))\s+(?:(?:on|at|in)\s+)?(?:(?:the|a|an|their|its|your|our)\s+"
                      rf"|{_GIVES_ROLE})((?:[\w'-]+\s+){{0,2}}?"
                      r"[\w'-]+?)(?=\s+(?:of|at|for|in|on|to|with|from|who|that|i|we|you|they)\b|\s*[?.,]|\s*$)", re.IGNORECASE)


def role_unmentioned(question: str, quoted: Sequence[str], embedding: Embedder) -> list[str]:
    """The role a "who is the …" ``question`` names, when the ``quoted`` passages never state it ([] else).

    A passage names whoever holds a role by the role ("the secretary, Ruth Ames", "Treasurer: …");
    one that does not is about the organisation, not the person asked for: its address or its
    history does not say who the treasurer is.
    """
    role = _head(WHO_ROLE, question)
    if not role or not (m := WHO_ROLE.match(question)):
        return []
    # "The vice-president", "the deputy head": another role than the president or the head, named only with its
    # prefix, which the quotes must state too.
    phrase = re.split(r"[\s-]+", m.group(1).lower())
    said = set(re.split(r"[\W_]+", " ".join(quoted).lower()))
    if phrase[0] in _SECOND_ROLES and len(phrase) > 1 and phrase[0] not in said:
        return [" ".join(phrase)]
    return _unnamed([role], quoted, embedding)


# Words that make another role of the one they stand before: a vice-president is not the president.
_SECOND_ROLES = frozenset("vice deputy assistant co sub ex acting associate junior".split())


# "Which coolant does …", "what breed are …", "in which languages …": the kind of thing asked for, right after the
# wh-word and before the verb.
_WHICH_KIND = re.compile(r"^\s*(?:(?:in|on|at|to|for|from|with|by)\s+)?(?:which|what)\s+((?:[\w'-]+\s+){0,2}?[\w'-]+)"
                         r"\s+(?:do|does|did|is|are|was|were|can|could|should|must|will|would|has|have)\b", re.IGNORECASE)


_DAY_WORDS = frozenset("day days weekday weekdays".split())
# Nouns too general to name a kind of thing ("what information is needed", "what number should one ring").
_GENERAL = frozenset("details detail information info things thing items item options option number numbers".split())


def kind_unmentioned(question: str, quoted: Sequence[str], embedding: Embedder) -> list[str]:
    """The kind of thing a "which <noun> …" ``question`` asks for, when the ``quoted`` passages name neither it nor a
    kind of it ([] else): "which coolant does the engine need" is not answered by the thermostat's temperature."""
    thing = _head(_WHICH_KIND, question)
    if not thing or type_word(thing) or thing in _GENERAL or thing in RELATIVE_CHARGES:
        return []  # "what details", "what discount": no kind a passage names, or a sum its value states ("15 % off")
    said = set(words(" ".join(quoted)))
    # A kind of it answers ("a hex key" for "which tool", "Lyon" for "which city"), as far as the lexicon knows.
    if any(lexicon().stands_for(thing, w) for w in said):
        return []
    # WordNet files a weekday under a "calendar day" the one-word lexicon leaves out, so it never reaches "day".
    if thing in _DAY_WORDS and any(w.rstrip("s") in DAYS for w in said):
        return []
    return _unnamed([thing], quoted, embedding)


def predicate_unmentioned(question: str, quoted: Sequence[str], embedding: Embedder,
                          implicit: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The things a yes/no ``question`` says of its subject that the ``quoted`` passages never name, when they are
    most of them ([] else).

    "Does <shop> make vegan chocolate?" is said of the shop, which any passage of its file covers;
    "vegan" and "chocolate" are what the answer must speak of.  The words weighed are the
    question's nouns and adjectives less its names (capitalised), the ``implicit`` ones (the
    collection's subject, the quoted files' names) and the words naming an answer type or a bound.
    """
    names = {w.lower().strip("?,.!") for w in question.split()[1:] if w[:1].isupper()}
    things = [t for t in _content_terms(question) if t not in names and not _stated(t, set(implicit)) and len(t) > 2
              and t.replace("-", "").isalpha() and not type_word(t) and t not in _BOUNDS and t not in AUXILIARIES
              and lexicon().usual_part(t) not in ("v", "r")]
    missing = _unnamed(things, quoted, embedding)
    return missing if len(missing) * 2 > len(things) else []


def _head(pattern: re.Pattern[str], question: str, verbs: frozenset[str] = AUXILIARIES) -> str:
    """The last word of the phrase ``pattern`` finds at the start of ``question`` ("" when none, a function word or
    one of ``verbs``, which end a "who is …" or "which … does" phrase but name a thing after "is there a": a need)."""
    m = pattern.match(question)
    found = words(m.group(1))[-1:] if m else []
    return found[0] if found and found[0] not in STOPWORDS and found[0] not in verbs else ""


def _unnamed(things: list[str], quoted: Sequence[str], embedding: Embedder) -> list[str]:
    """The ``things`` the ``quoted`` passages do not state: in a form of its family, in its own sense, a
    derivation or a direct kind of it (the lexicon), or by a near synonym."""
    if not things:
        return []
    said = set(words(" ".join(quoted)))
    unstated = [t for t in things if not _stated(t, said) and not any(lexicon().stands_for(t, w, depth=1) for w in said)]
    # A word merely of its topic ("cheese" for "restaurant", "price" for "discount", both near 0.5) is what a
    # passage about something else shares with it: only a near synonym names it.
    return _without_neighbour(unstated, said, embedding, THING_NEIGHBOUR)


def _content_terms(question: str) -> list[str]:
    return [t for t in dict.fromkeys(words(question))
            if t not in STOPWORDS and len(t) > 1 and not any(c.isdigit() for c in t)]


def key_terms(question: str, terms: list[str], embedding: Any,
              floor: float = KEY_TERM_WEIGHT) -> list[tuple[str, float]]:
    """The ``terms`` whose removal moves the question's embedding by at least ``floor``, with that move."""
    if not terms:
        return []
    question_vector = embedding.embed_query(question)
    without = [" ".join(re.sub(rf"(?i)(?<![\w-]){re.escape(t)}(?![\w-])", " ", question).split()) for t in terms]
    weights = [1.0 - cosine(question_vector, v) for v in embedding.embed_documents(without)]
    return [(t, w) for t, w in zip(terms, weights, strict=False) if w >= floor]


def _key_terms_without_neighbour(question: str, vocabulary: set[str], embedding: Any, text: str) -> list[str]:
    """Key words of ``question`` (by masking weight) stated in no form in ``vocabulary`` (of the sources' ``text``) and
    with no word near; a change of price ``text`` states as documents write it is stated (see :mod:`.changes`)."""
    # A word naming the recognised answer type ("temperatures") is stated by the type's units (5 °C), not by itself.
    expected = expectation(question)
    terms = [t for t in _content_terms(question) if not _stated(t, vocabulary) and not names_type(t, expected)
             and not states_change(t, text)]
    return _without_neighbour([t for t, _ in key_terms(question, terms, embedding)], vocabulary, embedding)


def _without_neighbour(key: list[str], vocabulary: set[str], embedding: Embedder, near: float = NO_NEIGHBOUR) -> list[str]:
    """The words of ``key`` no word of ``vocabulary`` comes ``near`` in meaning (cosine below it)."""
    if not key:
        return []
    neighbours = sorted(w for w in vocabulary if w not in STOPWORDS and not w.isdigit())
    vectors = embedding.embed_documents(key + neighbours)
    term_vectors, word_vectors = vectors[: len(key)], vectors[len(key):]
    return [term for term, vector in zip(key, term_vectors, strict=False)
            if max((cosine(vector, w) for w in word_vectors), default=0.0) < near]


# A number written out and joined to its unit ("a four-day trek", "a half-day ride", "a two-litre jug"): a row picked
# by it is as specific as one picked by "4 days", and a list of three- and six-day treks does not hold it.  Only units
# of measure: a thing counted ("a two-person kayak", "a six-egg box") is as often named otherwise ("tandem", "box of
# 6").  "One-" is left out: "one-way", "one-off" and "one-to-one" are idioms more often than counts.  Tens and
# hundreds ("a thirty-day notice") were never measured here, so they are left out too.
_VALUES = {w: v for w, v in SPELLED_VALUES.items() if 2 <= v <= 20 or v == 0.5}
_SPELLED_JOINED = re.compile(rf"({'|'.join(_VALUES)})-([a-z]+)")


def _spelled_carried(token: str, value: float, unit: str, vocabulary: set[str], text: str) -> bool:
    """Whether the sources hold "four-day" as written, as "4-day", "4 days" or "four days", or in a range in days;
    a span of weeks is also held in days ("a two-week stay" in "7 to 20 days")."""
    if token in vocabulary or f"{value:g}-{unit}" in vocabulary:
        return True
    if unit == "week" and in_range(value * 7, "days", text):
        return True
    word = token.split("-", 1)[0]
    written = re.compile(rf"(?<![\w.]){re.escape(f'{value:g}')}[\s-]?{re.escape(unit)}|\b{word}\s(?:an?\s)?{re.escape(unit)}",
                         re.IGNORECASE)
    return bool(written.search(text)) or in_range(value, unit, text)


def _numbers(question: str) -> list[str]:
    """Numbers, versions and codes of the question: words with a digit (``3.4``, ``e-6``, ``1,000``)."""
    return [w.rstrip(".,") for w in dict.fromkeys(words(question)) if any(c.isdigit() for c in w)]


# A number joined to its unit by a hyphen, as a modifier: "12-month", "10-hour", "9-year-old".
_JOINED = re.compile(r"(\d+(?:[.,]\d+)?)-([a-z]+)(?:-[a-z]+)*")
# A group named by a bound and its number: "under-19s", "over-65s", "under-5" (not a code such as "E-6" or "AR-7").
_GROUP = re.compile(r"(under|over|above|below)-(\d+)s?")


def _grouped(token: str, text: str) -> bool:
    """Whether ``text`` names the group ``token`` names ("under-19s": "under 19", "under-19", "Under 19s")."""
    m = _GROUP.fullmatch(token)
    if m is not None and m.group(1) == "under" and re.search(rf"\bU-?{m.group(2)}s?\b", text):
        return True  # a team's age group: "U15" is the under-15s
    return m is not None and bool(re.search(rf"\b{m.group(1)}[\s-]{m.group(2)}(?!\d)", text, re.IGNORECASE))


_AGE_GROUP = re.compile(r"u-?(\d{1,2})s?")


def _carried(token: str, vocabulary: set[str]) -> bool:
    """``3.4`` is carried by ``3.4`` or ``3.4.1``, ``e-6`` by ``e-6010``, ``12-month`` by ``12 months``; ``3.4`` not by ``3.40``."""
    if token in vocabulary or token.replace(",", "") in vocabulary:
        return True
    if m := _AGE_GROUP.fullmatch(token):
        # An age group is written "U15" or "under-15" alike (see _grouped for the other way round).
        n = m.group(1)
        return bool({f"u{n}", f"u-{n}", f"under-{n}", f"under-{n}s", f"u{n}s"} & vocabulary) or (
            "under" in vocabulary and (n in vocabulary or f"{n}s" in vocabulary))
    if m := _JOINED.fullmatch(token):
        # A number joined to its unit ("12-month", "10-hour") is written "12 months" as often.
        return m.group(1) in vocabulary and _stated(m.group(2), vocabulary)
    if token[-1:].isdigit() and "-" in token:
        return any(w.startswith(token) for w in vocabulary)  # a code prefix: "E-6" for the E-6xxx family
    return any(w.startswith(token + ".") for w in vocabulary)


def _stated(term: str, vocabulary: set[str]) -> bool:
    """The term or a word of its family is in the sources (charging~charge, recalibrating~recalibration); a compound
    of two words of four letters and more also when both are, apart ("bear-watching" in "bear watching tours")."""
    if term in vocabulary or stated(term, stems := {stem(w) for w in vocabulary}):
        return True
    parts = term.split("-")
    return len(parts) == 2 and all(len(p) > 3 and p.isalpha() and stated(p, stems) for p in parts)
