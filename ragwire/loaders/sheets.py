"""A workbook's tables as markitdown writes them, made to read as the sheet does.

markitdown hands each sheet to pandas, which takes the sheet's first row as the column
names.  Sheets people make often open with a title row (merged across the columns) and a
blank line above the real header, so every column but the first came out "Unnamed: 2"
and the header row sat in the body as data: a price then had no column name to pair it
with.  Empty cells came out "NaN", and whole numbers in a column with a gap "4.0".
"""

from __future__ import annotations

import re

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
        if cells is None:
            rows.append(line)
            continue
        cells = [_value(cell) for cell in cells]
        if any(cells):
            rows.append(cells)
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
    lines = [*title_lines(titles), table_row(header), table_rule(width)]
    lines.extend(row if isinstance(row, str) else table_row(row) for row in rows)
    return lines


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

