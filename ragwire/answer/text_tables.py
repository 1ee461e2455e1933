"""Tables typed in plain text: columns aligned by spaces, the header ruled off by runs of dashes.

A text file or a PDF's monospaced page prints a table as

    Size   Area    Price
    ----   -----   -------
    S      2 m2    40 EUR

Read line by line, a row is a string of words in which "S" and "40 EUR" are no longer one
fact.  The rule's runs of dashes say where each column starts; the header and the rows are cut
there and written as a markdown table, which :mod:`.layout` reads as any other (each row then
reads ``Size: S · Area: 2 m2 · Price: 40 EUR``).
"""

from __future__ import annotations

import re

# Two or more runs of dashes (or equals signs) apart: the rule under a text table's header.  One run alone is an
# underline, which makes a heading.
_RULE = re.compile(r"^\s*[-=]{2,}(?:\s+[-=]{2,})+\s*$")
_RUN = re.compile(r"[-=]{2,}")


def as_markdown(lines: list[str]) -> list[str]:
    """``lines`` with each text table (a header, a rule of dash runs, then rows cut at the same columns) written as a
    markdown table; a row that does not fit the columns (a word across a column's start) ends the table."""
    out = list(lines)
    for at, line in enumerate(lines):
        if at == 0 or not _RULE.match(line) or not lines[at - 1].strip():
            continue
        starts = [m.start() for m in _RUN.finditer(line)]
        header = _cut(lines[at - 1], starts)
        if header is None or sum(bool(cell) for cell in header) < 2:
            continue
        out[at - 1] = _row(header)
        out[at] = "|" + " --- |" * len(starts)
        for below in range(at + 1, len(lines)):
            cells = _cut(lines[below], starts) if lines[below].strip() else None
            if cells is None or not cells[0] and sum(bool(c) for c in cells) < 2:
                break
            out[below] = _row(cells)
    return out


def _cut(line: str, starts: list[int]) -> list[str] | None:
    """The cells of ``line`` cut at ``starts``, or None when a word runs across a column's start."""
    if any(0 < s < len(line) and not line[s - 1].isspace() and not line[s].isspace() for s in starts[1:]):
        return None
    bounds = [0, *starts[1:], len(line)]
    return [line[a:b].strip() for a, b in zip(bounds, bounds[1:], strict=False)]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"
