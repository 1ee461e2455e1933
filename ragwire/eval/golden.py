"""Golden sets: queries paired with the documents that should come back, read from YAML or JSON."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import GoldenSetError, NotFoundError, did_you_mean
from .metrics import MISS

MatchMode = Literal["basename", "exact", "contains"]
MATCH_MODES: tuple[str, ...] = ("basename", "exact", "contains")

_ENTRY_KEYS = ("query", "expected", "filters", "note", "answerable", "contains", "parts", "tags")
_PART_KEYS = ("question", "expected", "contains", "answerable", "note")
_SET_KEYS = ("queries", "match_field", "match_mode")
_SUFFIXES = (".yaml", ".yml", ".json")


def _did_you_mean(key: str, known: tuple[str, ...]) -> str:
    return did_you_mean(key, known) or f" (known keys: {', '.join(known)})"


@dataclass(frozen=True)
class GoldenEntry:
    """One golden query.

    ``expected`` holds the identifiers that count as a correct hit, compared with the
    set's ``match_field``.  ``answerable=False`` marks a question the documents cannot
    answer: it has no ``expected``, is left out of retrieval averages, and a refusal
    is the right answer to it.
    """

    query: str
    expected: tuple[str, ...] = ()
    filters: dict[str, Any] | None = None
    note: str | None = None
    answerable: bool = True
    # Answer-level keys: the answer states the fact when any one ``contains`` string occurs
    # in it (case-insensitive, whitespace collapsed); ``parts`` split a multi-part question.
    contains: tuple[str, ...] = ()
    parts: tuple[GoldenPart, ...] = ()
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class GoldenPart:
    """One part of a multi-part golden question.

    ``answerable=False`` marks a part the documents cannot answer: the right answer
    names it as not covered instead of filling it with a near-topic sentence.
    """

    question: str
    expected: tuple[str, ...] = ()
    contains: tuple[str, ...] = ()
    answerable: bool = True
    note: str | None = None


@dataclass(frozen=True)
class GoldenSet:
    """The queries to score, and how a retrieved chunk's metadata is matched to ``expected``.

    Args:
        entries: The golden queries, in file order.
        match_field: Metadata field compared with ``expected`` (default ``source``).
        match_mode: ``basename`` compares file names (the path's last part on both sides),
            ``exact`` whole strings, ``contains`` finds the expected id inside the value.

    Raises:
        ValueError: an unknown ``match_mode`` or an empty ``match_field``.
    """

    entries: tuple[GoldenEntry, ...]
    match_field: str = "source"
    match_mode: MatchMode = "basename"
    path: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.match_mode not in MATCH_MODES:
            hint = _did_you_mean(str(self.match_mode), MATCH_MODES)
            modes = ", ".join(MATCH_MODES)
            raise ValueError(self._where(f"match_mode: {self.match_mode!r} is not one of {modes}{hint}"))
        if not isinstance(self.match_field, str) or not self.match_field.strip():
            raise ValueError(self._where("match_field: must be a non-empty metadata field name"))
        object.__setattr__(self, "entries", tuple(self.entries))

    def _where(self, message: str) -> str:
        return f"{self.path}: {message}" if self.path else message

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[GoldenEntry]:
        return iter(self.entries)

    # -- matching ----------------------------------------------------------------------------
    def matches(self, value: object, expected_id: str) -> bool:
        """Whether a metadata value counts as the document ``expected_id`` under this set's mode."""
        if value is None:
            return False
        text = str(value)
        if self.match_mode == "exact":
            return text == expected_id
        if self.match_mode == "contains":
            return expected_id in text
        # basename: both sides, so "docs/guide.md" in a golden file matches "/abs/docs/guide.md"
        return _basename(text) == _basename(expected_id)

    def identify(self, metadata: Mapping[str, Any], expected: tuple[str, ...] | list[str]) -> str:
        """The expected id a retrieved chunk's metadata matches (the first, in order), else ``"<miss>"``."""
        value = metadata.get(self.match_field)
        for expected_id in expected:
            if self.matches(value, expected_id):
                return expected_id
        return MISS

    # -- loading -----------------------------------------------------------------------------
    @classmethod
    def from_file(cls, path: str | Path) -> GoldenSet:
        """Load a golden set from a ``.yaml``, ``.yml`` or ``.json`` file.

        Raises:
            NotFoundError: the file does not exist (a FileNotFoundError).
            GoldenSetError: the file cannot be parsed, or an entry is invalid; the message
                starts with the path and names the entry number (counted from 1).
        """
        where = str(path)
        path = Path(path)
        if not path.is_file():
            raise NotFoundError(f"{where}: golden set not found")
        if path.suffix.lower() not in _SUFFIXES:
            raise GoldenSetError(f"{where}: a golden set is a .yaml, .yml or .json file")
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".json":
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise GoldenSetError(f"{where}: not valid JSON: {exc.msg} (line {exc.lineno})") from exc
        else:
            import yaml

            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                problem = getattr(exc, "problem", None)
                at = f" (line {mark.line + 1})" if mark is not None else ""
                raise GoldenSetError(f"{where}: not valid YAML{': ' + problem if problem else ''}{at}") from exc
        return cls._parse(data, where)

    @classmethod
    def from_data(cls, data: object) -> GoldenSet:
        """Build a golden set from already-parsed data: a list of entries, or a mapping with ``queries``.

        Raises:
            GoldenSetError: as :meth:`from_file`, without the path.
        """
        return cls._parse(data, None)

    @classmethod
    def _parse(cls, data: object, where: str | None) -> GoldenSet:
        def fail(message: str) -> GoldenSetError:
            return GoldenSetError(f"{where}: {message}" if where else message)

        options: dict[str, Any] = {}
        if isinstance(data, Mapping):
            for key in data:
                if key not in _SET_KEYS:
                    raise fail(f"{key}: unknown key{_did_you_mean(str(key), _SET_KEYS)}")
            if "queries" not in data:
                raise fail("no queries: list the golden queries under a queries: key")
            options = {k: data[k] for k in ("match_field", "match_mode") if k in data}
            data = data["queries"]
        if not isinstance(data, list):
            raise fail("expected a list of queries, or a mapping with a queries: list")
        if not data:
            raise fail("the golden set has no queries")
        entries = [_parse_entry(raw, number, fail) for number, raw in enumerate(data, 1)]
        try:
            return cls(tuple(entries), path=where, **options)
        except ValueError as exc:
            raise GoldenSetError(str(exc)) from None


def _basename(text: str) -> str:
    # s3://bucket/a/b.pdf and Windows-style paths end in a file name too
    return os.path.basename(text.replace("\\", "/").rstrip("/"))


# Makes the error a malformed entry or part raises, its place in the file prefixed.
_Fail = Callable[[str], GoldenSetError]


def _parse_entry(raw: object, number: int, fail: _Fail) -> GoldenEntry:
    def bad(message: str) -> GoldenSetError:
        return fail(f"entry {number}: {message}")

    if not isinstance(raw, Mapping):
        raise bad("must be a mapping with query: and expected:")
    for key in raw:
        if key not in _ENTRY_KEYS:
            raise bad(f"{key}: unknown key{_did_you_mean(str(key), _ENTRY_KEYS)}")
    query = raw.get("query")
    if not isinstance(query, str) or not query.strip():
        raise bad("query: must be a non-empty question")
    answerable = raw.get("answerable", True)
    if not isinstance(answerable, bool):
        raise bad("answerable: must be true or false")
    if answerable and "expected" not in raw:
        raise bad("missing key 'expected' (list the documents that answer it, or set answerable: false)")
    expected = _expected(raw.get("expected"), bad)
    if answerable and not expected:
        raise bad("expected: is empty (list at least one document, or set answerable: false)")
    if not answerable and expected:
        raise bad("expected: an entry with answerable: false has no expected documents")
    filters = raw.get("filters")
    if filters is not None and not isinstance(filters, Mapping):
        raise bad("filters: must be a mapping of field to value, e.g. {file_type: pdf}")
    note = raw.get("note")
    if note is not None and not isinstance(note, str):
        raise bad("note: must be text")
    return GoldenEntry(query=query.strip(), expected=expected, filters=dict(filters) if filters else None,
                       note=note, answerable=answerable, contains=_strings(raw.get("contains"), "contains", bad),
                       parts=_parts(raw.get("parts"), bad), tags=_strings(raw.get("tags"), "tags", bad))


def _strings(value: object, key: str, bad: _Fail) -> tuple[str, ...]:
    """``contains:`` and ``tags:``: a string or a list of non-empty strings (numbers read as text)."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (str, int, float)) or not str(item).strip():
            raise bad(f"{key}: {item!r} is not a non-empty string")
        out.append(str(item).strip())
    return tuple(out)


def _parts(value: object, bad: _Fail) -> tuple[GoldenPart, ...]:
    """``parts:``: a list of mappings with ``question`` and either ``expected`` + ``contains`` or ``answerable: false``."""
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        raise bad("parts: must be a non-empty list of mappings with question:")
    parts = []
    for n, raw in enumerate(value, 1):
        def part_bad(message: str, n: int = n) -> GoldenSetError:
            return bad(f"parts[{n}]: {message}")

        if not isinstance(raw, Mapping):
            raise part_bad("must be a mapping with question:")
        for key in raw:
            if key not in _PART_KEYS:
                raise part_bad(f"{key}: unknown key{_did_you_mean(str(key), _PART_KEYS)}")
        question = raw.get("question")
        if not isinstance(question, str) or not question.strip():
            raise part_bad("question: must be a non-empty question")
        answerable = raw.get("answerable", True)
        if not isinstance(answerable, bool):
            raise part_bad("answerable: must be true or false")
        expected = _expected(raw.get("expected"), part_bad)
        if answerable and not expected:
            raise part_bad("expected: list the documents that answer this part, or set answerable: false")
        note = raw.get("note")
        if note is not None and not isinstance(note, str):
            raise part_bad("note: must be text")
        parts.append(GoldenPart(question.strip(), expected, _strings(raw.get("contains"), "contains", part_bad),
                                answerable, note))
    return tuple(parts)


def _expected(value: object, bad: _Fail) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    ids = []
    for item in items:
        # numbers are fine ids (a year field); booleans and mappings are mistakes
        if isinstance(item, bool) or not isinstance(item, (str, int, float)) or not str(item).strip():
            raise bad(f"expected: {item!r} is not a document identifier (use a file name or a list of them)")
        ids.append(str(item).strip())
    return tuple(dict.fromkeys(ids))
