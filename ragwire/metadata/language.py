"""Guess a document's language from its most common words, with no model and no dependency.

Ten European languages are known by ~35 frequent function words each; a text is
given a language only when one of them clearly wins, so mixed, short or other-language
text (and source code) yields ``None`` rather than a wrong guess.
"""

from __future__ import annotations

import re
from collections import Counter

#: Only the start of a text is read: a language shows in a few paragraphs.
SAMPLE_CHARS = 5000
#: Fewer stopword hits than this is too little evidence.
MIN_HITS = 8
#: The winner's score must be this many times the runner-up's.
MIN_MARGIN = 1.5
#: Share of the words that must be stopwords: prose runs at 30–50 %, code and tables far lower.
MIN_DENSITY = 0.15

# Frequent, mostly distinctive function words.  Programming keywords ("if", "else",
# "return", "import") are left out of English so that source code is not read as prose.
_STOPWORDS: dict[str, str] = {
    "en": "the of and to in is that it was for on are with be at have this by not but which were"
    " been has would there will they their an you we what he she his its",
    "de": "der die das und ist nicht ein eine zu den von mit sich des auf für im dem auch es als wird"
    " werden bei nach oder wie aus sind wir ich einer kann hat noch über zum zur dass",
    "fr": "le la les de des du et est un une en que qui dans pour pas sur au aux ce cette il elle ne se"
    " par plus avec sont ont nous vous leur mais été être",
    "es": "el la los las de del y en que es un una por con para se no su sus al lo como más pero este"
    " esta ha son está también muy entre sobre cuando porque hay fue",
    "it": "il lo la gli le di del della dei che è e un una per non in con su da al alla sono si come"
    " anche più ma questo questa nel nella degli delle ha essere stato",
    "nl": "de het een en van in is dat op te voor met zijn niet aan er ook als bij door om naar maar"
    " wordt worden dit die deze nog kan uit hebben heeft werd zij wij ik",
    "pt": "o a os as de do da dos das e em no na nos nas um uma que para com não por se ao mais como"
    " mas foi ser são está também pelo pela seu sua muito já isso",
    "sv": "och att det som en är på för med av den till inte har de jag om ett var vi kan så men eller"
    " från vid sig hade när mycket också detta skulle efter än",
    "da": "og at det som en er på for med af den til ikke har de jeg om et var vi kan så men eller fra"
    " ved sig havde når meget også dette skulle efter end være blev",
    "pl": "i w z na się nie do to że jest o jak po co od za ale przez dla tak są jego jej oraz który"
    " która które może być był była czy tym już tylko tego przy",
}
LANGUAGES: tuple[str, ...] = tuple(_STOPWORDS)

_WORDS: dict[str, frozenset[str]] = {lang: frozenset(words.split()) for lang, words in _STOPWORDS.items()}
# A word shared by k languages ("de", "en", "la") is weak evidence: it counts 1/k to each.
_WEIGHT: dict[str, float] = {
    word: 1 / sum(word in words for words in _WORDS.values()) for words in _WORDS.values() for word in words
}
_WORD = re.compile(r"[^\W\d_]+")


def detect_language(text: str) -> str | None:
    """The ISO 639-1 code of the text's language, or ``None`` when it is not clear.

    Reads the first :data:`SAMPLE_CHARS` characters and counts stopwords of each
    language in :data:`LANGUAGES`.

    Args:
        text: Any text; empty is fine.

    Returns:
        ``"en"``, ``"de"``, ``"fr"``, ``"es"``, ``"it"``, ``"nl"``, ``"pt"``, ``"sv"``, ``"da"``
        or ``"pl"``; ``None`` for too little text, a mix, source code or another language.
    """
    words = _WORD.findall(text[:SAMPLE_CHARS].lower())
    if not words:
        return None
    counts = Counter(word for word in words if word in _WEIGHT)
    if sum(counts.values()) < MIN_DENSITY * len(words):
        return None
    hits = {lang: sum(n for word, n in counts.items() if word in vocab) for lang, vocab in _WORDS.items()}
    scores = {
        lang: sum(n * _WEIGHT[word] for word, n in counts.items() if word in vocab) for lang, vocab in _WORDS.items()
    }
    ranked = sorted(scores, key=scores.__getitem__, reverse=True)
    best, runner_up = ranked[0], ranked[1]
    if hits[best] < MIN_HITS or scores[best] < MIN_MARGIN * scores[runner_up]:
        return None
    return best
