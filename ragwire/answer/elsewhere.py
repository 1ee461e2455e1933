"""A name the question gives that the quoted files never mention: the quotes are about another place or business.

A collection of many small organisations' documents answers "what does a lesson at X cost"
or "how late does Y stay open" from the file of whichever organisation says most about lessons
or opening hours.  When the question names one (a business, a place, a club) that the
collection mentions somewhere but no quoted file mentions at all, the quotes answer for
another: one club's wind limit is not another's, a hall's hire price is not the
town's.  The absent-term checks of :mod:`.evidence` pass such a name, since some chunk holds it.

A name is a run of words the question writes capitalised (:func:`.evidence.names`), not at
the start of a sentence and not a month, a weekday or another value on a scale (a price list
for "July" is no file about July).  A run is mentioned when any of its words is: documents
shorten names ("Oakmere" for "Oakmere Rowing Club") and file names carry them; of a name with words the
dictionary does not know, only those count (:func:`distinctive`).

Before any passage is chosen, :func:`files_naming` keeps to the files that mention what the
question names, when some retrieved files do and others never do: "by card at the cobbler" is
answered from the cobbler's file, not from the payment rules of the pottery club ranked above
it.  What the question names is here also a word of a retrieved file's name ("cobbler" in
``marsh_lane_cobbler.md``): a file is named after what it is about.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .context import NumberedSource, file_words, source_path
from .evidence import Vocabulary, names, subject_words
from .lexicon import lexicon
from .siblings import ON_A_SCALE
from .text import STOPWORDS, stated, stems, words

_TOKEN = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


def name_runs(question: str) -> list[tuple[str, list[str]]]:
    """The names ``question`` writes, as written and as their words (lowercased): runs of capitalised words,
    less those opening a sentence."""
    runs: list[tuple[str, list[str]]] = []
    current: list[str] = []
    start = end = previous_end = 0
    for m in _TOKEN.finditer(question):
        word = re.sub(r"['’]s$", "", m.group(0).lower())  # "Marlin's" names Marlin
        between = question[previous_end:m.start()]
        previous_end = m.end()
        opens = not question[: m.start()].strip() or bool(re.search(r"[.?!:;]\s*$", question[: m.start()]))
        # A code ("E-3310", "3.2.0") is an identifier, checked as one elsewhere (asked.identifiers).
        is_name = (not opens and word not in STOPWORDS and word not in ON_A_SCALE
                   and not any(c.isdigit() for c in word) and word in names(question, [word]))
        if current and (not is_name or between.strip()):
            runs.append((question[start:end], current))
            current = []
        if is_name:
            if not current:
                start = m.start()
            current.append(word)
            end = m.end()
    if current:
        runs.append((question[start:end], current))
    return runs


def named_elsewhere(question: str, quoted: Sequence[str], files: Sequence[NumberedSource],
                    vocabulary: Vocabulary | None) -> list[str]:
    """The names of ``question`` (as written) that no ``quoted`` passage or quoted file (``files``) mentions, though
    some other chunk of the collection does; [] when the store cannot say."""
    if vocabulary is None or not files:
        return []
    said = stems(" ".join([*quoted, *(file_words(s) for s in files)]))
    sources = sorted({source_path(s) for s in files})
    found: list[str] = []
    for written, run in name_runs(question):
        run = distinctive(run)
        if any(stated(w, said) for w in run):
            continue
        counts = [vocabulary.documents_with(w) for w in run]
        if any(c is None for c in counts) or not any(counts):
            continue  # unknown to the store, or absent everywhere: the absent-term checks' case
        if all(vocabulary.documents_with(w, source) == 0 for w in run for source in sources):
            found.append(written)
    return found


def distinctive(run: list[str]) -> list[str]:
    """The words of a name that the dictionary does not know ("wairongoa" of "Te Wairongoa Thermal Pools"), when it has
    some: a file about another pool mentions "pools", not this one's own name.  A name of dictionary words only
    ("Harbour Rowing Club") is mentioned by any of its words, as documents shorten it."""
    own = [w for w in run if len(w) > 2 and w.isalpha() and not lexicon().knows(w)]
    return own or run


def elsewhere_text(found: Sequence[str]) -> str:
    """The refusal for names no quoted file mentions."""
    named = ", ".join(f"'{n}'" for n in found)
    return f"The documents do not say: the passages closest to this question come from files that never mention {named}."


def files_naming(question: str, sources: Sequence[NumberedSource], vocabulary: Vocabulary | None) -> set[str] | None:
    """The files of ``sources`` that mention each name of ``question`` some of them mention, when other retrieved
    files never do; None when every file does, none does, or the store cannot say.

    A name is a run of capitalised words, or a word written as one of a retrieved file's names' words (the
    word itself or its plural: "electricity" in a file's name is no name for "electric").  The subject of the
    whole collection (a maker's name in its manuals) is no name here: a passage about it may leave it unsaid.
    """
    if vocabulary is None:
        return None
    paths = _titles(sources)
    if len(paths) < 2:
        return None
    titled = set().union(*paths.values())
    everywhere = subject_words(question, vocabulary)
    named = [distinctive(run) for _, run in name_runs(question) if not everywhere & set(run)]
    named += [[w] for w in dict.fromkeys(words(question)) if w not in STOPWORDS and w.isalpha() and len(w) > 2
              and w not in everywhere and _in_title(w, titled) and not any(w in run for run in named)]

    keep = set(paths)
    for run in named:
        naming = {path for path in paths if any(_mentions(w, path, paths[path], vocabulary) for w in run)}
        if naming and naming != set(paths):
            keep &= naming
    return keep if keep and keep != set(paths) else None


def files_mention(files: Sequence[NumberedSource], vocabulary: Vocabulary) -> Callable[[str], bool]:
    """Whether a word is in some chunk of one of the ``files`` or in one's name (a word the store cannot count is
    taken as mentioned: nothing then objects on its account)."""
    paths = _titles(files)
    return lambda word: any(_mentions(word, path, title, vocabulary, unknown=True) for path, title in paths.items())


def _titles(sources: Sequence[NumberedSource]) -> dict[str, set[str]]:
    """Each file of ``sources`` (its path) with the words of its name."""
    return {source_path(s): set(words(file_words(s))) for s in sources}


def _mentions(word: str, path: str, title: set[str], vocabulary: Vocabulary, unknown: bool = False) -> bool:
    """Whether the file at ``path`` (its name's words ``title``) holds ``word``: in its name, as written or in
    the plural or singular, or in some chunk by the store's count (``unknown`` when the store cannot say)."""
    if _in_title(word, title):
        return True
    count = vocabulary.documents_with(word, path)
    return unknown if count is None else count > 0


def _in_title(word: str, title: set[str]) -> bool:
    """Whether ``word`` is one of a file name's words ``title`` as written, in the plural or in the singular."""
    return word in title or f"{word}s" in title or (word.endswith("s") and word[:-1] in title)
