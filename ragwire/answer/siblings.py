"""A quote about a sibling of what was asked: the price of dinner at an inn answered with the lunch's.

A question's key word that the collection uses somewhere passes the checks of absent words
(:mod:`.evidence`), and the embedding puts the passage about its sibling close (the lunch and
the dinner share every other word of the question).  When the quotes never state the word,
nothing in them stands for it (the lexicon's same sense, derivation or kind), and one of
their words is its sibling (both kinds of one thing, :meth:`.lexicon.Lexicon.siblings`),
the quotes answer for the sibling, not for what was asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .answerable import KEY_TERM_WEIGHT, key_terms
from .asked import DAYS, ORDINALS, in_cyclic_range
from .evidence import salient_terms
from .instances import SPELLED_NUMBERS
from .lexicon import lexicon
from .text import content_words, cosines, stated, stem

if TYPE_CHECKING:
    from ..stages import Embedder

# How near (single-word cosine, all-MiniLM-L6-v2) a sibling must be to count: cat~dog 0.66, pine~birch 0.70,
# lunch~dinner 0.64; the kin a rare WordNet sense makes (day~year 0.44, wine~tasting 0.52) stay below.
SIBLING_NEAR = 0.55
# A word lighter than a key term counts too: the word that picks one row of a price list ("a trim for a *rabbit*",
# "tiles of *slate*") is a qualifier, and the row of its sibling shares every other word.  Except a value on a
# scale (a month, a weekday, a part of the day, a season, a number): a range written with its siblings covers
# it ("May–September" holds July, "Monday to Friday" a Wednesday), so a sibling there is no other row.
ON_A_SCALE = frozenset("""january february march april may june july august september october november december
    weekday weekdays weekend weekends
    morning mornings afternoon afternoons evening evenings night nights midday noon midnight daytime
    spring summer autumn fall winter second minute hour day week month year seconds minutes hours days weeks
    months years""".split()) | DAYS | ORDINALS | frozenset(SPELLED_NUMBERS.split("|"))

# Sizes of one thing, as price lists and menus name them: a medium trunk is not the small one beside it, and an
# extra-large unit not the large one.  Words only: a lone "M" or "L" is too many other things.
SIZES = frozenset("""extra-small small medium regular large extra-large x-large xx-large mini midi maxi jumbo
    king-size family-size""".split())


def quoted_sibling(question: str, quoted: Sequence[str], embedding: Embedder | None) -> tuple[str, str] | None:
    """A key word of ``question`` the ``quoted`` texts leave out, and their word that is its sibling; or None."""
    pool = sorted({w for text in quoted for w in content_words(text)})
    said = {stem(w) for w in pool}
    # A month or weekday inside a range the quotes give is stated by it ("1 October to 30 April" holds January).
    terms = [t for t in salient_terms(question) if not stated(t, said) and (lexicon().knows(t) or t in SIZES)
             and not any(in_cyclic_range(t, text) for text in quoted)]
    if not terms or not pool or embedding is None:
        return None
    key = [t for t, weight in key_terms(question, terms, embedding, floor=0.0)
           if (weight >= KEY_TERM_WEIGHT or t not in ON_A_SCALE) and not any(lexicon().stands_for(t, w) for w in pool)]
    if not key:
        return None
    for term in key:
        # Sizes are siblings by the scale they are on, whatever the embedding makes of them.
        if term in SIZES and (size := next((w for w in pool if w in SIZES and w != term), None)):
            return term, size
    vectors = embedding.embed_documents(key + pool)
    for term, vector in zip(key, vectors[: len(key)], strict=True):
        # A sibling the embedding also puts near: a rare sense makes words of other meanings kin in WordNet
        # (an error and a bent, a day and a year, a number and a key: 0.42 to 0.52 over the development sets).
        part = lexicon().usual_part(term)
        near = [w for w, sim in zip(pool, cosines(vectors[len(key):], vector), strict=True)
                if sim >= SIBLING_NEAR and lexicon().usual_part(w) == part]
        if sibling := next((w for w in near if lexicon().siblings(term, w)), None):
            return term, sibling
    return None


def about_instead_text(asked: str, quoted: str) -> str:
    """The refusal when the quotes are about ``quoted`` (a sibling, another row's count), not the ``asked`` thing."""
    return f"The documents do not say: the closest passages are about '{quoted}', not '{asked}'."
