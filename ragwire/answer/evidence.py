"""Refusal by evidence: a question's salient terms must be somewhere in the collection, or near a word that is.

A near-topic question retrieves passages about the right thing that do not say what
was asked (a product's noise level when only its power is given).  What tells such a
question apart is evidence, not its shape: a salient term of the question (a content
word the question rests on; not a function word, a word that frames the question, or
the word naming the answer type asked for) that **no chunk of the collection contains**,
in any form the store's BM25 tokenizer stems together.  Such a term must be grounded in
the quoted passage itself, its heading or its table row, by a word of the same family
or a near neighbour in meaning; when no passage worth quoting grounds it, the answer
is a refusal naming the term ("nothing in the documents mentions 'Zigbee'").

The collection's statistics come from the store itself (:mod:`ragwire.retrieval.vocabulary`);
only absent terms and the words of the best passages are embedded, and only when a
term is absent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from .answerable import KEY_TERM_WEIGHT, key_terms
from .asked import in_cyclic_range
from .changes import states_change
from .expectations import SUPERLATIVES, expectation, names_type
from .instances import unit_word
from .lexicon import lexicon
from .text import QUESTION_FRAME, STOPWORDS, content_words, cosines, folded, same_family, stated, stem, words

if TYPE_CHECKING:
    import numpy as np

    from ..stages import Embedder

# A word of the quoted passage at least this close (cosine of the single words,
# all-MiniLM-L6-v2) stands in for a term the collection never uses: synonyms score
# about 0.5 and more (postage~shipping 0.68, supermarket~shop 0.64), unrelated words
# mostly below 0.45.  Measured on the development set's questions (absent terms and
# their nearest word in the retrieved chunks): the paraphrases there reach 0.40 to 0.88.
NEIGHBOUR = 0.40
# An absent term weighing this much in the question (its removal moves the question's
# embedding this far) must be grounded in the quote itself.  On the development set the
# paraphrased terms of answerable questions weigh 0.03-0.24; those at 0.15 and above
# (upkeep, guarantee, stack) have a near word in the passage that answers them, the
# lighter ones (notify, fault, alarms) only somewhere in the retrieved chunks.  Lowered to
# answerable.KEY_TERM_WEIGHT (0.10, every key term in the quote) it refused 6 more of the
# second development set's 31 unanswerables, but 2 of the first set's 86 answerables
# (notify, fault) and answered a third wrongly: names (see names()) and asked units (see
# typed.asked_unit()) catch most of those 6 without that cost.
QUOTE_WEIGHT = 0.15
# A thing named by a noun (a pet, a vehicle, a fee) that no document mentions is often near
# other things of its kind that they do (another animal, another vehicle): words of one kind
# are about equally near it, a synonym stands out.  Such a term is grounded by its nearest
# word only when that word is this much nearer (cosine) than the next word of another family.
# Measured on the development sets' absent nouns (the words nearest them in the best passages): a
# synonym leads the runner-up by 0.07 to 0.42, most words of one kind by 0.06 or less.  Applied to the
# nouns at QUOTE_WEIGHT or more alone: lighter ones, checked over all retrieved chunks, meet more words
# of every kind, and the rule refused paraphrases there as often as unanswerable questions.
DISTINCT = 0.07
# A thing the question names (a noun or a name) that no document mentions qualifies what is asked: "a bike
# rack" near a ski rack, "the measles vaccine" near the vaccine list, "open on Easter Monday" near Monday.
# The rest of the question carries the meaning, so such a term moves the question's embedding little, under
# answerable.KEY_TERM_WEIGHT; it must still be grounded in the sources (a name by its own family, a noun by
# a neighbour that stands out, see DISTINCT).  On the eleven development sets (round 7) the unanswerables'
# absent qualifiers weigh 0.080 to 0.096; the answerables' absent nouns that the rule would refuse mostly
# weigh under 0.075 (paraphrase and wording: gap, band, money, hose, position), so it applies from 0.08.
THING_WEIGHT = 0.08
# A collection this small (in chunks) has no subject common to many of them worth telling apart.
SUBJECT_CHUNKS = 8


class Vocabulary(Protocol):
    """In how many chunks of the collection a term occurs, or of one file by its ``source`` (None: the store cannot say)."""

    def documents_with(self, term: str, source: str | None = None) -> int | None: ...

    def refresh(self) -> None:
        """Forget counts taken before the collection changed."""


_SIZE_WORDS = frozenset({"big", "large", "small", "huge", "tiny"})


# Idioms whose noun names nothing asked about ("whom should we get in touch with", "the person in charge of the bar",
# "who takes care of keys", "money off"): the phrase means contacting, running, looking after or a discount, which a document
# says in its own words (a discount as "10 % off"), so the noun is no key term a passage must state.  The idiom's
# other words stay.
_IDIOM_NOUNS = re.compile(r"\b(in)\s+touch\b(?=\s+with\b)|\b(in)\s+charge\b(?=\s+of\b)"
                          r"|\b(take|takes|taking|took)\s+care\b(?=\s+of\b)|\b(get|gets)\s+hold\b(?=\s+of\b)"
                          r"|\bmoney\s+(off)\b", re.IGNORECASE)


def salient_terms(question: str) -> list[str]:
    """The content words of ``question``: no function word, question frame, answer-type word or number.

    A word naming the answer type ("height", "temperatures") is left out only when the
    question's answer type is recognised: then the type's units check it (68 kg states a
    weight).  Unrecognised ("what is the lamp's height"), nothing else would: it is salient.
    """
    expected = expectation(question)
    tokens = words(_IDIOM_NOUNS.sub(lambda m: next(g for g in m.groups() if g), question))
    # "How big is the cool box": the size asked for, which a document gives in litres or centimetres, not by the word.
    sizes = {w for before, w in zip(tokens, tokens[1:], strict=False) if before == "how" and w in _SIZE_WORDS}
    out = []
    for word in dict.fromkeys(tokens):
        if word in sizes:
            continue
        # An inflected answer-type word ("temperatures", "prices") names the type as its base form does.
        if word in STOPWORDS or word in QUESTION_FRAME or names_type(word, expected) or len(word) < 2:
            continue
        if word in SUPERLATIVES:
            continue  # "the longest stay allowed": a bound states it ("at most 30 days"), however the type is read
        if any(c.isdigit() for c in word):
            continue  # numbers and codes are checked against the retrieved text (answerable.py)
        out.append(word)
    return out


def absent_terms(question: str, vocabulary: Vocabulary | None, sources: Sequence[str] = (),
                 files: Sequence[str] = ()) -> list[str]:
    """The salient terms of ``question`` that no chunk of the collection contains, nor writes otherwise.

    The store's index holds a chunk's words as written, so it misses three ways a document says a term:
    in the file's name ("what does the window cleaning firm charge" over a price list filed as such), with
    accents the question dropped ("Zurich" for "Zürich", "cafe" for "café") and as two words the
    question writes as one ("website", "email" for "web site", "e-mail").  A term the retrieved
    ``sources`` write so, or their ``files`` (their file names' words) name in a form of its family, is
    not absent; nor is a month or weekday inside a range they give ("January" in "1 October to 30 April").
    """
    if vocabulary is None:
        return []
    vocabulary.refresh()
    absent = [t for t in salient_terms(question) if vocabulary.documents_with(t) == 0]
    if not absent:
        return absent
    named = {stem(w) for text in files for w in words(text)}
    # Folded once, not per term; a file's name is written text too ("ebike" in fjord_ebike_tours.csv).
    written = [[folded(w) for w in re.findall(r"[^\W_]+", text)] for text in [*sources, *files]]
    return [t for t in absent if not stated(t, named) and not _written_otherwise(t, written)
            and not _compounded(t, written, vocabulary)
            and not any(in_cyclic_range(t, text) for text in sources) and not _unit(t)]


def _unit(word: str) -> bool:
    """Whether ``word`` names a unit of measure ("kilometres", "litres"): the unit check reads it (see
    :func:`.typed.asked_unit`), in whatever way a document writes it ("45 km")."""
    return len(word) > 2 and unit_word(word)


def _written_otherwise(term: str, texts: Sequence[list[str]]) -> bool:
    """Whether a text (its words, accents folded) writes ``term`` with accents, as two words joined by a space or
    hyphen, or a hyphenated ``term`` as one word ("ebike" for "e-bike")."""
    term = folded(term).replace("-", "")
    for tokens in texts:
        if term in tokens or any(a + b == term for a, b in zip(tokens, tokens[1:], strict=False)):
            return True
    return False


# The shortest word a closed compound's other half may be: "sauna|house", "book|shop", but not "card|igan".
_HALF = 4


def _compounded(term: str, texts: Sequence[list[str]], vocabulary: Vocabulary) -> bool:
    """Whether a text writes ``term`` as one half of a closed compound whose other half the collection uses as a
    word of its own: "the sauna" is the saunahouse's, "a shop" a bookshop's."""
    term = folded(term)
    if len(term) < _HALF or not term.isalpha():
        return False
    halves = {w[len(term):] if w.startswith(term) else w[: -len(term)]
              for tokens in texts for w in tokens
              if len(w) >= len(term) + _HALF and (w.startswith(term) or w.endswith(term)) and w.isalpha()}
    return any((vocabulary.documents_with(half) or 0) > 0 for half in sorted(halves))


class Absence(NamedTuple):
    """The question's absent terms by where they must be grounded (see :func:`salient_absent`)."""

    in_quote: list[str]
    in_sources: list[str]
    heavy: set[str]
    light: set[str]  # the things
    weights: dict[str, float]  # every absent term's weight (how far its removal moves the question's embedding)


def salient_absent(question: str, vocabulary: Vocabulary | None, embedding: Any, sources: Sequence[str] = (),
                   files: Sequence[str] = ()) -> Absence:
    """The absent terms the question rests on: in the quote, in the sources, the heavy ones, the things.

    A term whose removal moves the question's embedding by :data:`QUOTE_WEIGHT` or more
    is what the question is about (heavy): the quoted passage itself must ground it.  One that
    moves it by ``answerable.KEY_TERM_WEIGHT`` or more must be grounded somewhere in
    the retrieved sources, and so must a lighter one, down to :data:`THING_WEIGHT`, that names
    a thing (the things: see :func:`things`).  The rest is wording.
    """
    absent = absent_terms(question, vocabulary, sources, files)
    if not absent or embedding is None:
        return Absence(absent, [], set(), set(), {})
    every = key_terms(question, absent, embedding, floor=-1.0)
    weighted = [(t, w) for t, w in every if w >= THING_WEIGHT]
    # The thing asked for ("which languages", "what discount") is what the quote must say, however
    # little it moves the question's embedding: the rest of the question retrieves a near topic.
    # A typed question ("what voltage gap") is checked by its type's units instead.
    asked = asked_words(question) if expectation(question) is None else set()
    heavy = {t for t, w in weighted if w >= QUOTE_WEIGHT}
    in_quote = [t for t in absent if t in asked or t in heavy]
    light = things(question, [t for t, w in weighted if w < KEY_TERM_WEIGHT and t not in in_quote])
    in_sources = [t for t, w in weighted if w < QUOTE_WEIGHT and t not in in_quote
                  and (w >= KEY_TERM_WEIGHT or t in light)]
    # A name no chunk uses must be grounded in the sources however little it weighs: "the price of a kilo of
    # <another variety>", "shipping to <another country>" move the question less than a thing does.
    named = names(question, [t for t, w in every if w < THING_WEIGHT])
    in_sources += [t for t, _ in every if t in named and t not in in_quote]  # in the question's order, run to run
    return Absence(in_quote, in_sources, heavy, light, dict(every))


def absent_evidence(weights: dict[str, float], quoted: Sequence[str],
                    embedding: Embedder | None) -> tuple[float, float, float, bool]:
    """How well the quotes ground the question's absent words (``Absence.weights``), as the decision weighs it.

    ``(the heaviest absent word's weight, the cosine of the quotes' nearest word to the least-grounded
    absent word, how much nearer that word is than the next of another family, whether some absent
    word has no word of its family in the quotes)``; ``(0, 1, 1, False)`` when nothing is absent.
    """
    absent = list(weights)
    pool = sorted(set().union(*map(content_words, quoted)))
    if not absent or not quoted or embedding is None:
        return 0.0, 1.0, 1.0, False
    weight = max(weights.values())
    unstated = not all(stated(t, {stem(w) for w in pool}) for t in absent)
    if not pool:
        return weight, 0.0, 0.0, unstated
    vectors = embedding.embed_documents(list(absent) + pool)
    nearest = []
    for vector in vectors[: len(absent)]:
        sims = cosines(vectors[len(absent):], vector)
        top, margin = _lead(pool, sims)
        nearest.append((float(sims[top]), margin))
    near, margin = min(nearest)
    return weight, near, margin, unstated


def things(question: str, terms: Sequence[str]) -> set[str]:
    """The ``terms`` the question writes as names or nouns, less the one word naming what it asks for.

    "What phone number should I dial" asks for a number, which the documents write as digits, not as the word;
    "how much is the rabies jab" asks for a jab, and "rabies" qualifies it.
    """
    asked = _asked_tokens(question)
    return (names(question, terms) | nouns(question, terms)) - set(asked[-1:])


_ASKED = re.compile(r"\b(?:what|which|who|how much|how many)\b((?:\W+[\w'-]+){1,6})", re.IGNORECASE)


def asked_words(question: str) -> set[str]:
    """The words naming what ``question`` asks for: the phrase after its first wh-word, past auxiliaries and determiners.

    "Which file format does …" → file, format; "what is the bore diameter of …" → bore,
    diameter; "who signs …" → signs.  At most two words, up to the first function word.
    """
    return set(_asked_tokens(question))


def _asked_tokens(question: str) -> list[str]:
    m = _ASKED.search(question)
    if not m:
        return []
    tokens = words(m.group(1))
    while tokens and (tokens[0] in STOPWORDS or tokens[0] in QUESTION_FRAME):
        tokens.pop(0)
    out: list[str] = []
    for token in tokens[:2]:
        if token in STOPWORDS:
            break
        out.append(token)
    return out


def names(question: str, terms: Sequence[str]) -> set[str]:
    """The ``terms`` the question writes as a name: capitalised after its first word, in capitals, or with a capital
    inside (``Italy``, ``CEO``, ``iPad``).

    A name's nearest words are other names of its kind, not synonyms (a country's
    neighbour is another country, an acronym's another acronym): a name the collection
    never uses is grounded only by a word of its own family, never by a neighbour.
    """
    out = set()
    for term in terms:
        for m in re.finditer(rf"(?<![\w-]){re.escape(term)}(?![\w-])", question, re.IGNORECASE):
            written = m.group(0)
            opens = not question[: m.start()].strip()
            inner = any(c.isupper() for c in written[1:]) and not written.isupper()  # a brand: "iPad", "eBay"
            if written.isupper() and len(written) > 1 or (written[0].isupper() and not opens) or inner:
                out.add(term)
    return out


# Words that open a noun phrase ("a parrot", "the gardener", "what fuel mix", "by taxi"): a term
# after one (past at most two modifiers) names a thing; "to" is left out, it opens verbs ("to paint").
NOUN_OPENERS = frozenset("a an the my our your his her its their this that these those any some each every no "
                         "what which whose much many of for in on at by with from per about into".split())
# A word followed by one of these is a verb taking an object ("water the plants", "book a slot").
_OBJECT_OPENERS = frozenset("a an the my our your his her its their this that these those it them us me".split())


def nouns(question: str, terms: Sequence[str]) -> set[str]:
    """The ``terms`` the question uses as nouns: after a determiner or preposition, past at most two modifiers,
    and not before an object; a verb form ("running", "opened") is none.  A thing no document names is
    near other things of its kind (see :data:`DISTINCT`)."""
    tokens = words(question)
    out = set()
    for term in terms:
        if term.endswith(("ing", "ed")):
            continue
        for i, token in enumerate(tokens):
            if token != term or tokens[i + 1:i + 2] and tokens[i + 1] in _OBJECT_OPENERS:
                continue
            before = tokens[max(0, i - 3):i]
            while before and before[-1] not in STOPWORDS and len(before) > 1:
                before.pop()  # a modifier ("the spare battery"); at most two, as the window allows
            if before and before[-1] in NOUN_OPENERS:
                out.add(term)
    return out


def grounded(terms: Sequence[str], passages: Sequence[str], embedding: Any,
             exact: set[str] | frozenset[str] = frozenset(),
             distinct: set[str] | frozenset[str] = frozenset(),
             kinds: set[str] | frozenset[str] = frozenset()) -> list[set[str]]:
    """For each passage (with its heading), which of ``terms`` it grounds: a word of the same family or a near neighbour.

    A term of ``exact`` (a name, see :func:`names`) is grounded by its own family alone; one
    of ``distinct`` (a noun, see :func:`nouns`) by its family or a neighbour nearer than
    every word of another family by :data:`DISTINCT`; one of ``kinds`` by a neighbour the
    lexicon does not call unrelated to it (see :mod:`.lexicon`: a synonym, a derivation,
    a kind of it, or a word it does not know).
    """
    if not terms:
        return [set() for _ in passages]
    vocab = [sorted(content_words(p)) for p in passages]
    pool = sorted({w for ws in vocab for w in ws})
    if not pool:
        return [set() for _ in passages]
    vectors = embedding.embed_documents(list(terms) + pool)
    row = {w: i for i, w in enumerate(pool)}
    near: dict[str, set[str]] = {}
    for term, vector in zip(terms, vectors[: len(terms)], strict=True):
        sims = cosines(vectors[len(terms):], vector)
        close = {w for w in pool if sims[row[w]] >= NEIGHBOUR and term not in exact}
        if close and term in distinct:
            close = _standing_out(close, pool, sims)
        if close and term in kinds:
            close = {w for w in close if lexicon().stands_for(term, w) is not False}
        near[term] = close | {w for w in pool if stated(term, {stem(w)})}
    return [{t for t in terms if near[t] & set(ws) or states_change(t, p)} for ws, p in zip(vocab, passages, strict=True)]


def _standing_out(close: set[str], words_: list[str], sims: np.ndarray) -> set[str]:
    """The nearest word's family, when it is :data:`DISTINCT` nearer than any word of another family; else nothing."""
    top, margin = _lead(words_, sims)
    if margin < DISTINCT:
        return set()
    family = stem(words_[top])
    return {w for w in close if same_family(stem(w), family)}


def _lead(words_: Sequence[str], sims: np.ndarray) -> tuple[int, float]:
    """The index of the word nearest by ``sims`` (one per word), and how much nearer it is than the nearest word of
    another family."""
    ranked = sorted(range(len(words_)), key=lambda i: -sims[i])
    top = stem(words_[ranked[0]])
    runner_up = next((float(sims[i]) for i in ranked if not same_family(stem(words_[i]), top)), 0.0)
    return ranked[0], float(sims[ranked[0]]) - runner_up


def refusal_text(terms: Sequence[str], question: str = "") -> str:
    """``nothing in the documents mentions 'Zigbee'`` as one sentence, each term as the question writes it."""
    named = " or ".join(f"'{_as_written(t, question)}'" for t in terms)
    return f"The documents do not answer this question: nothing in the documents mentions {named}."


def _as_written(term: str, question: str) -> str:
    m = re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", question, re.IGNORECASE)
    return m.group(0) if m else term


def subject_words(question: str, vocabulary: Vocabulary | None) -> set[str]:
    """The question's words that a quarter or more of the collection's chunks hold: the subject of the whole
    collection ("kettle" in a kettle maker's manuals), which a passage answering about it may leave unsaid."""
    size = getattr(vocabulary, "size", None)
    if vocabulary is None or not isinstance(size, int) or size < SUBJECT_CHUNKS:
        return set()
    return {t for t in salient_terms(question) if (vocabulary.documents_with(t) or 0) * 4 >= size}
