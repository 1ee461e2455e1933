"""Build ragwire/answer/data/lexicon.tsv.gz, the word relations the offline answerer reads, from WordNet 3.0.

The answerer asks one thing of a lexicon: does a document's word stand for a question's word
(the same sense, a derivation, or one is a kind of the other), or is it merely near it, as a
sibling is (a weekday for a weekend, a dog for a horse)?  That needs WordNet's senses and three
kinds of pointer, not its glosses or examples, so the file keeps only those: one-word lemmas,
each sense's hypernyms, and its derivational, pertainym, attribute and similar-to pointers,
plus the irregular forms.  A question's focus phrase is read with one more fact per word: the
part of speech it is mostly used as (SemCor's tagged counts in ``cntlist.rev``; failing those, the
part of speech with most senses), so "good" in "how long is a quote good for" is no noun.  About 1.3 MB gzipped against WordNet's 30 MB.

    apt-get install wordnet-base        # Princeton WordNet 3.0 in /usr/share/wordnet
    python tools/build_lexicon.py [--wordnet /usr/share/wordnet]
"""

from __future__ import annotations

import argparse
import gzip
import re
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "ragwire" / "answer" / "data" / "lexicon.tsv.gz"
POS = ("noun", "verb", "adj", "adv")
HYPERNYM = {"@", "@i"}
# A pointer's part of speech, as the data files key their senses (an adjective satellite is an adjective).
_PART_OF_SPEECH = {"n": "n", "v": "v", "a": "a", "s": "a", "r": "r"}
RELATED = {"+", "\\", "=", "&"}
# cntlist.rev's synset types as parts of speech (5, an adjective satellite, is an adjective).
_SYNSET_TYPE = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}
# One lower-case word (hyphens allowed): the answerer compares single words.
LEMMA = re.compile(r"^[a-z][a-z-]*[a-z]$")
NOTICE = """\
# Derived from WordNet 3.0 (one-word lemmas, hypernym and derivational pointers, irregular forms).
# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
# THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR
# WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON UNIVERSITY MAKES NO
# REPRESENTATIONS OR WARRANTIES OF MERCHANT- ABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE
# OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS,
# COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS. Permission to use, copy, modify and distribute this software and
# database and its documentation for any purpose and without fee or royalty is hereby granted, provided
# that you agree to comply with the following copyright notice and statements, including the disclaimer,
# and that the same appear on ALL copies of the software, database and documentation, including
# modifications that you make for internal use or for distribution. The name of Princeton University or
# Princeton may not be used in advertising or publicity pertaining to distribution of the software and/or
# database. Title to copyright in this software, database and any associated documentation shall at all
# times remain with Princeton University and LICENSEE agrees to preserve same.
"""


def read(folder: Path) -> tuple[dict[str, list[str]], dict[str, tuple[list[str], list[str]]], dict[str, str]]:
    lemmas: dict[str, list[str]] = {}
    senses: dict[str, tuple[list[str], list[str]]] = {}
    for pos in POS:
        for line in (folder / f"data.{pos}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):
                continue  # the licence header
            fields = line.split(" | ")[0].split()
            key = f"{pos[0]}{fields[0]}"
            count = int(fields[3], 16)
            for word in fields[4:4 + 2 * count:2]:
                word = re.sub(r"\(.*\)$", "", word).lower()
                if LEMMA.match(word):
                    lemmas.setdefault(word, []).append(key)
            at = 4 + 2 * count
            hyper, related = [], []
            for i in range(int(fields[at])):
                symbol, offset, target = fields[at + 1 + 4 * i: at + 4 + 4 * i]
                ref = _PART_OF_SPEECH[target] + offset
                if symbol in HYPERNYM:
                    hyper.append(ref)
                elif symbol in RELATED:
                    related.append(ref)
            senses[key] = (hyper, related)
    irregular: dict[str, str] = {}
    for pos in POS:
        for line in (folder / f"{pos}.exc").read_text(encoding="latin-1").splitlines():
            inflected, base, *_ = line.split()
            if LEMMA.match(inflected) and LEMMA.match(base):
                irregular.setdefault(inflected, base)
    return lemmas, senses, irregular


def usual_parts(folder: Path, lemmas: dict[str, list[str]]) -> dict[str, str]:
    """Each word's usual part of speech: the most tagged in SemCor, else the one with most senses (noun first)."""
    tagged: dict[str, dict[str, int]] = {}
    for line in (folder / "cntlist.rev").read_text(encoding="latin-1").splitlines():
        key, _, count = line.split()
        lemma, _, rest = key.partition("%")
        part = _SYNSET_TYPE[rest[:1]]
        counts = tagged.setdefault(lemma, {})
        counts[part] = counts.get(part, 0) + int(count)
    usual = {}
    for word, keys in lemmas.items():
        senses = {p: sum(k[0] == p for k in keys) for p in "nvar"}
        counts = tagged.get(word, {})
        usual[word] = max("nvar", key=lambda p: (counts.get(p, 0), senses[p], -"nvar".index(p)))
    return usual


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    args = ap.parse_args()
    lemmas, senses, irregular = read(args.wordnet)
    usual = usual_parts(args.wordnet, lemmas)
    used = {k for keys in lemmas.values() for k in keys}
    frontier = set(used)
    while frontier:  # a word's hypernyms up the tree, though no one-word lemma names them
        frontier = {h for k in frontier for h in senses[k][0]} - used
        used |= frontier
    ids = {k: str(i) for i, k in enumerate(sorted(used))}
    lines = [NOTICE.rstrip("\n")]
    lines += [f"w\t{word}\t{','.join(ids[k] for k in keys)}\t{usual[word]}" for word, keys in sorted(lemmas.items())]
    for key in sorted(used, key=lambda k: int(ids[k])):
        hyper, related = senses[key]
        lines.append(f"s\t{','.join(ids[h] for h in hyper if h in ids)}\t{','.join(ids[r] for r in related if r in ids)}")
    lines += [f"x\t{inflected}\t{base}" for inflected, base in sorted(irregular.items())]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), mtime=0))
    print(f"{OUT}: {len(lemmas)} words, {len(used)} senses, {len(irregular)} irregular forms, "
          f"{OUT.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
