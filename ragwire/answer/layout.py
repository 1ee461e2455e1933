"""A chunk's layout: which of its lines form a heading, a paragraph, a bullet or a table row.

Loaders write text in every shape: markdown headings and tables, bullets, slide lines, OCR'd
lines of a scan, and text hard-wrapped at 80 or 100 columns.  One reading of the lines serves
them all: wrapped lines join into the sentence they carry on, a new bullet, row, label or
heading starts a unit of its own, and a short bare line is a heading only when it labels what
follows.  :mod:`.passages` turns the units into what an answer may quote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A line at least this long that ends without punctuation was wrapped, not ended.
WRAP_CHARS = 60

_MD_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
_UNDERLINE = re.compile(r"^\s*(?:-{3,}|={3,})\s*$")
_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
ROW = re.compile(r"^\s*\|.*\|\s*$")
TABLE_RULE = re.compile(r"^\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*(?::?-{3,}:?\s*)?$")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+")
# "Meaning: …", "Fix: …", "Shift lead: …": a labelled line starts a new unit even without a blank line.
_LABEL = re.compile(r"^\s*[A-Z][A-Za-z]{1,20}(?: [A-Za-z]{1,20})?:\s+\S")
# "Warranty period. The …", "How to make a claim. Open …": up to five words and a period open the line.
_RUN_IN = re.compile(r"^\s*((?!(?:A|An|The) )[A-Z][\w'-]*(?: [\w'-]+){1,4}\.)\s+(?=[A-Z])")
# "Balance to pay this quarter: EUR 74.20": a label of any length and a value with a number is a fact, not a heading.
_LABELLED_NUMBER = re.compile(r"(?<=\S):\s+\D{0,8}\d")
TERMINAL = ".!?:;"
# A line ending in one of these stops mid-sentence even when it is short.
DANGLING = frozenset({"the", "a", "an", "of", "to", "and", "or", "in", "on", "for", "with", "at", "by", "from"})
SENTENCE_GAP = re.compile(r"[.!?][\"')\]]*\s+")


@dataclass
class Unit:
    kind: str  # "text", "bullet", "row", "rule", "heading" (markdown #), "title" (any other heading line)
    lines: list[str]
    block: int  # units separated by a blank line are in different blocks
    header: bool = False  # a table row with a rule below it


def units(text: str) -> list[Unit]:
    """Group lines into units: wrapped lines join, a new bullet, row, label or heading starts one;
    then mark the short bare lines that head what follows as titles."""
    found = _group(text)
    _mark_titles(found)
    return found


def _group(text: str) -> list[Unit]:
    raw = text.splitlines()
    units: list[Unit] = []
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
            units.append(Unit("heading", [stripped], block))
        elif TABLE_RULE.match(line):
            units.append(Unit("rule", [stripped], block))
            if open_unit is not None and open_unit.kind == "row":
                open_unit.header = True
        elif ROW.match(line):
            units.append(Unit("row", [stripped], block))
        elif _UNDERLINE.match(line):
            # A setext underline makes the line above it a heading.
            if open_unit is not None and len(open_unit.lines) == 1:
                open_unit.kind = "title"
            units.append(Unit("rule", [stripped], block))
        elif (_UNDERLINE.match(below) and not ROW.match(line)) or _is_shouting(stripped):
            units.append(Unit("title", [stripped], block))
        elif _RUN_IN.match(line) and _starts_wrapped_paragraph(open_unit, below):
            # "Warranty period. The warranty lasts…": the run-in heading names the paragraph.
            run_in = _RUN_IN.match(line)
            assert run_in is not None  # matched in the condition above
            units.append(Unit("title", [run_in.group(1)], block))
            units.append(Unit("text", [line[run_in.end(1):].strip()], block))
        elif _BULLET.match(line):
            units.append(Unit("bullet", [_BULLET.sub("", line, count=1).strip()], block))
        elif open_unit is not None and open_unit.kind in ("text", "bullet") and _continues(open_unit, line):
            open_unit.lines.append(stripped)
        else:
            units.append(Unit("text", [stripped], block))
    return units


def _continues(unit: Unit, line: str) -> bool:
    """Whether ``line`` carries on the unit above it rather than starting a new one."""
    if _LABEL.match(line):
        return False
    stripped = line.strip()
    if not stripped[:1].isupper():
        return True  # lowercase, a digit or punctuation: the sentence goes on
    previous = unit.lines[-1]
    if unit.kind == "bullet":
        # Only an indented line belongs to a bullet; a flush one after it is new text.
        return line[:1].isspace() and previous[-1:] not in TERMINAL
    if previous[-1:] in TERMINAL:
        return True  # joined prose is split into sentences again later
    if stripped[-1:] not in TERMINAL and len(stripped) < WRAP_CHARS and previous[:1].isupper():
        # Both lines unpunctuated, the new one short and capitalised: rows of a scan or a slide, one
        # item each ("Sheds may be no taller than 2.2 metres"), not a sentence wrapped onto a second line.
        return False
    return len(previous) >= WRAP_CHARS


def _starts_wrapped_paragraph(open_unit: Unit | None, below: str) -> bool:
    """Whether a line opens a paragraph of hard-wrapped text (a PDF page, a .txt file).

    Only there is a short sentence at the start of a line a run-in heading; a markdown
    paragraph on one line may well open with "Empty the tank each night."
    """
    if open_unit is None:
        return bool(below.strip())
    previous = open_unit.lines[-1]
    return not (len(previous) >= WRAP_CHARS and previous[-1:] not in TERMINAL)


def _mark_titles(units: list[Unit]) -> None:
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


def _is_bare_line(unit: Unit) -> bool:
    line = unit.lines[0]
    return (unit.kind == "text" and len(unit.lines) == 1 and len(line) < WRAP_CHARS
            and line[-1:] not in TERMINAL and not _LABEL.match(line) and not _LABELLED_NUMBER.search(line))


def _is_shouting(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    return len(letters) >= 8 and all(c.isupper() for c in letters)
