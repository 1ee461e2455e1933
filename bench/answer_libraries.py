"""Libraries for what the extractive answerer writes by hand: measured, not assumed (issue 33, build step 4).

Two jobs of ``ragwire/answer`` have well-kept libraries that could do them instead:

* **sentence segmentation** (``passages.split_sentences``): `pysbd`_, rule-based
  sentence boundary disambiguation;
* **recognising an amount of money** (``coverage.instance("amount of money", text)``:
  the currencies of ``instances.py`` as data, and a table column named for one): `price-parser`_ (a price and its currency in a string) and
  `quantulum3`_ (quantities with units, currencies among them).

(Stemming was measured when ``answer/text.py`` took Snowball's English stemmer,
``snowballstemmer``: 20/20 word families against 18/20 for the hand-written stripper.)

Measured on the development data only (``bench/answers_heldout.py``'s DEVELOPMENT
sets: their documents' text as the loaders read it, and their ``contains`` strings;
never a held-out set):

* **facts kept whole**: for every answerable question and part, whether a segment
  of an expected file's text holds one of its ``contains`` strings entire.  A fact cut
  across two segments cannot be quoted.  Compared: ragwire's passages as they are,
  the same passages with ``pysbd`` as their sentence splitter, and ``pysbd`` alone
  over each paragraph; plus segments per document and the time to split them;
* **money recognised**: in the segment that holds each ``money``-tagged fact, whether
  each recogniser finds an amount of money (recall); and on the ``contains`` values
  of facts tagged ``quantity``, ``duration`` or ``temperature`` and not ``money``
  ("23 kg", "two days", "-5 °C"), how often it calls one money (false alarms).

    pip install pysbd price-parser quantulum3
    nice -n 10 python bench/answer_libraries.py

.. _pysbd: https://pypi.org/project/pysbd/
.. _price-parser: https://pypi.org/project/price-parser/
.. _quantulum3: https://pypi.org/project/quantulum3/
"""

from __future__ import annotations

import logging
import os
import sys
import time
import warnings
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import answers_heldout  # noqa: E402
import common  # noqa: E402

common.go_offline()

from ragwire.answer import coverage, passages  # noqa: E402
from ragwire.eval import GoldenSet  # noqa: E402
from ragwire.loaders.page_loader import PageLoader  # noqa: E402

Fact = tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]  # corpus, expected files, contains, tags


def squash(text: str) -> str:
    return " ".join(text.lower().split())


def facts() -> list[Fact]:
    """Every answerable question and part of the development sets with a ``contains`` string."""
    out: list[Fact] = []
    for name in answers_heldout.DEVELOPMENT:
        corpus = answers_heldout.CORPORA[name]
        for path in corpus.golden:
            for entry in GoldenSet.from_file(path).entries:
                if entry.parts:
                    out += [(name, p.expected, p.contains, ()) for p in entry.parts if p.answerable and p.contains]
                elif entry.answerable and entry.contains:
                    out.append((name, entry.expected, entry.contains, entry.tags))
    return out


# pysbd takes minutes over a whole novel (the messy folder holds one); a longer text is left out for every segmenter.
MAX_CHARS = 200_000


def load_texts(found: list[Fact]) -> dict[tuple[str, str], str]:
    """(corpus, file name) -> the text the loaders read from it (the same text the index holds), for
    every file a fact is expected in."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    loader = PageLoader()
    texts: dict[tuple[str, str], str] = {}
    wanted = {(corpus, name) for corpus, expected, _, _ in found for name in expected}
    for name in answers_heldout.DEVELOPMENT:
        folder = answers_heldout.CORPORA[name].folder
        for path in sorted(folder.iterdir()):
            if (name, path.name) not in wanted or not path.is_file() or path.stat().st_size > 20 * MAX_CHARS:
                continue
            try:
                result = loader.load(path)
            except Exception:  # a corpus file meant to fail (corrupt, encrypted): no fact is asked of it
                continue
            if result.get("success") and 0 < len(str(result.get("text_content") or "")) <= MAX_CHARS:
                texts[(name, path.name)] = str(result["text_content"])
    return texts


def paragraphs(text: str) -> list[str]:
    return [p for p in (" ".join(block.split()) for block in text.split("\n\n")) if p]


def segmenters() -> dict[str, Callable[[str], list[str]]]:
    import pysbd

    seg = pysbd.Segmenter(language="en", clean=False)
    ours = passages.split_sentences

    def with_pysbd(text: str, min_words: int = passages.MIN_WORDS) -> list[str]:
        pieces = [s.strip() for s in seg.segment(text) if s.strip()]
        merged: list[str] = []
        for piece in pieces:  # the same joining of too-short sentences as ragwire's own
            if merged and len(merged[-1].split()) < min_words:
                merged[-1] += " " + piece
            else:
                merged.append(piece)
        return merged

    def ragwire_passages(text: str) -> list[str]:
        passages.split_sentences = ours
        return [p.text for p in passages.split_passages(text)]

    def passages_with_pysbd(text: str) -> list[str]:
        passages.split_sentences = with_pysbd
        try:
            return [p.text for p in passages.split_passages(text)]
        finally:
            passages.split_sentences = ours

    def pysbd_alone(text: str) -> list[str]:
        return [s.strip() for p in paragraphs(text) for s in seg.segment(p) if s.strip()]

    return {"ragwire passages": ragwire_passages, "ragwire passages, pysbd sentences": passages_with_pysbd,
            "pysbd over paragraphs": pysbd_alone}


def segmentation(found: list[Fact], texts: dict[tuple[str, str], str]) -> dict[str, list[str]]:
    """Print how many facts each segmenter keeps whole; returns ragwire's segments per document."""
    print(f"\n## Facts kept whole ({len(found)} answerable facts of the development sets)\n")
    print("| segmenter | facts kept whole | segments | words per segment | time to split |")
    print("|---|---|---|---|---|")
    kept_segments: dict[str, list[str]] = {}
    for label, split in segmenters().items():
        started = time.perf_counter()
        segments = {key: split(text) for key, text in texts.items()}
        took = time.perf_counter() - started
        whole = 0
        for corpus, expected, contains, _ in found:
            pool = [squash(s) for name in expected for s in segments.get((corpus, name), [])]
            whole += any(squash(c) in s for c in contains for s in pool)
        count = sum(len(s) for s in segments.values())
        words = sum(len(x.split()) for s in segments.values() for x in s) / max(count, 1)
        print(f"| {label} | {whole}/{len(found)} ({whole / len(found):.2f}) | {count} | {words:.1f} | {took:.2f} s |")
        if label == "ragwire passages":
            kept_segments = {f"{c}/{n}": s for (c, n), s in segments.items()}
    return kept_segments


def recognisers() -> dict[str, Callable[[str], bool]]:
    from price_parser import Price
    from quantulum3 import classifier

    # quantulum3 0.10's bundled unit classifier is a pickle of an older scikit-learn that the one
    # installed here cannot load (ModuleNotFoundError: _loss); its rules still run without it.
    classifier.USE_CLF = False
    from quantulum3 import parser


    def price_parser(text: str) -> bool:
        price = Price.fromstring(text)
        return price.amount is not None and price.currency is not None

    def quantulum(text: str) -> bool:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return any(q.unit.entity.name == "currency" for q in parser.parse(text))

    return {"ragwire (currencies as data)": lambda text: coverage.instance("amount of money", text),
            "price-parser": price_parser, "quantulum3": quantulum}


def money(found: list[Fact], segments: dict[str, list[str]]) -> None:
    positives: list[str] = []
    for corpus, expected, contains, tags in found:
        if "money" not in tags:
            continue
        holding = [s for name in expected for s in segments.get(f"{corpus}/{name}", [])
                   if any(squash(c) in squash(s) for c in contains)]
        if holding:
            positives.append(holding[0])
    negatives = [contains[0] for _, _, contains, tags in found
                 if "money" not in tags and {"quantity", "duration", "temperature"} & set(tags)]
    print(f"\n## Money recognised ({len(positives)} passages holding a money fact; "
          f"{len(negatives)} values of quantities, durations and temperatures)\n")
    print("| recogniser | money found in the fact's passage | values called money | time |")
    print("|---|---|---|---|")
    for label, is_money in recognisers().items():
        started = time.perf_counter()
        hits = sum(is_money(p) for p in positives)
        alarms = sum(is_money(v) for v in negatives)
        took = time.perf_counter() - started
        print(f"| {label} | {hits}/{len(positives)} ({hits / max(len(positives), 1):.2f}) "
              f"| {alarms}/{len(negatives)} | {took:.2f} s |")


def main() -> None:
    every = facts()
    texts = load_texts(every)
    found = [f for f in every if any((f[0], name) in texts for name in f[1])]
    print(f"development sets: {', '.join(answers_heldout.DEVELOPMENT)}; {len(texts)} documents read "
          f"(the files facts are expected in, up to {MAX_CHARS:,} characters); {len(every) - len(found)} facts "
          "left out with their files")
    segments = segmentation(found, texts)
    money(found, segments)


if __name__ == "__main__":
    main()
