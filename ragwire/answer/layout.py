"""A chunk's layout: which of its lines form a heading, a paragraph, a bullet, a numbered clause or a table row.

Loaders write text in every shape: markdown headings and tables, bullets, slide lines, numbered
clauses of terms and rules, price lists with dot leaders, OCR'd lines of a scan, and text
hard-wrapped at 80 or 100 columns.  One reading of the lines serves them all: wrapped lines join
into the sentence they carry on, a new bullet, clause, row, label or heading starts a unit of its
own, and a short bare line is a heading only when it labels what follows.  :mod:`.passages` turns
the units into what an answer may quote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .instances import column_unit
from .lexicon import lexicon
from .text_tables import as_markdown

# A passage shorter than this (in words) is a label or a fragment, not an answer (passages.py), and a numbered
# clause this long is a sentence, not a section's name.
MIN_WORDS = 4
# A line at least this long that ends without punctuation was wrapped, not ended.
WRAP_CHARS = 60
# A line without final punctuation longer than this (in words) and holding a verb says something ("Lost oars are kept
# in the shed for 60 days"); a heading or title that long names a thing ("Boathouse rules and mooring fees (second
# edition, spring 2026)").
MAX_HEADING_WORDS = 6
# Hard-wrapped text fills its lines: a line is ended by the writer, not by the wrap, when the next line's first word
# would have fitted on it within this share of the width the text fills (proportional fonts in a PDF fill lines
# unevenly; see _fill_width).
FILL = 0.85

_MD_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
_UNDERLINE = re.compile(r"^\s*(?:-{3,}|={3,})\s*$")
_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
ROW = re.compile(r"^\s*\|.*\|\s*$")
TABLE_RULE = re.compile(r"^\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*(?::?-{3,}:?\s*)?$")
# "+----------+-------+": the border of a table drawn in text (a psql listing, a grid table in a .txt or a PDF's
# monospaced page); the one under the first row closes the header.
_GRID_RULE = re.compile(r"^\s*\+(?:[-=:]{3,}\+)+\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+")
# "1.2 The yearly fee …", "4.1.3 A member …": a numbered clause of terms or rules starts its own unit, and its
# number is no part of what it says.  The word after the number opens a sentence (a capital, not a unit in capitals
# as in "12.50 EUR").
_CLAUSE = re.compile(r"^\s*\d{1,2}(?:\.\d{1,2}){1,3}\.?\s+(?=[A-Z][a-z'’]|[AI]\s)")
# "Car park, whole day ........ 9,50 EUR": a dot leader joins a label to its value, as price lists and
# tables of contents print them (a scan may read the small dots as letters glued to the leader).  Four dots or more:
# three are an ellipsis.  Only letters glued to the last dot are the leader's: "........ kr 94" keeps its currency.
_LEADER = re.compile(r"\s*\.(?:\s?\.){3,}[^\s\d]*\s*")
# "Meaning: …", "Fix: …", "Shift lead: …": a labelled line starts a new unit even without a blank line.
_LABEL = re.compile(r"^\s*[A-Z][A-Za-z]{1,20}(?: [A-Za-z]{1,20})?:\s+\S")
# "Warranty period. The …", "How to make a claim. Open …": up to five words and a period open the line.
_RUN_IN = re.compile(r"^\s*((?!(?:A|An|The) )[A-Z][\w'-]*(?: [\w'-]+){1,4}\.)\s+(?=[A-Z])")
# "Balance to pay this quarter: EUR 74.20": a label of any length and a value with a number is a fact, not a heading.
_LABELLED_NUMBER = re.compile(r"(?<=\S):\s+\D{0,8}\d")
# "Mondays and bank holidays: closed": a label and a value in words says a fact; a heading's colon opens a name
# ("Part 2: Fees").
_LABELLED_WORD = re.compile(r"(?<=[^\s:]):\s+[a-z]")
TERMINAL = ".!?:;"
# A line ending in one of these stops mid-sentence even when it is short.
DANGLING = frozenset({"the", "a", "an", "of", "to", "and", "or", "in", "on", "for", "with", "at", "by", "from"})
# Verbs a heading never holds and the lexicon does not call verbs (it has "are" as a unit of area).
_WH_WORDS = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "why", "how"})
_AUXILIARIES = frozenset("is are was were be been has have had must may can will would should shall does do did".split())
SENTENCE_GAP = re.compile(r"[.!?][\"')\]]*\s+")
# "Service            Price (CHF)": a line naming a table's columns, the last with its values' unit in brackets, as
# a scan or a PDF's text gives a table without rules; its rows end in a bare number ("Hull cleaning -_ 7 45.00": the
# dots of a leader read as stray marks).
_COLUMN_HEADER = re.compile(r"^(?:.*\s)?(?P<column>[A-Za-z][\w'-]*\s*\((?P<unit>[^()\s]{1,10})\))$")
_ROW_VALUE = re.compile(r"(?<=\s)(?P<value>\d{1,3}(?:[,.' ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)$")
# A table needs rows: a header over fewer is a line like any other.
MIN_ROWS = 2


@dataclass
class Unit:
    kind: str  # "text", "bullet", "row", "rule", "heading" (markdown #), "title" (any other heading line)
    lines: list[str]
    block: int  # units separated by a blank line are in different blocks
    header: bool = False  # a table row with a rule below it
    numbered: str = ""  # the number a bullet or clause opened with ("2.", "2.1")


def units(text: str) -> list[Unit]:
    """Group lines into units: wrapped lines join, a new bullet, clause, row, label or heading starts one;
    then mark the short bare lines that head what follows as titles."""
    found = _group(text)
    _read_columns(found)
    _mark_titles(found)
    return found


def _group(text: str) -> list[Unit]:
    raw = as_markdown(text.splitlines())
    width = _fill_width(raw)
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
        elif _GRID_RULE.match(line):
            if open_unit is not None and open_unit.kind == "row":
                if _first_row(units):
                    open_unit.header = True
                elif _ruled_twice(units):
                    units[-3].header = False  # a grid that rules every row: its first row was no header after all
            units.append(Unit("rule", [stripped], block))
        elif TABLE_RULE.match(line):
            units.append(Unit("rule", [stripped], block))
            if open_unit is not None and open_unit.kind == "row":
                open_unit.header = True
        elif ROW.match(line):
            units.append(Unit("row", [stripped], block))
            if (len(units) >= 3 and units[-2].kind == "rule" and units[-3].header
                    and not units[-3].lines[0].strip("|: \t") and labels_only(stripped)):
                # A converter's empty header row ("|  |  |") over the rule: a first row of labels names the columns.
                units[-3].header, units[-1].header = False, True
        elif _UNDERLINE.match(line):
            # A setext underline makes the line above it a heading.
            if open_unit is not None and len(open_unit.lines) == 1:
                open_unit.kind = "title"
            units.append(Unit("rule", [stripped], block))
        elif (_UNDERLINE.match(below) and not ROW.match(line)) or _is_shouting(stripped):
            units.append(Unit("title", [stripped], block))
        elif (run_in := _RUN_IN.match(line)) and _names_only(run_in.group(1)) and _starts_wrapped_paragraph(
                open_unit, below):
            # "Warranty period. The warranty lasts…": the run-in heading names the paragraph.
            units.append(Unit("title", [run_in.group(1)], block))
            units.append(Unit("text", [line[run_in.end(1):].strip()], block))
        elif number := _CLAUSE.match(line):
            # Its wrapped lines carry on as prose does; the next clause number starts the next unit.
            said = line[number.end():].strip()
            units.append(Unit("text", [_leader_row(said) or said], block, numbered=number.group(0).strip()))
        elif row := _leader_row(_BULLET.sub("", stripped, count=1)):
            units.append(Unit("bullet", [row], block))
        elif marker := _BULLET.match(line):
            units.append(Unit("bullet", [line[marker.end():].strip()], block, numbered=marker.group(0).strip()))
        elif open_unit is not None and open_unit.kind in ("text", "bullet") and _continues(open_unit, line, width,
                                                                                         raw[i - 1].strip()):
            open_unit.lines.append(stripped)
        else:
            units.append(Unit("text", [stripped], block))
    return units


def labels_only(row: str) -> bool:
    """Whether every cell of a table ``row`` opens with a word, as column labels do ("Kids 3–11", "Price (EUR)"),
    not with a value ("£8", "2 h 15 min", "12.50")."""
    cells = [cell.split() for cell in row.strip().strip("|").split("|")]
    return all(not re.search(r"\d", cell[0]) for cell in cells if cell)


def _first_row(found: list[Unit]) -> bool:
    """Whether the last unit is a text table's first row: a border above it and no row above that (a grid that rules
    every row has a border under each)."""
    return len(found) >= 2 and found[-2].kind == "rule" and (len(found) < 3 or found[-3].kind != "row")


def _ruled_twice(found: list[Unit]) -> bool:
    """Whether the last unit is a text table's second row with a border under each row so far, the first's not of
    ``=`` (which closes a header in a grid that rules every row)."""
    return (len(found) >= 3 and found[-2].kind == "rule" and found[-3].kind == "row" and found[-3].header
            and "=" not in found[-2].lines[0])


def _read_columns(found: list[Unit]) -> None:
    """A column header's line (see :data:`_COLUMN_HEADER`) heads the rows under it; each row reads ``label ·
    column: value``, as a table's row does, so that its bare number carries the unit the header names."""
    i = 0
    while i < len(found):
        header = _COLUMN_HEADER.match(found[i].lines[0]) if _is_bare_line(found[i]) else None
        rows = _rows_under(found, i) if header and column_unit(header.group("unit")) else []
        if header is None or sum(row.block == found[i].block for row, _ in rows) < MIN_ROWS:
            i += 1
            continue
        found[i].kind = "title"
        for row, (label, value) in rows:
            row.kind, row.lines = "bullet", [f"{label} · {header.group('column')}: {value}" if label else value]
        i += len(rows) + 1


def _rows_under(found: list[Unit], at: int) -> list[tuple[Unit, tuple[str, str]]]:
    """The one-line units after ``found[at]`` that end in a bare number, up to the first that does not."""
    rows = []
    for unit in found[at + 1:]:
        value = _ROW_VALUE.search(unit.lines[0]) if unit.kind == "text" and len(unit.lines) == 1 else None
        if value is None:
            break
        rows.append((unit, (_row_label(unit.lines[0][:value.start()]), value.group("value"))))
    return rows


def _row_label(text: str) -> str:
    """A row's label without the leader a scan reads between it and its value ("per metre : a", "cleaning -_ 7")."""
    words = text.split()
    while words and (not any(c.isalnum() for c in words[-1]) or len(words[-1]) == 1 and (
            words[-1].lower() in DANGLING or len(words) > 1 and not any(c.isalnum() for c in words[-2]))):
        words.pop()
    return " ".join(words).rstrip(".,:;-–—_ ")


def ends_dangling(line: str) -> bool:
    """Whether ``line`` ends on a function word (see :data:`DANGLING`): the sentence goes on past it."""
    words = line.split()
    return bool(words) and words[-1].lower() in DANGLING


def _leader_row(line: str) -> str:
    """``label: value`` for a line whose label and value a dot leader joins, else ""."""
    parts = _LEADER.split(line, maxsplit=1)
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
        return ""
    return f"{parts[0].strip().rstrip(':')}: {parts[1].strip()}"


def _continues(unit: Unit, line: str, width: int, above: str) -> bool:
    """Whether ``line`` carries on the unit above it rather than starting a new one.

    ``width`` is the width the text fills (see :func:`_fill_width`) and ``above`` the line above as written: the unit
    keeps it less a run-in heading or a clause number, which made no room on the line.
    """
    stripped = line.strip()
    previous = unit.lines[-1]
    if _LABEL.match(line) or (_LABELLED_NUMBER.search(stripped) and _LABELLED_NUMBER.search(previous)):
        return False  # "Fix: …"; "Letters up to 100 g: Rs. 60" over "… to 250 g: Rs. 95": a form's or price list's lines
    if unit.kind == "text" and _ended_short(above, stripped, width):
        return False  # "pack: / a dry bag / gloves with a firm grip": items, however they begin
    if not stripped.lstrip("'‘’\"“”")[:1].isupper():
        return True  # lowercase, a digit or punctuation: the sentence goes on
    if unit.kind == "bullet":
        # Only an indented line belongs to a bullet; a flush one after it is new text.
        return line[:1].isspace() and previous[-1:] not in TERMINAL
    if previous[-1:] in TERMINAL:
        return True  # joined prose is split into sentences again later
    if ends_dangling(previous):
        return True  # "… before the / Harbour Master locks …": no item ends on a function word
    if stripped[-1:] not in TERMINAL and previous[:1].isupper() and (len(stripped) < WRAP_CHARS
                                                                     or _opens_item(stripped)):
        # Both lines unpunctuated, the new one short and capitalised: rows of a scan or a slide, one
        # item each ("Sheds may be no taller than 2.2 metres"), not a sentence wrapped onto a second line.
        return False
    return len(previous) >= WRAP_CHARS


def _fill_width(raw: list[str]) -> int:
    """The width the text's lines fill: the length four lines in five stay within, so that one over-long line (a
    table's, a garbled OCR line's) does not make every wrapped line look short."""
    lengths = sorted(len(line.strip()) for line in raw if line.strip() and not ROW.match(line))
    return lengths[(len(lengths) * 4) // 5] if lengths else 0


def _ended_short(previous: str, line: str, width: int) -> bool:
    """Whether the writer ended ``previous`` without punctuation where the wrap did not: ``line``'s first word would
    have fitted on it (see :data:`FILL`).  Only text wrapped at a width (at least :data:`WRAP_CHARS`) tells; a line
    ending in a comma, a dash or a function word goes on whatever its length, and so does one before a line opening
    with a number ("… for the last / 3 years", a letterhead's "Sailing Section / 14 Quay Road")."""
    if width < WRAP_CHARS or not line[:1].isalpha() or previous[-1:] in TERMINAL + ",-–—(" or ends_dangling(previous):
        return False
    return len(previous) + 1 + len(line.split(maxsplit=1)[0]) <= FILL * width


def _opens_item(line: str) -> bool:
    """Whether a capitalised line after an unpunctuated one opens a new item of a list rather than going on with it.

    A sentence wrapped onto the next line goes on with a lowercase word, after a function word (see
    :func:`_continues`), or with a name ("… the harbours of / Rosslare"); an item of a list whose lines have no
    final punctuation opens with a common word written with a capital ("Trailers must be chained to the rail").
    """
    first = re.match(r"[A-Za-z]+", line)
    return first is not None and lexicon().knows(first.group(0))


def _names_only(run_in: str) -> bool:
    """Whether a run-in heading's words name a topic: "Every case must carry a tag." says something, so it is a
    sentence, not the heading of the ones after it; "What is not covered." asks what they say."""
    said = run_in.lower().rstrip(".").split()
    return said[0] in _WH_WORDS or not any(word in _AUXILIARIES for word in said)


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
    for unit, below in zip(units, units[1:], strict=False):
        # "3. Boats" over "3.1 Members may take out …", "3.3 Oars and boat hooks" over "3.3.1 …": a numbered
        # section's name heads its clauses.
        if (unit.kind in ("bullet", "text") and unit.numbered
                and below.numbered.startswith(unit.numbered.rstrip(".") + ".")
                and len(below.numbered) > len(unit.numbered) and _is_bare_text(unit.lines)
                and _heading_shaped(unit.lines[0])):
            unit.kind = "title"
    i = 0
    while i < len(units):
        if not _is_bare_line(units[i]):
            i += 1
            continue
        j = i
        while j + 1 < len(units) and units[j + 1].block == units[i].block and _is_bare_line(units[j + 1]):
            j += 1
        after = units[j + 1] if j + 1 < len(units) else None
        if j == i and after is not None and not _is_bare_line(after) and _heading_shaped(units[i].lines[0]):
            units[i].kind = "title"
        i = j + 1


def _is_bare_line(unit: Unit) -> bool:
    # A numbered clause of a sentence's length says something ("1.3 A club double seats two"); a short one names
    # its section ("1.1 Definitions").
    clause = bool(unit.numbered) and len(unit.lines[0].split()) >= MIN_WORDS
    return unit.kind == "text" and not clause and _is_bare_text(unit.lines)


def _is_bare_text(lines: list[str]) -> bool:
    """One short line without final punctuation that is no labelled value: a list item's or a heading's shape."""
    line = lines[0]
    return (len(lines) == 1 and len(line) < WRAP_CHARS and line[-1:] not in TERMINAL and not _LABEL.match(line)
            and not _LABELLED_NUMBER.search(line) and not _LABELLED_WORD.search(line))


def _heading_shaped(line: str) -> bool:
    """One phrase that names a section: short, or with no verb ("Lost oars are kept in the shed" says a fact)."""
    if SENTENCE_GAP.search(line):
        return False
    tokens = re.findall(r"[a-z]+", line.lower())
    return len(tokens) <= MAX_HEADING_WORDS or not any(t in _AUXILIARIES or lexicon().usual_part(t) == "v"
                                                       for t in tokens)


def _is_shouting(line: str) -> bool:
    # Nine capitals in ten: a title in capitals keeps its "No." ("TESTING STATION No. 4").
    letters = [c for c in line if c.isalpha()]
    return len(letters) >= 8 and sum(c.isupper() for c in letters) >= 0.9 * len(letters)
