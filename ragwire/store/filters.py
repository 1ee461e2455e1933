"""Engine-neutral filters: user filter dicts → a small condition tree each engine translates.

String matching is case-insensitive: string values are compared against a
lower-cased shadow copy of the metadata kept in the ``_ci`` payload key.  Given the
collection's known fields, a filter on a field no chunk has, or a value that cannot
be read as the field's type, is an error rather than a silently empty result.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from ..errors import ConfigError
from ..fields import UNINDEXED_FIELDS
from .timestamps import rfc3339

# Payload layout shared by both engines.
TEXT_KEY = "page_content"
META_KEY = "metadata"
CI_KEY = "_ci"
STATE_KEY = "_state"
RUN_KEY = "_run"
KIND_KEY = "_kind"

STATE_COMPLETE = "complete"
STATE_PENDING = "pending"

_RANGE_OPS = ("gte", "gt", "lte", "lt")


@dataclass(frozen=True)
class Cond:
    """One condition on a payload path: one of ``value``, ``any_of``, ``range`` (numbers), ``dates`` (RFC 3339)."""

    key: str
    value: Any = None
    any_of: tuple | None = None
    range: Mapping[str, float] | None = None
    dates: Mapping[str, str] | None = None


@dataclass
class Filter:
    must: list[Cond | Filter] = field(default_factory=list)
    should: list[Cond | Filter] = field(default_factory=list)
    must_not: list[Cond | Filter] = field(default_factory=list)

    def and_(self, other: Filter | None) -> Filter:
        """Points matching both; every clause of ``self`` (``should`` and ``must_not`` too) is kept."""
        if other is None:
            return self
        return Filter(must=[*self.must, other], should=list(self.should), must_not=list(self.must_not))


def visible() -> Filter:
    """Points a reader may see: finished chunks, never pending ones or the meta point."""
    return Filter(must=[Cond(STATE_KEY, value=STATE_COMPLETE)])


def meta_path(key: str) -> str:
    return f"{META_KEY}.{key}"


def ci_path(key: str) -> str:
    return f"{CI_KEY}.{key}"


def lowercase_shadow(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The ``_ci`` payload: every string (or list of strings) value, lower-cased."""
    shadow: dict[str, Any] = {}
    for key, value in metadata.items():
        if isinstance(value, str):
            shadow[key] = value.lower()
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
            shadow[key] = [v.lower() for v in value]
    return shadow


# Stored with every chunk but never indexed (the same set collection.ensure_indexes skips): still filterable.
UNINDEXED_KEYS = UNINDEXED_FIELDS

# index kind → (one value, the field holds …)
_KIND_WORDS = {
    "integer": ("an integer", "integers"),
    "float": ("a number", "numbers"),
    "bool": ("true or false", "booleans"),
    "keyword": ("a string", "strings"),
}
_NOT_CONVERTIBLE = object()


def known_fields(indexes: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """Metadata field → the kinds stored for it, from a collection's payload indexes.

    Writes index metadata keys (strings as keywords on ``metadata.<key>`` and ``_ci.<key>``,
    numbers and booleans on ``metadata.<key>``), but only the keys of the first chunk of
    each write: a field missing here may still be stored, so callers look it up in the chunks.
    """
    kinds: dict[str, set[str]] = {}
    for path, kind in indexes.items():
        for prefix in (META_KEY + ".", CI_KEY + "."):
            if path.startswith(prefix):
                found = kinds.setdefault(path[len(prefix):], set())
                kind = kind if prefix == META_KEY + "." else "keyword"
                if kind in _KIND_WORDS:  # another kind (text, datetime) was made by hand: no conversion
                    found.add(kind)
    return {key: frozenset(found) for key, found in kinds.items()}


def value_kind(value: object) -> str | None:
    """The index kind a stored metadata value gets (the first item decides for a list)."""
    sample = value[0] if isinstance(value, (list, tuple)) and value else value
    if isinstance(sample, bool):
        return "bool"
    if isinstance(sample, int):
        return "integer"
    if isinstance(sample, float):
        return "float"
    if isinstance(sample, str):
        return "keyword"
    return None


def field_name(key: str) -> str:
    """The metadata field a filter key names: ``"metadata.year"`` and ``"year"`` are both ``"year"``."""
    return key[len(META_KEY) + 1 :] if key.startswith(META_KEY + ".") else key


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_FLOAT_MAX = 1.7976931348623157e308


def _problem(key: str, message: str) -> ConfigError:
    return ConfigError(f"filters.{key}: {message}", source="filters")


def _fits(value: object, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, float)
    if kind == "bool":
        return isinstance(value, bool)
    return isinstance(value, str)


def _convert(value: object, kind: str) -> Any:
    """``value`` as ``kind`` when only one reading is possible, else ``_NOT_CONVERTIBLE``."""
    if isinstance(value, bool):
        # True is an int to Python, but 1 for an integer field or "True" for a string is a guess
        return _NOT_CONVERTIBLE
    text = value.strip() if isinstance(value, str) else None
    if kind == "integer":
        if text is not None and re.fullmatch(r"[+-]?\d+", text):
            return int(text)
        if isinstance(value, float) and value.is_integer():
            return int(value)
    elif kind == "float":
        if isinstance(value, int):
            return float(value)
        if text is not None:
            number = finite_number(text)
            if number is not None:
                return float(number)
    elif kind == "bool":
        if text is not None and text.lower() in ("true", "false"):
            return text.lower() == "true"
    # A number is never read as a string: {"title": 5} matched the text "5" and quietly found
    # nothing.  Text the other way is read (a CLI flag or an LLM writes "2024" for a number).
    return _NOT_CONVERTIBLE


def finite_number(value: object) -> float | None:
    """A finite number from a number or a numeric string; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _coerce(key: str, value: object, kinds: frozenset[str] | None) -> Any:
    """``value`` in the type the field is stored as; an error when it cannot be read that way."""
    if not kinds:  # nothing known about the field: compare as given
        return value
    ordered = sorted(kinds, key=list(_KIND_WORDS).index)
    if any(_fits(value, kind) for kind in ordered):
        return value
    for kind in ordered:
        converted = _convert(value, kind)
        if converted is not _NOT_CONVERTIBLE:
            return converted
    one = " or ".join(_KIND_WORDS[k][0] for k in ordered)
    shown = repr(value) if isinstance(value, (str, bool, int, float)) else type(value).__name__
    raise _problem(key, f"{shown} is not {one} (the field holds {_held(kinds)})")


def _held(kinds: frozenset[str]) -> str:
    return " and ".join(_KIND_WORDS[k][1] for k in sorted(kinds, key=list(_KIND_WORDS).index))


def _scalar_cond(key: str, value: object) -> Cond:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            # A shell argument with bytes that are not UTF-8 arrives with surrogate escapes.
            shown = value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            raise _problem(key, f"'{shown}' is not valid UTF-8 text; stored text is UTF-8") from None
        return Cond(ci_path(key), value=value.lower())
    if isinstance(value, bool):
        return Cond(meta_path(key), value=value)
    if isinstance(value, int):
        _check_value(key, value)  # a converted "2024…" string can be past 64 bits too
        return Cond(meta_path(key), value=value)
    if isinstance(value, float):
        # An exact float match is a range of width zero: MatchValue takes no floats.
        return Cond(meta_path(key), range={"gte": value, "lte": value})
    raise _problem(key, f"unsupported value {value!r} (use a string, number, bool, list, "
                        "or a range like {'gte': 1, 'lte': 5})")


def _range_cond(key: str, bounds: Mapping[str, Any], kinds: frozenset[str] | None) -> Cond:
    unknown = set(bounds) - set(_RANGE_OPS)
    if unknown or not bounds:
        raise _problem(key, f"a range takes only gte/gt/lte/lt (got {sorted(bounds) or 'nothing'})")
    numeric = bool(kinds and kinds & {"integer", "float"})
    if not numeric and any(isinstance(b, str) and finite_number(b) is None for b in bounds.values()):
        return _date_cond(key, bounds, kinds)
    if kinds and not numeric:
        raise _problem(key, f"a range needs a numeric field (the field holds {_held(kinds)}); match values instead")
    numbers = {}
    for op, bound in bounds.items():
        number = finite_number(bound)
        if number is None:
            raise _problem(f"{key}.{op}", f"{bound!r} is not a number (a range bound must be a number)")
        numbers[op] = number
    return Cond(meta_path(key), range=numbers)


def _date_cond(key: str, bounds: Mapping[str, Any], kinds: frozenset[str] | None) -> Cond:
    """A range of dates or times (see :func:`.timestamps.rfc3339`) on a field of timestamps stored as text."""
    if kinds and "keyword" not in kinds:
        raise _problem(key, f"a range of dates needs a field of timestamps (the field holds {_held(kinds)})")
    times: dict[str, str] = {}
    for op, bound in bounds.items():
        moment = rfc3339(bound, end_of_day=op in ("lte", "gt"))
        if moment is None:
            raise _problem(f"{key}.{op}", f"{bound!r} is not a number or a date (a range bound is a number, "
                                          "or a date or time like 2024-03-31 or 2024-03-31T12:00:00Z)")
        times[op] = moment
    return Cond(meta_path(key), dates=times)


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "booleans"
    if isinstance(value, (int, float)):
        return "numbers"
    return "strings" if isinstance(value, str) else type(value).__name__


def _one_type(key: str, values: Iterable[object]) -> None:
    """Refuse an any-of list mixing types (``["en", 3]``): one field holds one type, so one item is a mistake."""
    types = list(dict.fromkeys(_json_type(v) for v in values))
    if len(types) > 1:
        raise _problem(key, f"a list mixes {' and '.join(types)} ({list(values)!r}): give values of one type")


def _unknown_field(key: str, fields: Mapping[str, Any]) -> ConfigError:
    names = sorted({*fields, *UNINDEXED_KEYS})
    close = difflib.get_close_matches(key, names, n=1)
    if close:
        hint = f"did you mean '{close[0]}'?"
    else:
        shown = names[:20]
        hint = "known fields: " + ", ".join(shown) + (", …" if len(names) > len(shown) else "")
    return _problem(key, f"no stored chunk has this field ({hint})")


def check_filters(filters: Mapping[str, Any] | None) -> None:
    """Refuse filter values no stored chunk can match, whatever the collection holds.

    The checks that need no store: a null (it used to be skipped, so the search ran
    unfiltered while the filters were reported as used), a number past the engine's
    64-bit integers or a bound past a finite float (the engine's internal type error
    surfaced), and an any-of list mixing types (``["en", 3]``).  :func:`build_filter`
    runs them first, so every search path (``retrieve``, ``query``, MCP, the CLI, the
    HTTP API and the LangChain store) refuses the same values with the same line.

    Raises:
        ConfigError: one line naming the filter, e.g.
            ``filters.file_type: null matches nothing (give a value, or leave the key out)``.
    """
    for raw_key, value in (filters or {}).items():
        key = field_name(raw_key)
        if isinstance(value, Mapping):
            for op, bound in value.items():
                _check_value(f"{key}.{op}", bound, bound=True)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                _check_value(key, item, in_list=True)
            _one_type(key, value)
        else:
            _check_value(key, value)


def _check_value(key: str, value: object, *, in_list: bool = False, bound: bool = False) -> None:
    if value is None:
        where = "in a list " if in_list else "as a range bound " if bound else ""
        raise _problem(key, f"null {where}matches nothing (give a value, or leave the key out)")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    if bound:
        # a bound is compared as a float: only one that is not a finite float is a problem
        too_big = isinstance(value, int) and abs(value) > _FLOAT_MAX
    else:
        # equality on a number: integral values are matched as 64-bit integers
        too_big = (isinstance(value, int) or (math.isfinite(value) and value.is_integer())) and not (
            _INT64_MIN <= int(value) <= _INT64_MAX)
    if too_big:
        shown = f"{value:.3g}" if isinstance(value, float) else str(value)
        if len(shown) > 24:
            shown = f"{shown[:8]}… ({len(shown.lstrip('-'))} digits)"
        limit = "a range bound must be a finite number" if bound else "a number to match must fit in a 64-bit integer"
        raise _problem(key, f"{shown} is out of range ({limit})")


def build_filter(filters: Mapping[str, Any] | None, fields: Mapping[str, frozenset[str]] | None = None,
                 *, all_fields: bool = True) -> Filter | None:
    """Translate ``{"company": "Apple", "year": {"gte": 2020}, "type": ["10-k", "10-q"]}``.

    Args:
        filters: Field → a value (equality), a list (any of) or a ``{"gte": …}`` range.
        fields: The collection's fields and their stored kinds (see :func:`known_fields`).
            When given, an unknown field is an error and values are converted to the
            field's type where only one reading exists (``"2024"`` → ``2024`` for integers).
        all_fields: False when ``fields`` may be incomplete (only part of the chunks were
            read): a field missing from it is then compared as given instead of refused.

    Raises:
        ConfigError: a value :func:`check_filters` refuses, a shape no condition can express,
            an empty list, an unknown field, or a value that cannot be read as the field's type.
    """
    if not filters:
        return None
    check_filters(filters)
    must: list[Cond | Filter] = []
    for raw_key, value in filters.items():
        key = field_name(raw_key)
        kinds: frozenset[str] | None = None
        if fields is not None:
            if key in UNINDEXED_KEYS:
                kinds = frozenset({"keyword"})
            elif key in fields:
                kinds = fields[key]
            elif all_fields:
                raise _unknown_field(key, fields)
        if isinstance(value, Mapping):
            must.append(_range_cond(key, value, kinds))
        elif isinstance(value, (list, tuple, set, frozenset)):
            if not value:
                # an empty any-of used to be dropped, which silently searched everything
                raise _problem(key, "an empty list matches nothing (give at least one value, or drop the key)")
            items = [_coerce(key, v, kinds) for v in value]
            if all(isinstance(v, str) for v in items):
                must.append(Cond(ci_path(key), any_of=tuple(v.lower() for v in items)))
            elif all(isinstance(v, int) and not isinstance(v, bool) for v in items):
                must.append(Cond(meta_path(key), any_of=tuple(items)))
            else:
                must.append(Filter(should=[_scalar_cond(key, v) for v in items]))
        else:
            must.append(_scalar_cond(key, _coerce(key, value, kinds)))
    return Filter(must=must) if must else None


def translate(flt: Filter | None, cond: Callable[[Cond], Any], group: Callable[..., Any]) -> Any:
    """Build an engine's native filter: ``cond`` makes one condition, ``group(must=, should=, must_not=)`` a filter."""
    if flt is None:
        return None

    def one(item: Cond | Filter) -> Any:
        return translate(item, cond, group) if isinstance(item, Filter) else cond(item)

    return group(
        must=[one(c) for c in flt.must] or None,
        should=[one(c) for c in flt.should] or None,
        must_not=[one(c) for c in flt.must_not] or None,
    )
