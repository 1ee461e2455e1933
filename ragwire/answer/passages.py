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

from .text import SENTENCE_ABBREVIATIONS

if TYPE_CHECKING:
    from .context import NumberedSource

# A passage shorter than this (in words) is a label or a fragment, not an answer...
MIN_WORDS = 4
# ...unless it holds a number: a name and its value, as forms and scans print them.
MIN_VALUE_WORDS = 2
# A bullet up to this long is quoted whole: its sentences only make sense together.
MAX_BULLET_CHARS = 320
# A line at least this long that ends without punctuation was wrapped, not ended.
WRAP_CHARS = 60
# A cut-off sentence start is still worth quoting (after an ellipsis) when it is at least this long.
MIN_FRAGMENT_WORDS = 8

_MD_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
_UNDERLINE = re.compile(r"^\s*(?:-{3,}|={3,})\s*$")
_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*(?::?-{3,}:?\s*)?$")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+")
# "Meaning: …", "Fix: …", "Shift lead: …": a labelled line starts a new unit even without a blank line.
_LABEL = re.compile(r"^\s*[A-Z][A-Za-z]{1,20}(?: [A-Za-z]{1,20})?:\s+\S")
# "Warranty period. The …", "How to make a claim. Open …": up to five words and a period open the line.
_RUN_IN = re.compile(r"^\s*((?!(?:A|An|The) )[A-Z][\w'-]*(?: [\w'-]+){1,4}\.)\s+(?=[A-Z])")
# "Balance to pay this quarter: EUR 74.20": a label of any length and a value with a number is a fact, not a heading.
_LABELLED_NUMBER = re.compile(r"(?<=\S):\s+\D{0,8}\d")
_TERMINAL = ".!?:;"
# A line ending in one of these stops mid-sentence even when it is short.
_DANGLING = frozenset({"the", "a", "an", "of", "to", "and", "or", "in", "on", "for", "with", "at", "by", "from"})
_ANAPHOR = re.compile(r"(?:It|Its|They|Their|Them|This|These|That|Those|Such|During this|After this|He|She)\b")
_STEP = re.compile(r"\d{1,2}\)\s")
_SENTENCE_GAP = re.compile(r"[.!?][\"')\]]*\s+")


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


@dataclass
class _Unit:
    kind: str  # "text", "bullet", "row", "rule", "heading" (markdown #), "title" (any other heading line)
    lines: list[str]
    block: int  # units separated by a blank line are in different blocks
    header: bool = False  # a table row with a rule below it


def table_header(text: str) -> list[str] | None:
    """The cells of the first markdown table header in ``text`` (the row above a ``| --- |`` rule)."""
    lines = text.splitlines()
    for above, line in zip(lines, lines[1:], strict=False):
        if _TABLE_RULE.match(line) and _ROW.match(above):
            return _cells(above)
    return None


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
    units = _units(text)
    _mark_titles(units)
    out: list[tuple[str, str, str]] = []
    context = heading.split(">")[-1].strip() if heading else ""
    title = ""
    first_text = next((u for u in units if u.kind in ("text", "bullet")), None)
    last_text = next((u for u in reversed(units) if u.kind in ("text", "bullet")), None)
    lead = ""  # "Other members pay:": the sentence a list's items complete, part of their context
    for unit in units:
        if unit.kind in ("heading", "title"):
            context = _inline(" ".join(unit.lines)).lstrip("#").strip().rstrip(".")
            title = context if unit.kind == "title" else ""
            lead = ""
            continue
        if unit.kind == "rule":
            continue
        if unit.kind == "row":
            cells = _cells(unit.lines[0])
            if unit.header:
                header = cells
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
            if unit is first_text and unit is units[0] and pieces and pieces[0][:1].islower():
                pieces[0] = _leading_fragment(pieces[0])
            if unit is last_text and unit is units[-1] and pieces and _cut_at_end(unit, pieces[-1]):
                pieces[-1] = _finished_part(pieces[-1])
        for piece in pieces:
            if piece and _worth_quoting(piece):
                out.append((piece, context, title))
    return [Passage(text, ctx, i, ttl) for i, (text, ctx, ttl) in enumerate(out)]


def _units(text: str) -> list[_Unit]:
    """Group lines into units: wrapped lines join, a new bullet, row, label or heading starts one."""
    raw = text.splitlines()
    units: list[_Unit] = []
    block = 0
    in_fence = False
    for i, line in enumerate(raw):
        if _FENCE.match(line):
            # Code does not read as an answer sentence: fenced blocks are skipped whole.
            in_fence = not in_fence
            continue
        if in_fence or _COMMENT.match(line):
            continue
        stripped = line.strip()
        if not stripped:
            block += 1
            continue
        below = raw[i + 1] if i + 1 < len(raw) else ""
        open_unit = units[-1] if units and units[-1].block == block else None
        if _MD_HEADING.match(line):
            units.append(_Unit("heading", [stripped], block))
        elif _TABLE_RULE.match(line):
            units.append(_Unit("rule", [stripped], block))
            if open_unit is not None and open_unit.kind == "row":
                open_unit.header = True
        elif _ROW.match(line):
            units.append(_Unit("row", [stripped], block))
        elif _UNDERLINE.match(line):
            # A setext underline makes the line above it a heading.
            if open_unit is not None and len(open_unit.lines) == 1:
                open_unit.kind = "title"
            units.append(_Unit("rule", [stripped], block))
        elif (_UNDERLINE.match(below) and not _ROW.match(line)) or _is_shouting(stripped):
            units.append(_Unit("title", [stripped], block))
        elif _RUN_IN.match(line) and _starts_wrapped_paragraph(open_unit, below):
            # "Warranty period. The warranty lasts…": the run-in heading names the paragraph.
            run_in = _RUN_IN.match(line)
            assert run_in is not None  # matched in the condition above
            units.append(_Unit("title", [run_in.group(1)], block))
            units.append(_Unit("text", [line[run_in.end(1):].strip()], block))
        elif _BULLET.match(line):
            units.append(_Unit("bullet", [_BULLET.sub("", line, count=1).strip()], block))
        elif open_unit is not None and open_unit.kind in ("text", "bullet") and _continues(open_unit, line):
            open_unit.lines.append(stripped)
        else:
            units.append(_Unit("text", [stripped], block))
    return units


def _continues(unit: _Unit, line: str) -> bool:
    """Whether ``line`` carries on the unit above it rather than starting a new one."""
    if _LABEL.match(line):
        return False
    stripped = line.strip()
    if not stripped[:1].isupper():
        return True  # lowercase, a digit or punctuation: the sentence goes on
    previous = unit.lines[-1]
    if unit.kind == "bullet":
        # Only an indented line belongs to a bullet; a flush one after it is new text.
        return line[:1].isspace() and previous[-1:] not in _TERMINAL
    if previous[-1:] in _TERMINAL:
        return True  # joined prose is split into sentences again later
    if stripped[-1:] not in _TERMINAL and len(stripped) < WRAP_CHARS and previous[:1].isupper():
        # Both lines unpunctuated, the new one short and capitalised: rows of a scan or a slide, one
        # item each ("Sheds may be no taller than 2.2 metres"), not a sentence wrapped onto a second line.
        return False
    return len(previous) >= WRAP_CHARS


def _starts_wrapped_paragraph(open_unit: _Unit | None, below: str) -> bool:
    """Whether a line opens a paragraph of hard-wrapped text (a PDF page, a .txt file).

    Only there is a short sentence at the start of a line a run-in heading; a markdown
    paragraph on one line may well open with "Empty the tank each night."
    """
    if open_unit is None:
        return bool(below.strip())
    previous = open_unit.lines[-1]
    return not (len(previous) >= WRAP_CHARS and previous[-1:] not in _TERMINAL)


def _mark_titles(units: list[_Unit]) -> None:
    """A lone short line without punctuation is a heading when it labels what follows it (an error code, a section).

    Two or more such lines in a row are a list (slide bullets, OCR'd rows of a form) and
    stay quotable; so does a lone one with nothing after it to label, or only more bare
    lines after a blank line (a scan's lines, read one block each): they carry content.
    """
    i = 0
    while i < len(units):
        if not _is_bare_line(units[i]):
            i += 1
            continue
        j = i
        while j + 1 < len(units) and units[j + 1].block == units[i].block and _is_bare_line(units[j + 1]):
            j += 1
        after = units[j + 1] if j + 1 < len(units) else None
        if j == i and after is not None and not _is_bare_line(after):
            units[i].kind = "title"
        i = j + 1


def _is_bare_line(unit: _Unit) -> bool:
    line = unit.lines[0]
    return (unit.kind == "text" and len(unit.lines) == 1 and len(line) < WRAP_CHARS
            and line[-1:] not in _TERMINAL and not _LABEL.match(line) and not _LABELLED_NUMBER.search(line))


def _is_shouting(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    return len(letters) >= 8 and all(c.isupper() for c in letters)


def _prose(unit: _Unit) -> list[str]:
    text = _inline(" ".join(unit.lines))
    if unit.kind == "bullet" and len(text) <= MAX_BULLET_CHARS:
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


def split_sentences(text: str, min_words: int = MIN_WORDS) -> list[str]:
    """Split prose at ``. ! ?`` followed by a capital or a digit, not after a common abbreviation.

    A sentence of fewer than ``min_words`` words is joined to the one after it.
    """
    out: list[str] = []
    start = 0
    for gap in _SENTENCE_GAP.finditer(text):
        after = text[gap.end():gap.end() + 1]
        word = text[start:gap.start()].rsplit(" ", 1)[-1].lower()
        if not (after.isupper() or after.isdigit()) or word in SENTENCE_ABBREVIATIONS:
            continue
        if _STEP.match(text, gap.end()):
            continue  # "1) Wipe … 2) Park …": numbered steps read as one instruction
        if len(word) == 1 and word.isalpha():
            continue  # an initial: "J. Smith"
        if word == "no" and after.isdigit():
            continue  # "No. 5"
        out.append(text[start:gap.end()].strip())
        start = gap.end()
    out.append(text[start:].strip())
    # "No. The KX-2 is built…", "A maintenance release. All sites…": a sentence too short
    # to quote alone belongs with the one after it.
    merged: list[str] = []
    for sentence in out:
        if merged and len(merged[-1].split()) < min_words:
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
    return sentence.rstrip("\"')]")[-1:] in _TERMINAL


def _leading_fragment(sentence: str) -> str:
    """The rest of a sentence the splitter cut at the chunk's start: shown after "…", or dropped when short."""
    return "…" + sentence if len(sentence.split()) >= MIN_FRAGMENT_WORDS else ""


def _finished_part(passage: str) -> str:
    """What a cut passage says up to its last full stop ("1) Wipe …. 2) Park …. 3) Run the"), or ""."""
    ends = list(_SENTENCE_GAP.finditer(passage))
    return passage[:ends[-1].end()].strip() if ends else ""


def _cut_at_end(unit: _Unit, sentence: str) -> bool:
    """Whether the chunk's last sentence stops where the splitter cut, not where the writer did.

    A single short line without punctuation is a slide line or a list item and ends there.
    """
    if _finished(sentence):
        return False
    words = sentence.split()
    return len(unit.lines) > 1 or len(unit.lines[-1]) >= WRAP_CHARS or (bool(words) and words[-1].lower() in _DANGLING)


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
