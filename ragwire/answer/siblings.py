"""A quote about a sibling of what was asked: the price of dinner at an inn answered with the lunch's.

A question's key word that the collection uses somewhere passes the checks of absent words
(:mod:`.evidence`), and the embedding puts the passage about its sibling close (the lunch and
the dinner share every other word of the question).  When the quotes never state the word,
nothing in them stands for it (the lexicon's same sense, derivation or kind), and one of
their words is its sibling (both kinds of one thing, :meth:`.lexicon.Lexicon.siblings`),
the quotes answer for the sibling, not for what was asked.

The same holds for a kind named by a noun before the thing (:func:`other_modifier`): a price
list of banana and kiwi smoothies has no row for a mango smoothie.  And a kind the quotes never
name at all (:func:`unstated_modifier`): a "Skis" row is no price of cross-country skis when the
file never says "cross-country".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

from .answerable import KEY_TERM_WEIGHT, key_terms
from .asked import DAYS, ORDINALS, in_cyclic_range
from .evidence import names, salient_terms
from .expectations import expectation, type_word
from .focus import PAYER_GROUPS, PAYERS
from .instances import SPELLED_NUMBERS
from .lexicon import lexicon
from .text import STOPWORDS, content_words, cosines, stated, stem, words

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

# Scales whose words are siblings whatever the embedding makes of them: the rows of a price list or a menu.
# Sizes of one thing: a medium trunk is not the small one beside it, an extra-large unit not the large one (words
# only: a lone "M" or "L" is too many other things).
SIZES = frozenset("""extra-small small medium regular standard large extra-large x-large xx-large mini midi maxi jumbo
    king-size family-size""".split())
SCALES = (SIZES, PAYERS)


def quoted_sibling(question: str, quoted: Sequence[str], embedding: Embedder | None,
                   mentioned: Callable[[str], bool] | None = None) -> tuple[str, str] | None:
    """A key word of ``question`` the ``quoted`` texts leave out, and their word that is its sibling; or None.

    ``mentioned`` says whether some chunk of the quoted files holds a word (None: the store cannot say).  A word
    the quoted files use themselves has no sibling by the lexicon alone: a file that speaks of its "gallery" and
    quotes its "museum" names one thing two ways, or a part of it, or what it holds; a price list with a wetsuit
    row and no word of a drysuit answers for the wetsuit.  The scales' rows (sizes,
    payers) and compounds keep their own evidence, used or not.
    """
    pool = sorted({w for text in quoted for w in content_words(text)})
    tokens = [w for text in quoted for w in [*words(text), ""]]  # "" keeps two quotes' words apart
    said = {stem(w) for w in tokens if w}  # "non-members" too, which content_words leaves out
    unstated = [t for t in salient_terms(question) if not stated(t, said)]
    for term in unstated:
        if other := other_compound(term, tokens):
            return term, other
    # A month or weekday inside a range the quotes give is stated by it ("1 October to 30 April" holds January).
    terms = [t for t in unstated if (lexicon().knows(t) or _scale(t))
             and not any(in_cyclic_range(t, text) for text in quoted)]
    if not terms or not pool or embedding is None:
        return None
    key = [t for t, weight in key_terms(question, terms, embedding, floor=0.0)
           if (weight >= KEY_TERM_WEIGHT or t not in ON_A_SCALE)
           # Two words of one scale are siblings even where a rare sense joins them (a junior is a student).
           and not any(_one_row(t, w) or (lexicon().stands_for(t, w) and not _same_scale(t, w)) for w in pool)]
    if not key:
        return None
    for term in key:
        # Sizes and payers are siblings by the scale they are on, whatever the embedding makes of them.
        if (scale := _scale(term)) and (other := next((w for w in pool if w in scale and not _one_row(term, w)),
                                                      None)):
            return term, other
    # An action's sibling is another action ("pay" and "hire"), named beside it as often as not; a word the quoted
    # files use is no lexicon sibling's (see above).  Neither is embedded.
    kin = [t for t in key if lexicon().usual_part(t) != "v" and not (mentioned is not None and mentioned(t))]
    if not kin:
        return None
    vectors = embedding.embed_documents(kin + pool)
    for term, vector in zip(kin, vectors[: len(kin)], strict=True):
        # A sibling the embedding also puts near: a rare sense makes words of other meanings kin in WordNet
        # (an error and a bent, a day and a year, a number and a key: 0.42 to 0.52 over the development sets).
        part = lexicon().usual_part(term)
        near = [w for w, sim in zip(pool, cosines(vectors[len(kin):], vector), strict=True)
                if sim >= SIBLING_NEAR and lexicon().usual_part(w) == part]
        # A value on a scale ("June", "months") gives what a word of time asks ("the dates", "the season"): no sibling.
        if sibling := next((w for w in near if lexicon().siblings(term, w)
                            and (w not in ON_A_SCALE or term in ON_A_SCALE)), None):
            return term, sibling
    return None


def other_compound(term: str, tokens: Sequence[str]) -> str | None:
    """A compound of the quotes' ``tokens`` with the head of the hyphenated ``term`` and another modifier, or None.

    "hand-knitted" over "machine-knitted", "dry-aged" over "wet aged", "non-dairy" over "dairy": one
    thing's kinds, named by the modifier; a quote naming only the other kind is about that one.  None
    when the quotes name the term itself, in one word, two or with its hyphen.
    """
    if "-" not in term:
        return _other_closed(term, tokens)
    first, _, head = term.partition("-")
    if not (first.isalpha() and head.isalpha() and len(first) > 1 and len(head) > 1):
        return None
    head_stem = stem(head)
    pairs = list(zip(tokens, tokens[1:], strict=False))
    if term in tokens or first + head in tokens or any(a == first and stem(b) == head_stem for a, b in pairs):
        return None
    if first == "non":
        # "non-dairy" is the other kind of what "dairy" names alone; a payer is not: price lists name the
        # non-members "guests" or "visitors" beside the members' row.
        return head if head not in PAYERS and any(stem(t) == head_stem for t in tokens) else None
    for token in tokens:
        modifier, _, rest = token.partition("-")
        if rest and modifier.isalpha() and modifier not in (first, "non") and stem(rest) == head_stem:
            return token
    for a, b in pairs:
        if stem(b) == head_stem and a.isalpha() and a != first and a not in STOPWORDS and lexicon().usual_part(a) == "a":
            return f"{a} {b}"
    return None


def _other_closed(term: str, tokens: Sequence[str]) -> str | None:
    """A closed compound of the quotes with the head of the closed compound ``term`` and another modifier
    ("wetsuit" for "drysuit", "daypack" for "backpack"), when the lexicon does not know ``term`` as one word."""
    if not term.isalpha() or lexicon().knows(term) or term in tokens:
        return None
    splits = [(term[:i], term[i:]) for i in range(2, len(term) - 2)
              if lexicon().knows(term[:i]) and lexicon().knows(term[i:])]
    for first, head in sorted(splits, key=lambda split: len(split[1]), reverse=True):
        for token in tokens:
            modifier = token[:-len(head)]
            if token.endswith(head) and token.isalpha() and len(modifier) > 1 and modifier != first \
                    and lexicon().knows(modifier):
                return token
    return None


def _scale(term: str) -> frozenset[str] | None:
    return next((scale for scale in SCALES if term in scale), None)


def _same_scale(a: str, b: str) -> bool:
    return (scale := _scale(a)) is not None and b in scale


def _one_row(a: str, b: str) -> bool:
    """Whether two words of a scale name one row: one word's forms, or one group of payers ("kids", "children")."""
    return stem(a) == stem(b) or any(a in group and b in group for group in PAYER_GROUPS)


def about_instead_text(asked: str, quoted: str) -> str:
    """The refusal when the quotes are about ``quoted`` (a sibling, another row's count), not the ``asked`` thing."""
    return f"The documents do not say: the closest passages are about '{quoted}', not '{asked}'."


def other_modifier(question: str, quoted: Sequence[str], mentioned: Callable[[str], bool]) -> tuple[str, str] | None:
    """``(the asked kind, a quoted kind)`` when ``question`` names a kind of a thing by a noun before it ("a *mango*
    smoothie", "the *flower* stall") and the quotes name only other kinds of that thing ("banana smoothie",
    "fish stall"); or None.

    Only when the quoted files never use the question's noun at all (``mentioned`` says whether some quoted file
    does): a list that names its rows by kind and has no row of the asked kind answers for another.  Not a kind:
    a value on a scale (a month, "weekend", a size: the checks of ranges and scales read those), an
    owner ("the shop's minimum order"; "sheep's wool" is a kind), a verb ("to post wine bottles", "which key
    opens the menu"), and a kind of the answer type asked for ("a parcel delivery", "the entry fee"), which
    documents name in many ways.
    """
    said = {stem(w) for text in quoted for w in words(text)}
    # Two words with nothing but a space between them: "Dog bath" is one name, "Service: Dog" a column and a value.
    pairs = [(re.sub(r"['’]s$", "", a.group().lower()), b.group().lower())
             for text in quoted for a, b in pairwise(_TOKEN.finditer(text)) if text[a.end():b.start()].isspace()]
    salient = set(salient_terms(question))
    raw = _TOKEN.findall(question)
    for i, (noun, head) in enumerate(zip(raw, raw[1:], strict=False)):
        before = raw[i - 1].lower() if i else ""
        after = raw[i + 2].lower() if i + 2 < len(raw) else ""
        # A possessive names a kind before a noun ("sheep's wool", "a driver's licence"), else an owner ("the
        # shop's minimum order"); a head's own possessive changes nothing ("the flower stall's rent").
        noun, head = noun.lower(), _OWNS.sub("", head.lower())
        if _OWNS.search(noun) and lexicon().usual_part(head) == "n":
            noun = _OWNS.sub("", noun)
        # A noun, or a word the lexicon does not know written in lower case ("a bothy hut"), not a name.
        part = lexicon().usual_part(noun)
        # A hyphenated modifier names a kind as one word does ("a twin-hull canoe"); a payer names one too where the
        # list names its rows otherwise ("adult lessons" beside "Group lessons"; beside "Child lessons" the payers'
        # scale reads it, see quoted_sibling), a size is read by its scale.
        if (not noun.replace("-", "").isalpha() or not head.isalpha() or noun not in salient or noun in ON_A_SCALE
                or noun in SIZES or not (part == "n" or (part is None and raw[i].islower())) or head in STOPWORDS
                or head in ON_A_SCALE or type_word(head) or before in _VERB_OPENERS or after in _DETERMINERS):
            continue
        if stated(noun, said) or mentioned(noun):
            continue
        head_stem = stem(head)
        other = next((a for a, b in pairs if stem(b) == head_stem and a != noun and a not in STOPWORDS
                      and not any(c.isdigit() for c in a) and not lexicon().stands_for(noun, a)
                      and not (noun in PAYERS and a in PAYERS)), None)  # payer against payer: the payers' scale
        if other:
            return f"{noun} {head}", f"{other} {head}"
    return None


# Words as written: a possessive ("shop's", "members'") keeps its apostrophe, so it is no noun of a kind.
_TOKEN = re.compile(r"[^\W_]+(?:['’-][^\W_]*)*")
_OWNS = re.compile(r"['’]s?$")
# Before a verb, not a noun: "to post wine bottles", "can rent bikes" ("does sheep's wool cost" has its subject next).
_VERB_OPENERS = frozenset("to can could may might must shall should will would".split())
_DETERMINERS = frozenset("the a an my your our his her its their this that these those".split())


def unstated_modifier(question: str, quoted: Sequence[str],
                      mentioned: Callable[[str], bool] | None = None) -> tuple[str, str] | None:
    """``(the asked kind, the thing)`` when the focus of a typed question names a kind of its thing by a word before
    it ("*cross-country* skis", "a *double* plot") and the quotes state the thing but never that word, in any form
    or by a word the lexicon says stands for it; or None.

    The quotes then give the thing in general, or another kind of it left unnamed: a price list's "Skis" row is
    not the cross-country skis asked about.  Not a kind: a name, a verb, a value on a scale or a size (the checks
    of scales read those), a payer (the payers' scale), a word naming the answer type.  ``mentioned`` says whether
    some chunk of the quoted files holds a word (None: the store cannot say, and only the quotes count).
    """
    expected = expectation(question)
    if expected is None or not quoted:
        return None
    pool = {w for text in quoted for w in words(text)}
    said = {stem(w) for w in pool}
    asked = words(question)
    # A verb opening the focus ("to rent sea-touring kayaks") is the act, not a kind; after a determiner ("a double
    # plot") a word the lexicon mostly reads as a verb is a modifier all the same.
    acts = {b for a, b in pairwise(asked) if a in _VERB_OPENERS and lexicon().usual_part(b) == "v"}
    tokens = words(expected.focus)
    for i, head in enumerate(tokens):
        if head not in expected.heads or not stated(head, said):
            continue
        for j in range(i - 1, max(-1, i - 3), -1):
            word = tokens[j]
            if word in STOPWORDS or word in expected.heads:
                break
            if not word.replace("-", "").isalpha() or _no_kind(question, word) or word in acts:
                continue
            if stated(word, said) or any(lexicon().stands_for(word, w) for w in pool) or mentioned and mentioned(word):
                continue
            return " ".join(tokens[j:i + 1]), head
    return None


def unstated_text(kind: str, thing: str) -> str:
    """The refusal for a kind of ``thing`` the quotes never say (:func:`unstated_modifier`, :func:`unstated_head`)."""
    return f"The documents do not say: the closest passages give the {thing} but never say '{kind}'."


def _no_kind(question: str, word: str) -> bool:
    """Whether ``word`` of ``question`` is no kind of a thing: a name, a value on a scale or a size (the checks of
    scales read those), a payer (the payers' scale) or a word naming the answer type."""
    return (bool(names(question, [word])) or word in ON_A_SCALE or word in SIZES or word in PAYERS
            or type_word(word))


def unstated_head(question: str, quoted: Sequence[str], mentioned: Callable[[str], bool]) -> tuple[str, str] | None:
    """``(the head never stated, a head stated)`` when the focus of a typed question has two heads ("a keg of
    *porter*"), the quotes state one and never the other, and the quoted files (``mentioned``) never mention it; or None.

    The quotes then give another kind of the thing: a pale ale keg's row is no price of a keg of porter.  A word
    more general in the quotes ("beer") does not state it; one of its kinds ("smoked porter") does.
    """
    expected = expectation(question)
    if expected is None or not quoted:
        return None
    pool = {w for text in quoted for w in words(text)}
    said = {stem(w) for w in pool}
    # A payer, a size or a value on a scale is no thing ("entry for seniors"), nor an adverb ("instead").
    things = [h for h in expected.heads if h.isalpha() and not _no_kind(question, h) and lexicon().usual_part(h) != "r"]
    given = [h for h in things if stated(h, said)]
    for head in things:
        if not given or head in given:
            continue
        if not mentioned(head) and not any(lexicon().kind_of(w, head) for w in pool):
            return head, given[0]
    return None
