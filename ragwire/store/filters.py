"""Engine-neutral filters: user filter dicts → a small condition tree each engine translates.

String matching is case-insensitive: string values are compared against a
lower-cased shadow copy of the metadata kept in the ``_ci`` payload key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..errors import ConfigError

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
    """One condition on a payload path.  Exactly one of ``value``, ``any_of``, ``range`` is set."""

    key: str
    value: Any = None
    any_of: tuple | None = None
    range: Mapping[str, float] | None = None


@dataclass
class Filter:
    must: list[Cond | Filter] = field(default_factory=list)
    should: list[Cond | Filter] = field(default_factory=list)
    must_not: list[Cond | Filter] = field(default_factory=list)

    def and_(self, other: Filter | None) -> Filter:
        if other is None:
            return self
        return Filter(must=[*self.must, other])


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


def _scalar_cond(key: str, value: Any) -> Cond:
    if isinstance(value, str):
        return Cond(ci_path(key), value=value.lower())
    if isinstance(value, bool) or isinstance(value, int):
        return Cond(meta_path(key), value=value)
    if isinstance(value, float):
        # An exact float match is a range of width zero: MatchValue takes no floats.
        return Cond(meta_path(key), range={"gte": value, "lte": value})
    raise ConfigError(
        f"filters.{key}: unsupported value {value!r} (use a string, number, bool, list, or a range like {{'gte': 1, 'lte': 5}})",
        source="filters",
    )


def build_filter(filters: Mapping[str, Any] | None) -> Filter | None:
    """Translate ``{"company": "Apple", "year": {"gte": 2020}, "type": ["10-k", "10-q"]}``.

    Raises:
        ConfigError: a value has a shape no condition can express.
    """
    if not filters:
        return None
    must: list[Cond | Filter] = []
    for raw_key, value in filters.items():
        key = raw_key[len(META_KEY) + 1 :] if raw_key.startswith(META_KEY + ".") else raw_key
        if value is None:
            continue
        if isinstance(value, Mapping):
            unknown = set(value) - set(_RANGE_OPS)
            if unknown or not value:
                raise ConfigError(
                    f"filters.{key}: a range takes only gte/gt/lte/lt (got {sorted(value) or 'nothing'})",
                    source="filters",
                )
            must.append(Cond(meta_path(key), range={k: float(v) for k, v in value.items()}))
        elif isinstance(value, (list, tuple, set)):
            items = list(value)
            if not items:
                continue
            if all(isinstance(v, str) for v in items):
                must.append(Cond(ci_path(key), any_of=tuple(v.lower() for v in items)))
            elif all(isinstance(v, int) and not isinstance(v, bool) for v in items):
                must.append(Cond(meta_path(key), any_of=tuple(items)))
            else:
                must.append(Filter(should=[_scalar_cond(key, v) for v in items]))
        else:
            must.append(_scalar_cond(key, value))
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
