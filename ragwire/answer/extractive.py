"""Extractive answers, used without an ``llm`` section: the retrieved sentences closest to the question, cited, or a refusal.

Every candidate passage (a sentence, a bullet, a table row; see :mod:`.passages`) is
embedded with the collection's own model and scored by cosine similarity to the
question.  When even the best one scores below the threshold, or the sources never
state a specific term the question asks about (see :mod:`.answerable`), the answer
is a refusal.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .ages import asked_age, holds
from .answerable import missing_terms
from .asked import TIMED_KINDS, asked, attribute_share, codes_carried, identifying, literals_held, telling
from .asked import identifiers as identifiers  # re-exported: the codes of a question
from .calibration import strength
from .contact import asks_contact, contact_only
from .context import NumberedSource, file_words, source_path
from .coverage import instance, measured
from .dayparts import of_part
from .days import kinds_held
from .decision import ANSWER_FLOOR, OVERRULE_AT, Evidence, decisive, probability
from .elsewhere import files_naming
from .ends import sides_crossed
from .evidence import (
    THING_WEIGHT,
    Vocabulary,
    absent_evidence,
    grounded,
    names,
    nouns,
    refusal_text,
    salient_absent,
    salient_terms,
)
from .expectations import Expectation, expectation, is_yes_no
from .extraction import Extraction
from .extraction import cite as cite  # re-exported: the marker of one quote
from .objections import objections, unquoted_weight
from .pairs import asked_pair, pair_in_sources
from .passages import Passage, distinct, row_label, split_passages, table_headers
from .people import naming_someone, states_duty
from .quoting import quotes_of
from .text import cosine, stated, stems
from .typed import in_asked_unit, naming_focus, typed_step

if TYPE_CHECKING:
    from ..stages import Embedder

# The similarity (cosine, all-MiniLM-L6-v2) the best passage must reach, else the answer
# is a refusal.  Measured by bench/extractive_calibration.py on examples/docs, top 5
# hybrid chunks, chunk sizes 400 and 1000: the best passage of 19 on-topic questions
# scored 0.405-0.807, of 9 off-topic ones 0.127-0.238; 0.32 is the middle of that gap.
REFUSAL_THRESHOLD = 0.32
# A passage of a lower-ranked source needs this much more similarity per rank to
# be quoted first: retrieval ranked the whole chunks, with keywords the model cannot see.
RANK_DECAY = 0.02
# A code of the question (E-17, SKU-88213-B, 3.3.1) found in the passage or its
# headings: the embedding model barely tells E-17 from E-29, the reader does.
# It orders passages; it never lifts one over the refusal threshold.
IDENTIFIER_BONUS = 0.2
# A passage stating all of the question's salient words (weighed by their rarity in the
# collection) ranks this much higher than one stating none: the embedding sees the topic,
# this sees which passage names what was asked ("Saturday" of the opening hours).
TERMS_BONUS = 0.1
# A passage naming the attribute asked for ("what notice period") ranks up to 1.5 times this much higher (the
# words side by side); one holding a literal value of the question ("10:50", "group B", a range holding "9 m")
# this much: a neighbouring sentence or row shares the topic, not these (see :mod:`.asked`).
ATTRIBUTE_BONUS = 0.15
LITERAL_BONUS = 0.2
# Passages after the first are quoted only if they rank within this of the best:
# a weaker sentence adds reading but little answer.
KEEP_WITHIN = 0.07
# Passages (best first) searched for words that ground a term the collection never uses.
GROUNDING_POOL = 12
# Two passages this similar say the same thing (overlapping chunks, a FAQ and a manual).
NEAR_DUPLICATE = 0.9


@dataclass(frozen=True)
class Candidate:
    """A passage of one numbered source with its similarity to the question."""

    source: int  # NumberedSource.index
    passage: Passage
    score: float  # cosine similarity to the question
    ranked: float  # score less the rank decay, plus the identifier bonus; what selection orders by
    vector: tuple[float, ...]
    has_code: bool = False  # carries a code the question names
    heading: str = ""  # shown before the quote: the heading that holds the answer ("Release 5.1 (4 March 2024)")
    says: float = 0.0  # the share of the question's salient words (weighed by rarity) the passage states
    shows: float = 0.0  # the bonus for naming the asked attribute and holding the question's literal values
    label: frozenset[str] = frozenset()  # the stems of what a row is of ("young", "adult" of "Young adult (19–25)")
    literal: bool = False  # holds a literal value of the question that tells passages apart ("8 kg", "Class 9")


@dataclass(frozen=True)
class ExtractiveAnswerer:
    """The :class:`Extractor` of a collection: its embedding model and term counts (see :func:`extract`).

    Called as ``answerer(question, sources)`` it returns ``(text, refused)``, what the
    answer pipeline's extractive step takes.
    """

    embedding: Any
    vocabulary: Vocabulary | None = None
    max_sentences: int = 3
    threshold: float = REFUSAL_THRESHOLD

    def extract(self, question: str, sources: list[NumberedSource]) -> Extraction:
        return extract(question, sources, self.embedding, max_sentences=self.max_sentences,
                       threshold=self.threshold, vocabulary=self.vocabulary)

    def __call__(self, question: str, sources: list[NumberedSource]) -> tuple[str, bool]:
        return self.extract(question, sources).render()


def extractive_answer(question: str, sources: list[NumberedSource], embedding: Any, *, max_sentences: int = 3,
                      threshold: float = REFUSAL_THRESHOLD, vocabulary: Vocabulary | None = None) -> tuple[str, bool]:
    """``(text, refused)`` of :func:`extract`, rendered."""
    return extract(question, sources, embedding, max_sentences=max_sentences, threshold=threshold,
                   vocabulary=vocabulary).render()


def extract(question: str, sources: list[NumberedSource], embedding: Any, *, max_sentences: int = 3,
            threshold: float = REFUSAL_THRESHOLD, vocabulary: Vocabulary | None = None) -> Extraction:
    """Quote the retrieved passages closest to ``question``, or refuse.

    Args:
        question: What was asked.
        sources: The numbered sources of the context budget, best first.
        embedding: The collection's embedding model (``embed_query`` / ``embed_documents``).
        max_sentences: The most passages quoted.
        threshold: The cosine similarity the best passage must reach, else the answer is a refusal.
        vocabulary: The collection's term counts: a salient term of the question no chunk
            contains (nor a near word of the sources) is a refusal naming it.

    Returns:
        The quotes, best source first; or a refusal with a one-line reason.

    Raises:
        ValueError: ``max_sentences`` is below 1.
    """
    return decide(assess(question, sources, embedding, max_sentences=max_sentences, threshold=threshold,
                         vocabulary=vocabulary))


@dataclass(frozen=True)
class Assessment:
    """What the checks found about answering a question from its sources, before anything is decided."""

    chosen: list[Candidate]  # the passages an answer would quote; empty when none is worth quoting
    sources: list[NumberedSource]
    refusals: list[Extraction]  # each objecting check's refusal, the one to report first
    evidence: Evidence


def decide(assessment: Assessment, overrule_at: float = OVERRULE_AT) -> Extraction:
    """The quotes, unless a check objects and the model does not overrule it, or the model's chance is below the floor."""
    if not assessment.chosen:
        return assessment.refusals[0] if assessment.refusals else Extraction.refused(
            "The retrieved documents hold no passage that could answer this question.")
    chance = probability(assessment.evidence)
    if assessment.refusals and (chance < overrule_at or decisive(assessment.evidence)):
        return assessment.refusals[0]
    if chance < ANSWER_FLOOR:
        return Extraction.refused("The closest passages share too little with this question to be quoted as its answer.")
    return Extraction(quotes_of(assessment.chosen, assessment.sources), strength=chance)


def assess(question: str, sources: list[NumberedSource], embedding: Embedder, *, max_sentences: int = 3,
           threshold: float = REFUSAL_THRESHOLD, vocabulary: Vocabulary | None = None) -> Assessment:
    """Every check of ``question`` against its sources, the passages to quote, and the evidence (see :mod:`.decision`)."""
    if max_sentences < 1:
        raise ValueError(f"max_sentences must be at least 1, got {max_sentences}")
    candidates = score_passages(question, sources, embedding, vocabulary)
    if not asks_contact(question):
        # A letterhead names what every question names; it answers only how to reach someone (contact.py), or who
        # holds the role asked: "Treasurer: <a name>, <a number>" is contact details, and who the treasurer is.
        candidates = [c for c in candidates if not contact_only(c.passage.text)
                      or states_duty(question, c.passage.text)] or candidates
    if naming := files_naming(question, sources, vocabulary):
        # A question naming one organisation or place is answered from a file that mentions it.
        paths = {s.index: source_path(s) for s in sources}
        candidates = [c for c in candidates if paths[c.source] in naming] or candidates
    best = max((c.score for c in candidates), default=0.0)
    if not candidates or best < threshold:
        # Nothing is close enough to quote: no evidence could make an answer of it.
        reason = (f"The retrieved documents do not answer this question (closest passage {best:.2f}, threshold "
                  f"{threshold:.2f})." if candidates else "")
        return Assessment([], sources, [Extraction.refused(reason)] if reason else [], Evidence(best=best))
    headings = {s.index: str(s.hit.metadata.get("heading_path") or "") for s in sources}
    refusals: list[Extraction] = []
    seen: dict[str, bool] = {}
    in_quote, in_sources, heavy, light, weights = salient_absent(question, vocabulary, embedding,
                                                                 [s.text for s in sources],
                                                                 [file_words(s) for s in sources])
    if in_sources:
        texts = [f"{s.text} {headings[s.index]}" for s in sources]
        # A name that barely moves the question qualifies it (a variety, a destination): its family or a neighbour
        # that stands out (a short form, a spelling of its own) grounds it; names of one kind are about equally near.
        faint = {t for t in in_sources if weights.get(t, 1.0) < THING_WEIGHT}
        exact = names(question, [t for t in in_sources if t not in faint])
        found = set().union(*grounded(in_sources, texts, embedding, exact, (light | faint) - exact))
        if ungrounded := [t for t in in_sources if t not in found]:
            seen["ungrounded_in_sources"] = True
            refusals.append(Extraction.refused(refusal_text(ungrounded, question), ungrounded))
    if in_quote:
        # A term no document uses is answered only by a passage that says it in other words.
        kept, ungrounded = _grounding(in_quote, candidates, headings, threshold, embedding,
                                      names(question, in_quote), nouns(question, [t for t in in_quote if t in heavy]),
                                      heavy)
        candidates = kept or candidates
        if not kept:
            seen["ungrounded_in_quote"] = True
            refusals.append(Extraction.refused(refusal_text(ungrounded, question), ungrounded))
    if (pair := asked_pair(question)) and not pair_in_sources(pair, sources, headings):
        # "What is the boiling point": passages that say "point" and "boiling" apart name no boiling point.
        seen["pair_unstated"] = True
        refusals.append(Extraction.refused(refusal_text([" ".join(pair)], question), [" ".join(pair)]))
    age = asked_age(question)
    if missing := [t for t in missing_terms(question, sources, embedding)
                   # "I'm 68" is carried by the band that holds it ("65 and over"), not by the digits.
                   if not (age is not None and t.split("-")[0] == str(age) and any(holds(age, s.text) for s in sources))]:
        # On topic is not answered: the sources never state what was specifically asked.
        seen["missing"] = True
        named = ", ".join(f"'{t}'" for t in missing)
        refusals.append(Extraction.refused(f"The retrieved documents do not answer this question: nothing in them "
                                           f"states {named}.", missing))
    expected = expectation(question)
    whole = naming_focus(expected, sources, question, vocabulary)
    if expected is not None:
        # "How long does shipping take?" is answered by a passage that gives a duration for the shipping.
        kept, unmeasured = typed_step(expected, candidates, headings, sources, threshold, embedding, whole)
        candidates = [_with_heading(c, expected) for c in kept] or candidates
        if not kept:
            seen["typed_unfound"], seen["typed_unmeasured"] = True, unmeasured
            refusals.append(Extraction.refused(expected.refusal()))
    # "What does it draw in watts?" is answered by a number in watts, not by the voltage beside it.
    in_unit, unit = in_asked_unit(question, candidates)
    candidates = in_unit or candidates
    if not in_unit:
        seen["unit_unfound"] = True
        refusals.append(Extraction.refused(f"The documents give no value in {unit} for this.", [unit]))
    # "An 11-year-old's ticket": the rows whose age bands hold 11 (ages.py); "a Sunday morning": its slots (dayparts.py).
    candidates = [c for c in candidates if age is None or holds(age, f"{c.passage.text} {c.passage.context}")] or candidates
    candidates = of_part(question, candidates, lambda c: f"{c.passage.text} {c.passage.context}")
    # "Who runs the hut?": the passage naming its wardens, not the nearer one of its dates (a file's title names no doer).
    sources_by = {s.index: s for s in sources}
    if people := naming_someone(question, [c for c in candidates if c.score >= threshold], lambda c: c.passage.text,
                                lambda c: f"{c.passage.context} {file_words(sources_by[c.source])} {headings[c.source]}"):
        candidates = people
    chosen = select(candidates, max_sentences, threshold)
    quoted = [f"{c.passage.text} {c.passage.context} {headings[c.source]}{whole.get(source_path(sources_by[c.source]), '')}"
              for c in chosen]
    yes_no = is_yes_no(question)
    quoted_from = [sources_by[c.source] for c in chosen]
    for name, refusal in objections(question, quoted, quoted_from, list(weights), vocabulary, embedding):
        seen[name] = True
        refusals.append(refusal)
    weight, near, margin, unstated = absent_evidence(weights, quoted, embedding)
    unquoted = unquoted_weight(question, [*quoted, *map(file_words, quoted_from)], embedding)
    evidence = Evidence(best=best, quoted=max((c.score for c in chosen), default=0.0),
                        strength=_strength(question, chosen, headings), absent=len(in_quote) + len(in_sources),
                        absent_weight=weight, absent_near=near, absent_margin=margin, absent_unstated=unstated,
                        unquoted_weight=unquoted,
                        typed=expected is not None, yes_no=yes_no,
                        typed_quoted=expected is not None and any(instance(expected.kind, q) for q in quoted),
                        **seen)
    return Assessment(chosen, sources, refusals, evidence)


def _strength(question: str, chosen: list[Candidate], headings: dict[int, str]) -> float:
    """The grounding strength of quoting ``chosen``: best similarity times the share of salient words they state."""
    if not chosen:
        return 0.0
    said = stems(" ".join(f"{c.passage.text} {c.passage.context} {headings[c.source]}" for c in chosen))
    terms = salient_terms(question)
    coverage = sum(stated(t, said) for t in terms) / len(terms) if terms else 1.0
    return strength(max(c.score for c in chosen), coverage)


def _grounding(terms: list[str], candidates: list[Candidate], headings: dict[int, str], threshold: float,
               embedding: Any, exact: set[str], distinct: set[str],
               kinds: set[str]) -> tuple[list[Candidate], list[str]]:
    """The best passages above ``threshold`` that ground every term, and the terms none of them grounds."""
    best = sorted((c for c in candidates if c.score >= threshold), key=lambda c: c.ranked, reverse=True)
    best = best[:GROUNDING_POOL]
    texts = [f"{c.passage.text} {c.passage.context} {headings[c.source]}" for c in best]
    found = grounded(terms, texts, embedding, exact, distinct, kinds)
    keep = [c for c, g in zip(best, found, strict=True) if g >= set(terms)]
    seen = set().union(*found) if found else set()
    return keep, [t for t in terms if t not in seen] or list(terms)


def _with_heading(candidate: Candidate, expected: Expectation) -> Candidate:
    """The candidate, showing its heading when only the heading holds the answer's value."""
    passage = candidate.passage
    if measured(expected, passage.text) or not passage.context:
        return candidate
    return dataclasses.replace(candidate, heading=passage.context)


def score_passages(question: str, sources: list[NumberedSource], embedding: Any,
                   vocabulary: Vocabulary | None = None) -> list[Candidate]:
    """Every distinct passage of ``sources`` with its similarity to ``question``, in no particular order."""
    headers = table_headers(sources)
    found: list[tuple[NumberedSource, Passage]] = []
    for source in sources:
        meta = source.hit.metadata
        header = headers.get(str(meta.get("source", "")))
        heading = str(meta.get("heading_path") or "")
        found += [(source, p) for p in split_passages(source.text, heading=heading, header=header)]
    found = distinct(found)
    if not found:
        return []
    carried = codes_carried(identifiers(question), [f"{p.text} {p.context} {s.hit.metadata.get('heading_path') or ''}"
                                                    for s, p in found])
    wanted = asked(question)
    held = [(literals_held(wanted, text := f"{p.text} {p.context}") | kinds_held(wanted.literals, text))
            - sides_crossed(question, p.text) for _, p in found]
    tells = telling(held)
    question_vec = embedding.embed_query(question)
    # One batch for all passages: the model call is most of this function's time.
    vectors = embedding.embed_documents([_scoring_text(p) for _, p in found])
    weights = _term_weights(question, vocabulary)
    total = sum(weights.values())
    timed = (expected := expectation(question)) is not None and expected.kind in TIMED_KINDS
    out = []
    for (source, passage), vector, has_code, values in zip(found, vectors, carried, held, strict=False):
        score = cosine(question_vec, vector)
        shows = (ATTRIBUTE_BONUS * attribute_share(wanted, f"{passage.text} {passage.context}")
                 + (LITERAL_BONUS if values & tells else 0.0))
        ranked = score - RANK_DECAY * (source.index - 1) + (IDENTIFIER_BONUS if has_code else 0.0) + shows
        says = 0.0
        if total:
            said = stems(f"{passage.text} {passage.context} {source.hit.metadata.get('heading_path') or ''}")
            says = sum(w for t, w in weights.items() if _says(t, said)) / total
            ranked += TERMS_BONUS * says
        out.append(Candidate(source.index, passage, score, ranked, tuple(vector), has_code, says=says, shows=shows,
                             label=row_label(passage.text), literal=bool(identifying(values & tells, question, timed))))
    return out


def _term_weights(question: str, vocabulary: Vocabulary | None) -> dict[str, float]:
    """The question's salient words, each weighed by its rarity in the collection (1.0 each when unknown)."""
    rarity = getattr(vocabulary, "rarity", None)
    out = {}
    for term in salient_terms(question):
        weight = rarity(term) if rarity is not None else None
        out[term] = max(float(weight), 0.0) if weight is not None else 1.0
    return out


def _says(term: str, said: set[str]) -> bool:
    """A word in the passage in some form; a hyphenated one by any of its parts ("late-cancellation": cancelled),
    except the part naming a dimension, not its value ("medium-sized" is said by "medium", not by "size")."""
    return stated(term, said) or any(stated(p, said) for p in term.split("-") if len(p) > 3 and p not in _DIMENSIONS)


# The second halves of compound adjectives that name what is measured, the first half its value: "medium-sized",
# "Tudor-style", "heart-shaped", "cream-coloured".  Every row of a table under "Plot size" says "size".
_DIMENSIONS = frozenset("sized size style styled type shaped coloured colored based like".split())


def select(candidates: list[Candidate], max_sentences: int, threshold: float) -> list[Candidate]:
    """The best passages: at most ``max_sentences``, none below ``threshold`` or far below the best, no near-duplicates."""
    eligible = sorted((c for c in candidates if c.score >= threshold), key=lambda c: c.ranked, reverse=True)
    if any(c.has_code for c in eligible):
        # Asked about E-17, a passage about error codes in general is not an answer.
        eligible = [c for c in eligible if c.has_code]
    chosen: list[Candidate] = []
    for cand in eligible:
        if len(chosen) == max_sentences:
            break
        if (cand.ranked < eligible[0].ranked - KEEP_WITHIN
                and cand.ranked - cand.shows < eligible[0].ranked - eligible[0].shows - KEEP_WITHIN):
            continue  # near the best by evidence or by the embedding: evidence adds, it does not drop neighbours
        twin = next((i for i, c in enumerate(chosen) if cosine(cand.vector, c.vector) >= NEAR_DUPLICATE), None)
        if twin is not None:
            # Two rows alike but for one word ("a half crate" / "a full crate"): the one stating more of what was
            # asked, then the one of the two things the other qualifies ("Adult", not "Young adult"), is the answer.
            if (cand.shows, cand.says) > (chosen[twin].shows, chosen[twin].says) or (cand.shows, cand.says) == (
                    chosen[twin].shows, chosen[twin].says) and cand.label and cand.label < chosen[twin].label:
                chosen[twin] = cand
            continue
        chosen.append(cand)
    return chosen


def _scoring_text(passage: Passage) -> str:
    # A sentence often leaves its subject to the heading above it ("It runs
    # between 10 and 30 °C" under "Can the pump stay outside?"); the heading goes in.
    if passage.context and passage.context.lower() not in passage.text.lower():
        return f"{passage.context}: {passage.text}"
    return passage.text
