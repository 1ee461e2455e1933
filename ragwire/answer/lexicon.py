"""Whether a document's word stands for a question's word: the same sense, a derivation, or a kind of it.

An embedding cannot tell a synonym from a sibling: a weekday is as near a weekend as a
warranty is to a guarantee, a dog as near a horse as a shop is to a supermarket.  Grounding a
question's key term by its nearest word therefore answers "may I bring my horse?"
with the passage about dogs.  WordNet records which words share a sense, derive from one
another or name a kind of one another, and which merely sit side by side under one parent.
The answerer asks it only about words it knows both of; an unknown word (a brand, a
compound like "drysuit") is left to the embedding as before.

The data is ``data/lexicon.tsv.gz``, derived from WordNet 3.0 by ``tools/build_lexicon.py``
(one-word lemmas, hypernyms, derivational and similar-to pointers, irregular forms; the
WordNet licence is in its header).
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

# How many hypernym steps apart a word may be from the other and still stand for it: a suitcase is
# baggage in one step, a supermarket a shop in three.  Four steps up, most nouns reach categories broad
# enough ("artifact", "organism") that nearly everything is a kind of them, so the walk stops there.
KIND_DEPTH = 4
# Two words are siblings when both are kinds of one thing this near: a cat and a dog (carnivores), a radish
# and a tomato (vegetables), Germany and Switzerland.  Three steps up, a price and a fee meet (both sums), too
# broad to say one was quoted for the other.
SIBLING_DEPTH = 2
# The endings English inflects with, and what each leaves of the word (WordNet's own morphology rules).
_ENDINGS = (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
            ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""),
            ("er", ""), ("est", ""), ("er", "e"), ("est", "e"))

# The two ends of a scale, each named by a superlative of its adjectives or by its own nouns: "the smallest
# group" is the minimum group, "the largest order" is not the minimum order.  WordNet links none of these
# across parts of speech (small and minimum share no pointer), so they are data here.
_LOW_END = frozenset("small low few short young early little least min minimum minimal narrow thin light cheap "
                     "slow near".split())
_HIGH_END = frozenset("large big high great many much long old late most max maximum maximal wide thick heavy "
                      "dear expensive fast far tall".split())
_EXTREME_NOUNS = frozenset("min minimum minimal least most max maximum maximal".split())


@dataclass(frozen=True)
class Lexicon:
    """Words, their senses, and each sense's hypernyms and related senses (see :func:`lexicon`)."""

    words: dict[str, tuple[int, ...]]
    hypernyms: tuple[tuple[int, ...], ...]
    related: tuple[tuple[int, ...], ...]
    irregular: dict[str, str]
    usual: dict[str, str]  # each word's usual part of speech: n, v, a (adjective) or r (adverb)

    def lemmas(self, word: str) -> set[str]:
        """The dictionary forms ``word`` may be an inflection of (``largest``: large; ``geese``: goose)."""
        word = word.lower()
        out = {word} if word in self.words else set()
        base = self.irregular.get(word, "")
        if base in self.words:
            out.add(base)
        for ending, rest in _ENDINGS:
            if word.endswith(ending) and (stem := word[: len(word) - len(ending)] + rest) in self.words:
                out.add(stem)
        return out

    def knows(self, word: str) -> bool:
        return bool(self.lemmas(word))

    def usual_part(self, word: str) -> str | None:
        """The part of speech ``word`` is mostly used as ("n", "v", "a", "r"), None when unknown.

        An inflection is read by its dictionary form ("comes": v, "passengers": n); a form
        the dictionary lists itself keeps its own ("written": a).
        """
        word = word.lower()
        if word in self.usual:
            return self.usual[word]
        parts = {self.usual[lemma] for lemma in self.lemmas(word)}
        # An ending two dictionary forms may take ("axes": axe, axis): a noun reading wins.
        return "n" if "n" in parts else min(parts, default=None)

    def stands_for(self, word: str, other: str, depth: int = KIND_DEPTH) -> bool | None:
        """Whether ``other`` may stand for ``word``: one form, one sense, a derivation, or a kind of it (either way,
        at most ``depth`` steps apart).

        None when the lexicon does not know one of them: it has nothing to say.
        """
        mine, theirs = self.lemmas(word), self.lemmas(other)
        ends = (_end(word, mine), _end(other, theirs))
        if None not in ends:
            return ends[0] == ends[1]  # the smallest is the minimum, the largest is not
        if not mine or not theirs:
            return None
        if mine & theirs:
            return True
        senses, others = self._senses(mine), self._senses(theirs)
        if senses & others:
            return True
        if any(r in others for s in senses for r in self.related[s]) or \
           any(r in senses for s in others for r in self.related[s]):
            return True
        return bool(self._kinds(senses, depth) & others or self._kinds(others, depth) & senses)

    def kind_of(self, word: str, other: str, depth: int = KIND_DEPTH) -> bool:
        """Whether some sense of ``word`` is a kind of ``other`` (or ``other`` itself), at most ``depth`` steps up: a
        coach and a warden are kinds of person; a group is not, though :meth:`stands_for` pairs them either way."""
        return bool(self._kinds(self._senses(self.lemmas(word)), depth) & self._senses(self.lemmas(other)))

    def end(self, word: str, comparative: bool = False) -> str | None:
        """Which end of a scale ``word`` names, "low" or "high": a superlative ("smallest") or an extreme's noun
        ("maximum"); with ``comparative``, also a comparative ("longer", "fewer"), as in "no longer than"."""
        word = word.lower()
        if comparative and word.endswith("er") or comparative and word in ("more", "less"):
            forms = self.lemmas(word) | {word[:-2], word[:-3]} | ({"much"} if word == "more" else set())
            if word == "less" or forms & _LOW_END:
                return "low"
            return "high" if forms & _HIGH_END else None
        return _end(word, self.lemmas(word))

    def siblings(self, word: str, other: str) -> bool:
        """Whether ``other`` is a sibling of ``word``: one does not stand for the other, but both are kinds of one
        thing within :data:`SIBLING_DEPTH` steps (a cat and a dog, pine and birch, lunch and dinner)."""
        if self.stands_for(word, other) is not False:
            return False
        mine, theirs = self._senses(self.lemmas(word)), self._senses(self.lemmas(other))
        return bool(self._kinds(mine, SIBLING_DEPTH) & self._kinds(theirs, SIBLING_DEPTH))

    def _senses(self, lemmas: set[str]) -> set[int]:
        """Every sense of the dictionary forms ``lemmas``."""
        return {s for w in lemmas for s in self.words[w]}

    def _kinds(self, senses: set[int], depth: int = KIND_DEPTH) -> set[int]:
        """``senses`` and everything they are a kind of, up to ``depth`` steps."""
        out, frontier = set(senses), set(senses)
        for _ in range(depth):
            frontier = {h for s in frontier for h in self.hypernyms[s]} - out
            out |= frontier
        return out


def _end(word: str, lemmas: set[str]) -> str | None:
    """Which end of a scale ``word`` names ("low" or "high"), when it is a superlative or an extreme's noun."""
    word = word.lower()
    if word not in _EXTREME_NOUNS and not word.endswith("est"):
        return None
    forms = (lemmas | {word}) if word.endswith("est") else {word}
    if forms & _LOW_END:
        return "low"
    return "high" if forms & _HIGH_END else None


def _ids(field: str) -> tuple[int, ...]:
    return tuple(int(i) for i in field.split(",")) if field else ()


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    """The packaged lexicon, read once per process (about a third of a second)."""
    raw = resources.files("ragwire.answer").joinpath("data", "lexicon.tsv.gz").read_bytes()
    words: dict[str, tuple[int, ...]] = {}
    hypernyms: list[tuple[int, ...]] = []
    related: list[tuple[int, ...]] = []
    irregular: dict[str, str] = {}
    usual: dict[str, str] = {}
    for line in gzip.decompress(raw).decode("utf-8").splitlines():
        kind, first, second, third = (line.split("\t") + ["", "", ""])[:4]
        if kind == "w":
            words[first] = _ids(second)
            usual[first] = third
        elif kind == "s":
            hypernyms.append(_ids(first))
            related.append(_ids(second))
        elif kind == "x":
            irregular[first] = second
    return Lexicon(words, tuple(hypernyms), tuple(related), irregular, usual)
