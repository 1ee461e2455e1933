"""The typed step of an extractive answer: which passages give the answer type asked for, about its focus.

"How long does shipping take?" is answered only by a passage that gives a duration for the
shipping (:func:`.coverage.covers`); "… in watts?" only by a number in watts.  A focus word
may be named otherwise than the question names it: by the document's own name (a contract
names its company once, in its file name or its title line, not in every clause), by a code its chunk gives
(the flat or model the chunk is about), or by a synonym the passage uses instead (a *kid*
the passage calls a *child*).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from .asked import identifiers
from .context import NumberedSource, file_words, source_path
from .coverage import covers, measured
from .evidence import NEIGHBOUR, Vocabulary, names
from .expectations import SPELLED_NUMBERS, Expectation
from .instances import UNITS, asked_currency
from .lexicon import lexicon
from .passages import Scored, chunk_title
from .text import STOPWORDS, content_words, cosines, stated, stems, words

if TYPE_CHECKING:
    from ..stages import Embedder

# A word of the passage this close (cosine of the single words, all-MiniLM-L6-v2) names a focus word of the
# question in other words.  Synonyms of everyday nouns score 0.7 and more (kid~child 0.81); words of one kind
# stay below it (pass~ticket 0.48, socks~jersey 0.37), and a sibling must not stand in for the thing asked about:
# nearer ones the lexicon calls unrelated are not synonyms, further ones it vouches for are (see _synonyms).
SYNONYM = 0.7
# Passages (best first) whose words are searched for a synonym of a focus word.
SYNONYM_POOL = 12


C = TypeVar("C", bound=Scored)


def typed(expected: Expectation, candidates: list[C], headings: dict[int, str], sources: list[NumberedSource],
          threshold: float, embedding: Embedder | None, whole: dict[str, str] | None = None) -> list[C]:
    """The candidates above ``threshold`` that give the expected answer; ``whole`` is :func:`naming_focus` of the
    sources, when the caller has it."""
    # A code a retrieved chunk of the file gives (a flat B0417, a model KX-2) names what the file's chunks are about,
    # as a heading would: a lease gives the flat's code once, not in the clause stating the rent.  So does the title
    # line above its sections ("HARBOUR ROWING CLUB - HOUSE RULES" over "2.1 Season fee: 90 EUR").
    codes: dict[str, set[str]] = {}
    for s in sources:
        codes.setdefault(source_path(s), set()).update(identifiers(s.text))
    if whole is None:
        whole = naming_focus(expected, sources)
    titles = {s.index: f"{file_words(s)} {chunk_title(s.text)} {' '.join(sorted(codes[source_path(s)]))}"
                       f"{whole.get(source_path(s), '')}" for s in sources}
    above = [c for c in candidates if c.score >= threshold]
    # A row holding a value the question gives ("the 12 mm drill", "Grade 4") is the thing asked about, however it
    # names it ("Bit 12 mm" for "the 12 mm drill"), when it gives a value of the type asked.
    kept = [c for c in above if covers(expected, c.passage.text, f"{c.passage.context} | {headings[c.source]}",
                                       titles[c.source])
            or c.literal and measured(expected, c.passage.text, f"{c.passage.context} | {headings[c.source]}")]
    if not kept and expected.heads and embedding is not None:
        # No passage names the focus as the question does: one may name it by a synonym, the closer kind first.
        pool = sorted(above, key=lambda c: c.ranked, reverse=True)[:SYNONYM_POOL]
        for named in _synonyms(expected.heads, [c.passage.text for c in pool], embedding):
            kept = [c for c, extra in zip(pool, named, strict=True)
                    if extra and covers(expected, c.passage.text, f"{c.passage.context} | {headings[c.source]}",
                                        f"{titles[c.source]} {' '.join(extra)}")]
            if kept:
                break
    if not kept and (kind := _kind_named(expected)):
        # "The express service": a passage labelled by the kind ("Express: next day, price plus 30%") names the
        # service, a word for any offer, which it leaves unsaid.
        kept = [c for c in above if stated(kind, stems(f"{c.passage.text} {c.passage.context}")) and covers(
            expected, c.passage.text, f"{c.passage.context} | {headings[c.source]}",
            f"{titles[c.source]} {' '.join(expected.heads)}")]
    return kept


# Words for any offer of a business, which a price list's rows leave unsaid: "the express service" is its "Express" row.
_ANY_OFFER = frozenset("service services option options offer offers".split())


def _kind_named(expected: Expectation) -> str:
    """The word naming the kind of an offer the focus asks about by a word for any offer ("express" of "the same-day
    express service"), "" when the focus names a thing of its own."""
    tokens = words(expected.focus)
    if len(expected.heads) != 1 or expected.heads[0] not in _ANY_OFFER or expected.heads[0] not in tokens:
        return ""
    before = tokens[:tokens.index(expected.heads[0])]
    return next((w for w in reversed(before) if w.isalpha() and w not in STOPWORDS), "")


def typed_step(expected: Expectation, candidates: list[C], headings: dict[int, str], sources: list[NumberedSource],
               threshold: float, embedding: Embedder | None, whole: dict[str, str]) -> tuple[list[C], bool]:
    """The candidates that give the expected answer (:func:`typed`), and, when none does, whether none above
    ``threshold`` even gives a value of the type as asked, about anything (the decisive ``typed_unmeasured``)."""
    kept = typed(expected, candidates, headings, sources, threshold, embedding, whole)
    return kept, not kept and not any(measured(expected, c.passage.text, f"{c.passage.context} | {headings[c.source]}")
                                      for c in candidates if c.score >= threshold)


def naming_focus(expected: Expectation | None, sources: Sequence[NumberedSource], question: str = "",
                 vocabulary: Vocabulary | None = None) -> dict[str, str]:
    """The files whose retrieved chunks name the focus whole somewhere ("the Acme climb", "Acme Summer Climb"), each
    with the heads as words its chunks name: such a file calls its thing so where it names it by one of its words
    alone ("Acme: 2 days").

    And the files that mention in some chunk (the ``vocabulary``'s count) a name ``question`` gives as what the thing
    is of, its owner, with that name: "the prize giving of <a school>" is answered from the school's own calendar, whose
    rows never repeat its name.  A name before the thing ("the <name> plan") picks a row, which a file mentioning it
    elsewhere does not give.
    """
    if expected is None:
        return {}
    out = {source_path(s): " " + " ".join(expected.heads) for s in sources
           if len(expected.heads) > 1 and _named_together(expected.heads, s.text)}
    owners = set(words(expected.focus.partition(" of ")[2]))
    named = [h for h in expected.heads if not any(c.isdigit() for c in h) and h in names(question, [h])]
    # Every head a name ("how much deposit does <a customer> pay"): the focus is whom the question is about, which the
    # file addressed to them names once, not the thing asked.  A code ("SCR-1") names a row as a name before a thing does.
    named = named if len(named) == len(expected.heads) else [h for h in named if h in owners]
    if vocabulary is None or not named:
        return out
    for path in dict.fromkeys(source_path(s) for s in sources):
        if said := [h for h in named if (vocabulary.documents_with(h, path) or 0) > 0]:
            out[path] = f"{out.get(path, '')} {' '.join(said)}"
    return out


def _named_together(heads: Sequence[str], text: str) -> bool:
    """Whether ``text`` names every one of ``heads`` in one phrase of adjacent words, at most one other word
    between: "the Acme climb", "Acme Summer Climb", not "climb, 1 day" (a number or a stop between)."""
    span = len(heads) + 1
    for phrase in re.split(r"[^\w\s'’-]|\d", text):
        said = [stems(token) for token in phrase.split()]  # each word stemmed once, not once per window
        for i in range(len(said)):
            run = set().union(*said[i:i + span])
            if all(stated(h, run) for h in heads):
                return True
    return False


_ASKED_UNIT = re.compile(r"\b(in|how many|per)\s+([a-z][a-z-]*)", re.IGNORECASE)
# A price per unit of time is written in many ways ("hourly", "a day", "daily rate"); one per unit of measure
# ("per gallon", "per foot") is given per that unit, not per another the documents use instead ("per litre").
_TIME_UNITS = ("hours", "minutes", "seconds", "days", "weeks", "months", "years")


def asked_unit(question: str) -> tuple[str, re.Pattern[str]] | None:
    """The unit ``question`` names for its answer, as ``(its word, a pattern of a number in it)``, a currency too
    ("… in euros?"); None when none."""
    for m in _ASKED_UNIT.finditer(question):
        per, word = m.group(1).lower() == "per", m.group(2).lower()
        for name, pattern in UNITS.items():
            if not re.fullmatch(pattern, word):
                continue
            if per:
                if name not in _TIME_UNITS and len(word) > 1:
                    # Also a quantity in the unit priced "at" a sum: "340 kWh at 0.21" is a price per kWh.
                    return m.group(2), re.compile(rf"(?:\bper|/|\ba|\ban|\beach)\s*(?:{pattern})(?![\w-])|"
                                                  rf"(?:^|[\W_])(?:price|cost|rate)?_?per_?(?:{pattern})\b|"
                                                  rf"\d\s?(?:{pattern})\s+(?:at|@)\s", re.IGNORECASE)
            elif len(word) > 2:
                # A number written as a word counts too ("six hours"), then always a space apart.
                number = rf"(?:\d[\d,.]*\s?|\b(?:{SPELLED_NUMBERS})[\s-]+)"
                # So does a table column named in the unit ("warranty_years: 5", "Weight (kg): 16.5").
                column = rf"(?:^|[\W_])(?:{pattern})\)?\s*:\s*[-+]?\d"
                return m.group(2), re.compile(rf"{number}(?:{pattern})(?![\w-])|{column}", re.IGNORECASE)
    return asked_currency(question)


def in_asked_unit(question: str, candidates: list[C]) -> tuple[list[C], str]:
    """The candidates giving a number in the unit the question names ("… in watts?"), and that unit ("" when none)."""
    unit = asked_unit(question)
    if unit is None:
        return candidates, ""
    word, pattern = unit
    return [c for c in candidates if pattern.search(f"{c.passage.text} | {c.passage.context}")], word


def _synonyms(heads: Sequence[str], passages: Sequence[str], embedding: Embedder) -> list[list[set[str]]]:
    """For each passage, the focus words one of its words names: by an embedding synonym, then by the lexicon's.

    Two tiers, the closer first: words at :data:`SYNONYM` or nearer that the lexicon does not call
    unrelated (a sibling as near as 0.77, a weekday for a weekend, is not a synonym), then words at
    :data:`.evidence.NEIGHBOUR` or nearer that it says stand for the focus word (a warranty for a
    guarantee, 0.58).  The second is asked only when the first names nothing the type covers.
    """
    said = [stems(p) for p in passages]
    missing = [h for h in heads if not all(stated(h, s) for s in said)]
    vocab = [sorted(content_words(p)) for p in passages]
    pool = sorted({w for ws in vocab for w in ws})
    if not missing or not pool:
        return []
    vectors = embedding.embed_documents(list(missing) + pool)
    close: dict[str, set[str]] = {}
    vouched: dict[str, set[str]] = {}
    for head, vector in zip(missing, vectors[: len(missing)], strict=True):
        sims = cosines(vectors[len(missing):], vector)
        near = [(w, float(sim), lexicon().stands_for(head, w)) for w, sim in zip(pool, sims, strict=True)
                if sim >= NEIGHBOUR]
        close[head] = {w for w, sim, verdict in near if sim >= SYNONYM and verdict is not False}
        vouched[head] = {w for w, _, verdict in near if verdict}
    return [[{h for h in missing if tier[h] & set(ws)} for ws in vocab] for tier in (close, vouched)]
