"""Checks of the passages chosen to quote: whether they say what was asked, or something beside it.

Once the passages to quote are chosen, each check below reads them against the question
and objects when they are about another thing than the one asked for: a yes/no question's
subject they never mention, a sibling ("lunch" quoted for "dinner"), another count ("two-berth"
for "four-berth"), another organisation's file, the other end of a scale, another period of a
rate or kind of day, another age band ("12 and over" quoted to an 11-year-old), another kind named
by a noun ("banana smoothie" for a mango one), a kind the quoted file never names ("Skis" for
cross-country skis).  Each objection is named by its :class:`.decision.Evidence` field, so the
decision weighs it (or, for the decisive ones, never overrules it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from .ages import other_age, other_age_text
from .answerable import (
    existence_unmentioned,
    key_terms,
    kind_unmentioned,
    predicate_unmentioned,
    role_unmentioned,
    unmentioned,
)
from .context import NumberedSource, file_words
from .counts import other_count, other_measure, other_occupancy, other_ordinal
from .days import other_day, other_day_text
from .elsewhere import elsewhere_text, files_mention, named_elsewhere
from .ends import other_end_only, other_end_text, other_side
from .evidence import Vocabulary, refusal_text, salient_terms, subject_words
from .expectations import is_yes_no
from .extraction import Extraction
from .labels import other_instance
from .lexicon import lexicon
from .people import names_no_one
from .periods import other_period, other_period_text
from .siblings import (
    about_instead_text,
    other_modifier,
    quoted_sibling,
    unstated_head,
    unstated_modifier,
    unstated_text,
)
from .text import content_words, stated, stem, words
from .unnamed import unnamed_things

if TYPE_CHECKING:
    from ..stages import Embedder


def objections(question: str, quoted: Sequence[str], quoted_from: Sequence[NumberedSource], absent: Sequence[str],
               vocabulary: Vocabulary | None, embedding: Embedder) -> Iterator[tuple[str, Extraction]]:
    """Each check that objects to quoting ``quoted`` (texts with their headings, from ``quoted_from``), as the
    name of its evidence field and its refusal; ``absent`` are the question's words no chunk holds."""
    if not quoted:
        return
    if is_yes_no(question):
        # The subject of the whole collection, or of a quoted file by its name, may go unsaid in a passage about it.
        files = {w for source in quoted_from for w in words(file_words(source))}
        implicit = subject_words(question, vocabulary) | files
        if unnamed := unnamed_things(question, list(absent), list(quoted), embedding):
            # "Do you sell X?" when nothing names X: the documents say neither yes nor no.
            yield "yes_no_unnamed", Extraction.refused(refusal_text(unnamed, question), unnamed)
        if missing := unmentioned(question, list(quoted), embedding, implicit):
            named = ", ".join(f"'{t}'" for t in missing)
            yield "yes_no_unmentioned", Extraction.refused(
                f"The documents do not say: the passages closest to this question never mention {named}.", missing)
        elif missing := (existence_unmentioned(question, list(quoted), embedding)
                         or predicate_unmentioned(question, list(quoted), embedding, implicit)):
            named = ", ".join(f"'{t}'" for t in missing)
            yield "asked_unnamed", Extraction.refused(
                f"The documents do not say: the passages closest to this question never mention {named}.", missing)
    elif unnamed := role_unmentioned(question, list(quoted), embedding) or kind_unmentioned(question, list(quoted),
                                                                                            embedding):
        # "Who is the treasurer?" over the society's address: no passage names the role, so none names its holder.
        yield "asked_unnamed", Extraction.refused(
            f"The documents do not say: the passages closest to this question never mention '{unnamed[0]}'.", unnamed)
    elif names_no_one(question, quoted):
        # "Who keeps the keys?" over the boathouse's season: a passage naming no one does not say who (an act asked;
        # a role, "who is the …", is the branch above).
        yield "asked_unnamed", Extraction.refused(
            "The documents do not say: the closest passages name no one who does what is asked.", [])
    named_files = [f"{q} {file_words(source)}" for q, source in zip(quoted, quoted_from, strict=True)]
    mentioned = files_mention(quoted_from, vocabulary) if vocabulary is not None else None
    if pair := quoted_sibling(question, named_files, embedding, mentioned):
        yield "sibling_quoted", Extraction.refused(about_instead_text(*pair), [pair[0]])
    if mentioned is not None and (kind := other_modifier(question, quoted, mentioned)):
        # A mango smoothie quoted from the rows of the banana and kiwi ones.
        yield "sibling_quoted", Extraction.refused(about_instead_text(*kind), [kind[0]])
    if mentioned is not None and (kind := unstated_head(question, quoted, mentioned)):
        # "A keg of porter" quoted from the pale ale keg's row: a sibling the quotes leave unnamed.
        yield "sibling_quoted", Extraction.refused(unstated_text(*kind), [kind[0]])
    if kind := unstated_modifier(question, quoted, mentioned):
        # "Cross-country skis" quoted from the row "Skis": the thing in general, or another kind left unnamed.
        yield "modifier_unstated", Extraction.refused(unstated_text(*kind), [kind[0]])
    if aged := other_age(question, quoted):
        # The "12 and over" row quoted to an 11-year-old: the row of another age band, as a sibling's.
        yield "sibling_quoted", Extraction.refused(other_age_text(*aged), [aged[0]])
    if counted := (other_count(question, quoted) or other_measure(question, quoted) or other_occupancy(question, quoted)
                   or other_ordinal(question, quoted)):
        # A four-berth cabin quoted from the rows of the two-berth and six-berth ones; a 30 cm album from the 20 cm one's.
        yield "other_count", Extraction.refused(about_instead_text(*counted), [counted[0]])
    if instance := other_instance(question, named_files):
        # "Term 4" quoted from the notes of term 3: another instance of one series, as another count is.
        yield "other_count", Extraction.refused(about_instead_text(*instance), [instance[0]])
    if elsewhere := named_elsewhere(question, list(quoted), list(quoted_from), vocabulary):
        # "How late does X stay open?" quoted from another organisation's file.
        yield "named_elsewhere", Extraction.refused(elsewhere_text(elsewhere), elsewhere)
    if ended := other_end_only(question, quoted):
        # "An upper age limit?" over "aged 10 or over": a minimum says nothing of a maximum.
        yield "other_end", Extraction.refused(other_end_text(*ended), [ended[0]])
    if side := other_side(question, quoted):
        # "A van over 3.5 tonnes" quoted from the row "Van up to 3.5 tonnes": the other side of one threshold.
        yield "other_end", Extraction.refused(about_instead_text(*side), [side[0]])
    if period := other_period(question, quoted):
        # "The yearly subscription" quoted from the monthly plan's row.
        yield "other_period", Extraction.refused(other_period_text(*period), [period[0]])
    elif day := other_day(question, quoted):
        # "At the weekend" quoted from the weekday row: a time or a price for another kind of day.
        yield "other_period", Extraction.refused(other_day_text(*day), [day[0]])


def unquoted_weight(question: str, quoted: Sequence[str], embedding: Embedder | None) -> float:
    """How far the heaviest salient word of ``question`` that the ``quoted`` texts never state moves its embedding.

    A word the collection uses elsewhere passes the checks of absent words, yet a quote that leaves
    out the word picking one row or one kind ("the *yearly* pass", "a *student*'s fee") is often about
    another: the heavier the word left out, the less the quote answers.  A word is stated in some form
    (its family, a unit's abbreviation) or by a word the lexicon says stands for it; 0 when all are.
    """
    if embedding is None or not quoted:
        return 0.0
    pool = set().union(*map(content_words, quoted))
    said = {stem(w) for w in pool}
    terms = [t for t in salient_terms(question) if not stated(t, said)
             and not any(lexicon().stands_for(t, w) for w in pool)]
    return max((weight for _, weight in key_terms(question, terms, embedding, floor=0.0)), default=0.0)

