"""A yes/no question about a thing no document names: the documents say neither yes nor no.

"Does the shop sell X?" asks whether X exists there.  When no chunk of the collection names
X, the nearest passages talk about the shop's other goods, and quoting them answers another
question.  Such a word often weighs little in a long question (a qualifier, an object after
several other words), under the weights the absent-term checks of :mod:`.evidence` start from,
so this check asks about every absent word of a yes/no question that names a thing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .evidence import NOUN_OPENERS, grounded
from .lexicon import lexicon
from .text import content_words, words

if TYPE_CHECKING:
    from ..stages import Embedder


def unnamed_things(question: str, terms: Sequence[str], quoted: Sequence[str],
                   embedding: Embedder | None) -> list[str]:
    """Of a yes/no question's ``terms`` that no chunk of the collection holds, the things the ``quoted`` passages
    name in no words of their own.

    "Does the shop sell X?" asks whether a thing exists; documents that name X nowhere say
    neither yes nor no, whatever else they say about the shop.  A thing is a word the lexicon
    reads as a noun first, or one it does not know (a compound, a brand); a form in -ing or -ed only after a
    determiner or preposition ("the *parking*", not "cars *parking* outside").  The quotes name it
    by a word of its family, by a noun the lexicon says stands for it ("locks" for a padlock), or
    by a neighbour that stands out (see :data:`.evidence.DISTINCT`; words of one kind are about
    equally near).  A verb or an adjective the documents never use ("manage", "waterproof") is
    wording the quote may paraphrase, as before.
    """
    lex = lexicon()
    opened = _after_opener(question)
    wanted = [t for t in terms if lex.usual_part(t) in ("n", None) and (not t.endswith(("ing", "ed")) or t in opened)]
    if not wanted or not quoted or embedding is None:
        return []
    pool = sorted(set().union(*map(content_words, quoted)))
    nouns_ = [w for w in pool if lex.usual_part(w) == "n"]
    found = grounded(wanted, [" ".join(quoted)], embedding, distinct=set(wanted))[0]
    return [t for t in wanted if t not in found and not any(lex.stands_for(t, w) for w in nouns_)]


def _after_opener(question: str) -> set[str]:
    """The question's words right after a determiner or preposition ("the *building*", "by *parking*")."""
    tokens = words(question)
    return {t for before, t in zip(tokens, tokens[1:], strict=False) if before in NOUN_OPENERS}
