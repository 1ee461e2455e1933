"""Reading metadata.yaml: the file → checked :class:`~ragwire.metadata.schema.FieldSpec` list and prompt.

Every problem (unknown keys, bad types, duplicate or reserved names, values that do
not fit their type, a prompt without ``{content}``) is collected into one ConfigError.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from ragwire.errors import ConfigError, did_you_mean

from .schema import (
    _PYTHON_TYPES,
    FIELD_TYPES,
    RESERVED_NAMES,
    FieldSpec,
    MetadataSchema,
)

_TOP_KEYS = ("fields", "prompt")
_FIELD_KEYS = ("name", "type", "description", "values")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
# A field may not shadow an attribute of pydantic's BaseModel (json, copy, schema, ...).
_MODEL_ATTRIBUTES = frozenset(dir(BaseModel))


def load_schema(path: str | Path) -> MetadataSchema:
    """Read a metadata.yaml file.

    Args:
        path: the YAML file (``fields:`` list and optional ``prompt:``).

    Returns:
        The validated schema.

    Raises:
        ConfigError: the file is missing or unreadable, or has unknown keys,
            bad types, duplicate or reserved names; every problem on its own line.
    """
    import yaml

    path = Path(path)
    source = path.name
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"metadata schema file not found: {path}", source=source) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}", source=source) from None
    except yaml.YAMLError as exc:
        detail = " ".join(str(exc).split())
        raise ConfigError(f"not valid YAML: {detail}", source=source) from None
    return parse_schema(raw, source=source)


def parse_schema(raw: object, source: str = "metadata.yaml") -> MetadataSchema:
    """Validate an already-parsed metadata.yaml mapping (see :func:`load_schema`)."""
    if not isinstance(raw, dict):
        raise ConfigError("expected a mapping with a 'fields:' list", source=source)
    problems: list[str] = []
    for key in raw:
        if key not in _TOP_KEYS:
            problems.append(f"{key}: unknown key{did_you_mean(str(key), _TOP_KEYS)}")
    items = raw.get("fields")
    if not isinstance(items, list) or not items:
        problems.append("fields: required, a non-empty list of {name, type, description, values}")
        items = []
    specs: list[FieldSpec] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        spec = _parse_field(i, item, problems)
        if spec is None:
            continue
        if spec.name in seen:
            problems.append(f"fields[{i}].name: duplicate field name '{spec.name}'")
            continue
        seen.add(spec.name)
        specs.append(spec)
    prompt = raw.get("prompt")
    if prompt is not None and not isinstance(prompt, str):
        problems.append(f"prompt: must be text with a {{content}} placeholder, got {type(prompt).__name__}")
        prompt = None
    elif isinstance(prompt, str) and "{content}" not in prompt:
        problems.append("prompt: must contain the {content} placeholder (where the document text goes)")
    if problems:
        raise ConfigError(problems, source=source)
    return MetadataSchema(fields=specs, prompt=prompt)


def _parse_field(i: int, item: object, problems: list[str]) -> FieldSpec | None:
    where = f"fields[{i}]"
    if not isinstance(item, dict):
        problems.append(f"{where}: expected a mapping with name, type, description, got {item!r}")
        return None
    before = len(problems)
    for key in item:
        if key not in _FIELD_KEYS:
            problems.append(f"{where}.{key}: unknown key{did_you_mean(str(key), _FIELD_KEYS)}")
    name = item.get("name")
    if not isinstance(name, str) or not name:
        problems.append(f"{where}.name: required, a field name like 'company_name'")
    elif not _NAME.match(name):
        problems.append(
            f"{where}.name: '{name}' must start with a letter and hold only letters, digits and '_'"
        )
    elif name in RESERVED_NAMES:
        problems.append(f"{where}.name: '{name}' is reserved (ragwire writes this field itself)")
    elif name in _MODEL_ATTRIBUTES:
        problems.append(f"{where}.name: '{name}' cannot be used as a field name; choose another")
    kind = item.get("type", "str")
    if not isinstance(kind, str) or kind.replace(" ", "") not in FIELD_TYPES:
        problems.append(
            f"{where}.type: unknown type {kind!r}{did_you_mean(str(kind), FIELD_TYPES)}; "
            f"use one of {', '.join(FIELD_TYPES)}"
        )
    else:
        kind = kind.replace(" ", "")
    description = item.get("description", "")
    if description is None:
        description = ""
    if not isinstance(description, str):
        problems.append(f"{where}.description: must be text")
    values = item.get("values")
    if values is not None:
        if not isinstance(values, list) or not values:
            problems.append(f"{where}.values: must be a non-empty list")
        elif kind in _PYTHON_TYPES:
            bad = [v for v in values if not _value_fits(kind, v)]
            if bad:
                problems.append(f"{where}.values: {bad[0]!r} is not a {kind.removeprefix('list[').rstrip(']')}")
    if len(problems) > before:
        return None
    return FieldSpec(
        name=str(name),
        type=kind,
        description=description,
        values=tuple(values) if values is not None else None,
    )


def _value_fits(kind: str, value: object) -> bool:
    base = kind.removeprefix("list[").rstrip("]")
    if base == "str":
        return isinstance(value, str)
    if base == "bool":
        return isinstance(value, bool)
    if base == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, (int, float)) and not isinstance(value, bool)
