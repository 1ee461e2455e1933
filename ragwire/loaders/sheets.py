"""A workbook's tables as markitdown writes them, made to read as the sheet does.

markitdown hands each sheet to pandas, which takes the sheet's first row as the column
names.  Sheets people make often open with a title row (merged across the columns) and a
blank line above the real header, so every column but the first came out "Unnamed: 2"
and the header row sat in the body as data: a price then had no column name to pair it
with.  Empty cells came out "NaN", and whole numbers in a column with a gap "4.0".
"""

from __future__ import annotations

import re
import unicodedata

from ragwire.loaders.base import TABLE_RULE, names_columns, table_row, table_rule, title_lines

# pandas names a column whose header cell is empty "Unnamed: <position>".
_UNNAMED = re.compile(r"Unnamed: \d+(?:\.\d+)?")
# How pandas writes a cell with no value (NaT: an empty cell in a column of dates).
_MISSING = frozenset({"NaN", "nan", "NaT", "None"})
# A whole number pandas turned into a float because its column has a gap; a workbook
# stores 4 and 4.0 alike, so nothing the sheet shows is lost.
_WHOLE_FLOAT = re.compile(r"^(-?\d+)\.0$")


def tidy_sheet_tables(markdown: str) -> str:
    """``markdown`` with each sheet table's title rows lifted out (the first as a heading) and its empty cells empty."""
    lines = markdown.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        if index + 1 < len(lines) and lines[index].startswith("|") and TABLE_RULE.match(lines[index + 1].strip()):
            end = index + 2
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            width = lines[index + 1].count("|") - 1
            out.extend(_tidy_table(lines[index], lines[index + 2 : end], width))
            index = end
        else:
            out.append(lines[index])
            index += 1
    return "\n".join(out)


def _tidy_table(header_line: str, body_lines: list[str], width: int) -> list[str]:
    header = _cells(header_line, width)
    if header is None:  # a cell held " | " itself: leave the table as markitdown wrote it
        return [header_line, table_rule(width), *body_lines]
    unnamed = [bool(_UNNAMED.fullmatch(cell)) for cell in header]
    header = ["" if blank else _value(cell) for cell, blank in zip(header, unnamed, strict=True)]
    rows: list[list[str] | str] = []
    for line in body_lines:
        cells = _cells(line, width)
        rows.append(line if cells is None else [_value(cell) for cell in cells])
    # A row of nothing but empty cells is dropped, unless it parts a second table from the first (see _tables).
    rows = [row for n, row in enumerate(rows) if any(row) or _blank_before_header(rows, n)]
    titles: list[str] = []
    if any(unnamed) and not names_columns(header):
        # The header pandas chose is a title row.  The sheet's own header is the first
        # row that names two columns or more; rows before it are titles too.
        first = next((n for n, row in enumerate(rows) if isinstance(row, list) and names_columns(row)), None)
        if first is not None:
            for row in [header, *rows[:first]]:
                text = " ".join(cell for cell in row if cell) if isinstance(row, list) else row
                if text:
                    titles.append(text)
            new_header = rows[first]
            assert isinstance(new_header, list)
            header, rows = new_header, rows[first + 1 :]
    return [*title_lines(titles), *_tables(header, rows, width)]


def _blank_before_header(rows: list[list[str] | str], n: int) -> bool:
    """Whether ``rows[n]`` is an empty row with a header of a table of its own under it (see :func:`_tables`)."""
    row, below = rows[n], rows[n + 1] if n + 2 < len(rows) else None
    return isinstance(row, list) and not any(row) and isinstance(below, list) and _heads_columns(below)


def _tables(header: list[str], rows: list[list[str] | str], width: int) -> list[str]:
    """The table under ``header``, and a second one under it where an empty row stands before a header of its own
    ("Name | Role | Phone" under the opening hours): its rows pair with its own column names, not the first's."""
    cut = next((n for n, row in enumerate(rows) if isinstance(row, list) and not any(row)), None)
    mine = rows if cut is None else rows[:cut]
    lines = [table_row(header), table_rule(width), *(row if isinstance(row, str) else table_row(row) for row in mine)]
    if cut is None:
        return lines
    second = rows[cut + 1]
    assert isinstance(second, list)
    return [*lines, "", *_tables(second, rows[cut + 2:], width)]


def _heads_columns(cells: list[str]) -> bool:
    """Whether a row reads as a header: two cells or more filled, each a short name with no figure in it."""
    filled = [cell for cell in cells if cell]
    return len(filled) >= 2 and all(len(cell.split()) <= 3 and not any(_figure(c) for c in cell) for cell in filled)


def _figure(char: str) -> bool:
    """A digit or a currency sign: a header names its columns, it gives no figure."""
    return char.isdigit() or unicodedata.category(char) == "Sc"


def _cells(line: str, width: int) -> list[str] | None:
    inner = line.strip()
    if not (inner.startswith("|") and inner.endswith("|")):
        return None
    cells = [cell.strip() for cell in inner[1:-1].split(" | ")]
    return cells if len(cells) == width else None


def _value(cell: str) -> str:
    if cell in _MISSING:
        return ""
    whole = _WHOLE_FLOAT.match(cell)
    return whole.group(1) if whole else cell

