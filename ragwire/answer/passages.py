"""Chunk text → the passages an extractive answer may quote: sentences, bullets and table rows.

Chunks arrive as loaders wrote them: markdown headings and tables, bullets, slide
lines, text hard-wrapped at 80 or 100 columns, and a first or last sentence cut by
the splitter.  What survives here is something a reader can take on its own;
headings and titles are kept only as the ``context`` of the passages under them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .instances import SPELLED_VALUES, sign_before_amount
from .layout import MIN_WORDS, SENTENCE_GAP, TERMINAL, WRAP_CHARS, Unit, ends_dangling, labels_only, units
from .text import SENTENCE_ABBREVIATIONS, content_words, stem

if TYPE_CHECKING:
    from .context import NumberedSource

# A passage shorter than MIN_WORDS (in words) is a label or a fragment, not an answer...
# ...unless it holds a number: a name and its value, as forms and scans print them.
MIN_VALUE_WORDS = 2
# A bullet or a numbered clause up to this long is quoted whole: its sentences only make sense together ("1.2 Junior
# membership covers weekday rowing. The fee is 90 EUR": the fee is that membership's).
MAX_BULLET_CHARS = 320
# A cut-off sentence start is still worth quoting (after an ellipsis) when it is at least this long.
MIN_FRAGMENT_WORDS = 8

_ANAPHOR = re.compile(r"(?:It|Its|They|Their|Them|This|These|That|Those|Such|During this|After this|He|She)\b")
_STEP = re.compile(r"\d{1,2}\)\s")


@dataclass(frozen=True)
class Passage:
    """A quotable piece of one chunk.

    Attributes:
        text: What the answer shows, on one line.
        context: The heading or title it sits under ("" when none), for scoring.
        position: Its order within the chunk.
        title: The context again when it is a title line of the chunk's text rather than
            a heading of the chunk's metadata: the answer may have to show it.
    """

    text: str
    context: str
    position: int
    title: str = ""


def table_header(text: str) -> list[str] | None:
    """The cells of the first table header in ``text`` (the row above a ``| --- |`` rule or a text table's border)."""
    return next((_cells(unit.lines[0]) for unit in units(text) if unit.kind == "row" and unit.header), None)


def split_passages(text: str, *, heading: str = "", header: list[str] | None = None) -> list[Passage]:
    """The passages of one chunk, in reading order.

    Args:
        text: The chunk text.
        heading: The chunk's heading path, used as context until the chunk names its own.
        header: Column names for table rows whose header row is in another chunk of the same file.

    Returns:
        Sentences of prose, whole bullets, slide lines and table rows (as ``column: value``
        pairs when the header is known); headings, titles, table rules and fragments
        are left out.
    """
    found = units(text)
    out: list[tuple[str, str, str]] = []
    context = heading.split(">")[-1].strip() if heading else ""
    title = ""
    first_text = next((u for u in found if u.kind in ("text", "bullet")), None)
    last_text = next((u for u in reversed(found) if u.kind in ("text", "bullet")), None)
    lead = ""  # "Other members pay:": the sentence a list's items complete, part of their context
    section = False  # the row before named a table below the first: this row of labels is its header
    sections = {id(unit) for unit in _sections(found)}  # units compare by value: two alike rows are two rows
    item = ""  # "3. Spring concert": a numbered item's title line, the context of the lines indented under it
    for unit in found:
        if unit.kind in ("heading", "title"):
            context = _heading_text(unit)
            title = context if unit.kind == "title" else ""
            lead = item = ""
            continue
        if unit.kind == "bullet":
            item = _item_title(unit)
        elif item and unit.kind == "text" and re.search(rf"\n[ \t]+{re.escape(unit.lines[0])}", text):
            out.extend((piece, f"{context} {item}".strip(), title) for piece in _prose(unit) if _worth_quoting(piece))
            continue
        else:
            item = ""
        if unit.kind == "rule":
            continue
        if unit.kind == "row":
            cells = _cells(unit.lines[0])
            if unit.header or section:
                header, section = cells, False
                continue
            if header is not None and id(unit) in sections:
                context, title, section = cells[0], "", True
                continue
            pieces = [_render_row(cells, header)]
        else:
            pieces = _prose(unit)
            if unit.kind == "bullet" and lead:
                for piece in pieces:
                    if piece and _worth_quoting(piece):
                        out.append((piece, f"{context} {lead}".strip(), title))
                continue
            lead = pieces[-1] if unit.kind == "text" and pieces and pieces[-1].endswith(":") else ""
            if unit is first_text and unit is found[0] and pieces and pieces[0][:1].islower():
                pieces[0] = _leading_fragment(pieces[0])
            if unit is last_text and unit is found[-1] and pieces and _cut_at_end(unit, pieces[-1], _listed(found)):
                pieces[-1] = _finished_part(pieces[-1])
        for piece in pieces:
            if piece and _worth_quoting(piece):
                out.append((piece, context, title))
    return [Passage(text, ctx, i, ttl) for i, (text, ctx, ttl) in enumerate(out)]


def _sections(found: list[Unit]) -> list[Unit]:
    """The rows naming a second table in a sheet: a short label alone in the first cell ("Sites in town | | |") right
    above a row of column labels.  A sentence alone in the first cell is a row of notes."""
    out = []
    for unit, below in zip(found, found[1:], strict=False):
        if unit.kind != "row" or below.kind != "row":
            continue
        cells, under = _cells(unit.lines[0]), _cells(below.lines[0])
        if (len(cells) > 2 and cells[0] and not any(cells[1:]) and len(cells[0].split()) <= MAX_SECTION_WORDS
                and cells[0][-1:] not in TERMINAL and sum(map(bool, under)) > 2 and labels_only(below.lines[0])):
            out.append(unit)
    return out


def _item_title(unit: Unit) -> str:
    """The title line of a numbered item spanning several lines ("3. Spring concert" over its date and place), else
    "": a short line without final punctuation."""
    first = unit.lines[0]
    if not unit.numbered or len(unit.lines) < 2 or first[-1:] in TERMINAL or len(first.split()) > 10:
        return ""
    return _inline(first)


def chunk_title(text: str) -> str:
    """The first heading or title of a chunk ("" when none): in a plain-text document, what it calls itself.  Title
    lines that open the chunk together are one title ("HARBOUR ROWING CLUB" over "Open Day 2027 - Notice"); a
    numbered section's name ("3. Boats") is no part of it."""
    found = list(units(text))
    lead = next((i for i, u in enumerate(found) if u.kind not in ("heading", "title") or u.numbered), len(found))
    if lead:
        return " ".join(_heading_text(u) for u in found[:lead])
    return next((_heading_text(u) for u in found if u.kind in ("heading", "title")), "")


def _heading_text(unit: Unit) -> str:
    return _inline(" ".join(unit.lines)).lstrip("#").strip().rstrip(".")


def _prose(unit: Unit) -> list[str]:
    text = _inline(" ".join(unit.lines))
    if (unit.kind == "bullet" or unit.numbered) and len(text) <= MAX_BULLET_CHARS:
        return [text]
    out: list[str] = []
    for sentence in split_sentences(text):
        if sentence.endswith("?"):
            continue  # never quoted (see _worth_quoting), and the sentence after it answers it
        # "They are covered for 6 months only." means nothing without the sentence it points back to.
        if out and _ANAPHOR.match(sentence) and len(out[-1]) + len(sentence) < MAX_BULLET_CHARS:
            out[-1] += " " + sentence
        else:
            out.append(sentence)
    return out


# A word right after a number ("2 400 Kč", "3 500 Ft"): a unit or a currency, which may end a sentence.
_AFTER_NUMBER = re.compile(r"\d\s?[^\W\d_]{2}$")


# The most words a row naming a second table in a sheet holds: a label, not a note.
MAX_SECTION_WORDS = 8
# Shortened words that stand before a number, in any case: "no. 5", "max. 6 people", "min. 2 nights", "ca. 40 m".
_BEFORE_NUMBER = frozenset("no nr max min ca tel".split())


def split_sentences(text: str, min_words: int = MIN_WORDS) -> list[str]:
    """Split prose at ``. ! ?`` followed by a capital or a digit, not after a common abbreviation.

    A sentence of fewer than ``min_words`` words is joined to the one after it.
    """
    out: list[str] = []
    start = 0
    for gap in SENTENCE_GAP.finditer(text):
        after = text[gap.end():gap.end() + 1]
        # "(Rs. 50)", "(approx. 5)": an abbreviation in brackets is still one.
        written = text[start:gap.start()].rsplit(" ", 1)[-1].lstrip("([{\"'‘“")
        word = written.lower()
        if not (after.isupper() or after.isdigit()) or word in SENTENCE_ABBREVIATIONS:
            continue
        if _STEP.match(text, gap.end()):
            continue  # "1) Wipe … 2) Park …": numbered steps read as one instruction
        if len(word) == 1 and word.isalpha():
            continue  # an initial: "J. Smith"
        if len(word) == 2 and written.istitle() and word.isalpha() and not _AFTER_NUMBER.search(text, start, gap.start()):
            continue  # a shortened given name or title: "Ma. Luisa", "Mt. Cook"; not a currency after a sum ("400 Kč.")
        if after.isdigit() and (word in _BEFORE_NUMBER or sign_before_amount(word)
                                or (len(word) <= 3 and written[:1].isupper() and word.isalpha())):
            continue  # "No. 5", "Rs. 60", "kr. 85", "Fig. 3", "max. 6": an abbreviation before its number
        out.append(text[start:gap.end()].strip())
        start = gap.end()
    out.append(text[start:].strip())
    # "No. The KX-2 is built…", "A maintenance release. All sites…": a sentence too short
    # to quote alone belongs with the one after it.
    merged: list[str] = []
    for sentence in out:
        # "Mast removal, rigging included. 380": a value alone after a full stop is the sentence's before it.
        value_alone = bool(sentence) and not any(c.isalpha() for c in sentence)
        if merged and (value_alone or len(merged[-1].split()) < min_words):
            merged[-1] += " " + sentence
        elif sentence:
            merged.append(sentence)
    return merged


def _inline(text: str) -> str:
    """One line, single spaces, no emphasis markers; links keep their text."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"(\*\*|__|`)", "", text)
    return " ".join(text.split())


def _cells(row: str) -> list[str]:
    return [_inline(c) for c in row.strip().strip("|").split("|")]


def _render_row(cells: list[str], header: list[str] | None) -> str:
    """``SKU: SKU-88213-B · Product: …`` with a header of the same width, else the cells with `` · ``."""
    if header is not None and len(header) == len(cells):
        pairs = [f"{name}: {value}" if name else value for name, value in zip(header, cells, strict=False) if value]
        return " · ".join(pairs)
    return " · ".join(c for c in cells if c)


def _finished(sentence: str) -> bool:
    return sentence.rstrip("\"')]")[-1:] in TERMINAL


def _leading_fragment(sentence: str) -> str:
    """The rest of a sentence the splitter cut at the chunk's start: shown after "…", or dropped when short."""
    return "…" + sentence if len(sentence.split()) >= MIN_FRAGMENT_WORDS else ""


def _finished_part(passage: str) -> str:
    """What a cut passage says up to its last full stop ("1) Wipe …. 2) Park …. 3) Run the"), or ""."""
    ends = list(SENTENCE_GAP.finditer(passage))
    return passage[:ends[-1].end()].strip() if ends else ""


def _cut_at_end(unit: Unit, sentence: str, listed: bool = False) -> bool:
    """Whether the chunk's last sentence stops where the splitter cut, not where the writer did.

    A single short line without punctuation is a slide line or a list item and ends there; so does a
    longer one after such an item (``listed``: the last line of an unpunctuated list).
    """
    if _finished(sentence):
        return False
    if ends_dangling(sentence):
        return True
    return len(unit.lines) > 1 or (len(unit.lines[-1]) >= WRAP_CHARS and not listed)


def _listed(found: list[Unit]) -> bool:
    """Whether the last unit follows, in its block, a one-line text without final punctuation: the end of such a list."""
    if len(found) < 2:
        return False
    before = found[-2]
    return (before.kind == "text" and len(before.lines) == 1 and before.lines[0][-1:] not in TERMINAL
            and before.block == found[-1].block)


def _worth_quoting(piece: str) -> bool:
    # A question restates what was asked (an FAQ heading, "Still stuck?"); it answers nothing.
    # A short line holding a value ("Heart rate 78 bpm", "Total 250 kroner") is a fact all the same.
    words = piece.split()
    value = len(words) >= MIN_VALUE_WORDS and any(c.isdigit() for c in piece)
    return (len(words) >= MIN_WORDS or value) and not piece.endswith("?")


def table_headers(sources: list[NumberedSource]) -> dict[str, list[str]]:
    """The first table header seen in each file: rows of a later chunk of that table need it."""
    headers: dict[str, list[str]] = {}
    for source in sources:
        key = str(source.hit.metadata.get("source", ""))
        if key not in headers:
            header = table_header(source.text)
            if header is not None:
                headers[key] = header
    return headers


def distinct(found: list[tuple[NumberedSource, Passage]]) -> list[tuple[NumberedSource, Passage]]:
    """Drop a passage whose text another passage already holds (overlapping chunks); the better-ranked source keeps it."""
    keys = [_key(p.text) for _, p in found]
    keep = []
    for i, item in enumerate(found):
        if any(keys[i] == keys[j] for j in range(i)):
            continue
        if any(keys[i] != keys[j] and f" {keys[i]} " in f" {keys[j]} " for j in range(len(found))):
            continue
        keep.append(item)
    return keep


def _key(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


class Scored(Protocol):
    """A passage of a numbered source with its similarity to the question (the extractive answerer's candidate)."""

    @property
    def source(self) -> int: ...

    @property
    def passage(self) -> Passage: ...

    @property
    def score(self) -> float: ...

    @property
    def ranked(self) -> float: ...

    @property
    def literal(self) -> bool: ...


def row_label(text: str) -> frozenset[str]:
    """The stems of what a row is of, its first field's value ("young", "adult" of "Category: Young adult (19–25) ·
    Fee: …"; a sentence's whole), less numbers: "one teacher" and "two teachers" are rows of one thing."""
    label = text.split(" · ", 1)[0].split(": ", 1)[-1]
    return frozenset(stem(w) for w in content_words(label) if w not in SPELLED_VALUES)
