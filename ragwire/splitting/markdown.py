"""Markdown structure: ATX headings (``#`` … ``######``) outside fenced code blocks."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class Section:
    """A heading and the text under it, up to the next heading of any tracked level.

    Attributes:
        level: 1-6 for ``#`` … ``######``; 0 for text before the first heading.
        title: The heading text (``""`` for an empty heading), ``None`` when ``level`` is 0.
        text: The section's text, heading line included.
    """

    level: int
    title: str | None
    text: str


def split_sections(text: str, max_level: int = 6) -> list[Section]:
    """Cut markdown at headings of level ``max_level`` or shallower.

    Lines inside fenced code blocks (``` or ~~~) never count as headings, so a
    ``# comment`` in a shell snippet stays in its section.  Concatenating the
    sections' texts gives back the input.  Text before the first heading, if
    there is any (whitespace counts), becomes a level-0 section.
    """
    sections: list[Section] = []
    level, title, lines = 0, None, []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if fence is not None:
            if _closes(bare, fence):
                fence = None
            lines.append(line)
            continue
        opened = _FENCE_OPEN.match(bare)
        if opened:
            fence = opened.group(1)
            lines.append(line)
            continue
        heading = _HEADING.match(bare)
        if heading and len(heading.group(1)) <= max_level:
            if lines or level:
                sections.append(Section(level, title, "".join(lines)))
            level, title, lines = len(heading.group(1)), _clean_title(heading.group(2) or ""), []
        lines.append(line)
    if lines or level or not sections:
        sections.append(Section(level, title, "".join(lines)))
    return sections


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return (
        len(line) - len(line.lstrip(" ")) <= 3
        and len(stripped) >= len(fence)
        and set(stripped) == {fence[0]}
    )


def _clean_title(raw: str) -> str:
    return _CLOSING_HASHES.sub("", raw.strip()).strip()
