"""Text formats (.txt, .md, .csv, .html): decoded here, so encodings are never guessed by markitdown."""

from __future__ import annotations

import csv
import io

from ragwire.errors import LoaderError
from ragwire.loaders.base import names_columns, reason, table_row, table_rule, tidy_text, title_lines
from ragwire.loaders.guard import raised_outside_ragwire
from ragwire.loaders.text import declared_html_charset, decode_bytes

_HTML = (".html", ".htm")
_DELIMITERS = (",", ";", "\t", "|")
_SNIFF_LINES = 20


def load_plain(data: bytes, ext: str, name: str) -> str:
    """Turn the bytes of a text-format file into text (markdown for CSV and HTML).

    Args:
        data: The file's bytes.
        ext: Its lowercase extension with the dot.
        name: The file name, for error messages.

    Raises:
        LoaderError: the HTML converter failed.
    """
    if ext in _HTML:
        html = decode_bytes(data, declared=declared_html_charset(data))
        try:
            return html_to_markdown(html)
        except Exception as exc:  # noqa: BLE001 — bs4/markdownify fail in many ways on broken markup
            if not raised_outside_ragwire(exc):
                raise  # a bug of ours, not broken markup
            raise LoaderError(f"{name}: could not convert HTML ({reason(exc)}) — check the markup") from exc
    text = normalize_newlines(decode_bytes(data))
    if ext == ".csv":
        return csv_to_markdown(text)
    return text


def normalize_newlines(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` become ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def html_to_markdown(html: str) -> str:
    """Convert already-decoded HTML with markitdown's HTML converter (scripts and styles dropped)."""
    from markitdown.converters import HtmlConverter  # markitdown costs ~1.5 s to import

    return tidy_text(HtmlConverter().convert_string(html).markdown)


def csv_to_markdown(text: str) -> str:
    """Render CSV as a markdown table; text that does not parse as CSV is returned unchanged.

    The first row naming two columns or more is the header; rows above it that fill one cell
    at most are a title (a sheet exported to CSV keeps the title row over its header): the
    first heads the table, the rest are lines under it.  Short rows are padded; ``|`` in
    cells is escaped.
    """
    try:
        delimiter = _guess_delimiter(text)
        rows = [row for row in csv.reader(io.StringIO(text), delimiter=delimiter) if any(cell.strip() for cell in row)]
    except csv.Error:
        return text
    if not rows:
        return text
    header = next((n for n, row in enumerate(rows) if names_columns(row)), 0)
    # Trailing empty cells make no column (a title row's commas run to the sheet's last column).
    width = max(len(_trimmed(row)) for row in rows[header:])

    def line(cells: list[str]) -> str:
        cells = _trimmed(cells)
        return table_row([_cell(cell) for cell in cells] + [""] * (width - len(cells)))

    titles = [" ".join(_cell(cell) for cell in row if cell.strip()) for row in rows[:header]]
    table = [*title_lines(titles), line(rows[header]), table_rule(width)]
    table.extend(line(row) for row in rows[header + 1:])
    return "\n".join(table)


def _guess_delimiter(text: str) -> str:
    """The delimiter that splits the first lines into the same number (> 1) of fields most often.

    csv.Sniffer is thrown off by short rows and by candidate delimiters inside cells.
    """
    lines = [line for line in text.splitlines()[:_SNIFF_LINES] if line.strip()]
    best, best_score = ",", (0, 0)
    for delimiter in _DELIMITERS:
        counts = [len(row) for row in csv.reader(lines, delimiter=delimiter)]
        usual = max(sorted(set(counts)), key=counts.count) if counts else 0
        score = (counts.count(usual), usual)
        if usual > 1 and score > best_score:
            best, best_score = delimiter, score
    return best


def _trimmed(row: list[str]) -> list[str]:
    end = len(row)
    while end > 1 and not row[end - 1].strip():
        end -= 1
    return row[:end]


def _cell(value: str) -> str:
    return " ".join(value.split()).replace("|", "\\|")
