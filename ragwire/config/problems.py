"""Turning pydantic's validation errors into one actionable line each, secrets never shown."""

from __future__ import annotations

import difflib
import re
from typing import Any, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from ragwire.config.root import RagwireConfig
from ragwire.errors import did_you_mean

_MUST_BE = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping of keys",
    "model_attributes_type": "a mapping of keys",
    "path_type": "a path",
}
_SECRET_KEYS = {"api_key", "aws_secret_access_key"}
_BOUNDS = {
    "greater_than": ("gt", "greater than"),
    "greater_than_equal": ("ge", "at least"),
    "less_than": ("lt", "less than"),
    "less_than_equal": ("le", "at most"),
}


def _describe(err: ErrorDetails) -> str:
    kind, loc, ctx = err["type"], tuple(err["loc"]), err.get("ctx") or {}
    if kind in ("ragwire", "unknown_key"):
        loc += tuple(ctx.get("at", ctx.get("key", "")).split("."))
    path, _ = _walk(loc)
    key = str(loc[-1]) if loc else ""
    # secrets never appear in a message, not even a wrong-typed one
    got = "" if key in _SECRET_KEYS else f" (got {_show(err['input'])})"

    if kind in ("extra_forbidden", "unknown_key"):
        _, owners = _walk(loc[:-1])
        known = sorted({f for m in owners for f in m.model_fields})
        return f"{path}: unknown key{did_you_mean(key, known)}"
    if kind == "literal_error":
        return f"{path}: {_choice_problem(key, err['input'], _quoted(ctx['expected']))}"
    if kind == "union_tag_invalid":
        tags = ", ".join(sorted(_quoted(ctx["expected_tags"])))
        return f"{path}.type: {_show(ctx['tag'])} is not a known source type (choose from: {tags})"
    if kind == "union_tag_not_found":
        return f"{path}.type: missing (every source needs a type: local or s3)"
    if kind == "missing":
        if loc == ("embeddings",):
            return "embeddings: required section is missing (add it with at least a provider, e.g. fastembed)"
        return f"{path}: required key is missing"
    if kind in _MUST_BE:
        return f"{path}: must be {_MUST_BE[kind]}{got}"
    if kind in _BOUNDS:
        name, words = _BOUNDS[kind]
        return f"{path}: must be {words} {_show(ctx[name])}{got}"
    if kind == "string_too_short":
        return f"{path}: must be at least {ctx['min_length']} characters long{got}"
    if kind in ("value_error", "assertion_error"):
        return f"{path}: {ctx['error']}"
    if kind == "ragwire":
        return f"{path}: {ctx['message']}"
    return f"{path}: {err['msg']}"


def _quoted(text: str) -> list[str]:
    # pydantic lists the allowed values as "'a', 'b' or 'c'"
    return re.findall(r"'([^']*)'", text)


def _choice_problem(key: str, value: object, choices: list[str]) -> str:
    choices = sorted(choices)
    hint = ""
    if isinstance(value, str):
        close = difflib.get_close_matches(value.lower(), choices, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
    what = "a known provider" if key == "provider" else f"a valid {key.replace('_', ' ')}"
    return f"{_show(value)} is not {what} ({hint}choose from: {', '.join(choices)})"


def _walk(loc: tuple[Any, ...]) -> tuple[str, list[type[BaseModel]]]:
    """Turn a pydantic location into a dotted key path, plus the models the location points into."""
    path = ""
    models: list[type[BaseModel]] = [RagwireConfig]
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
            continue
        field = next((m.model_fields[part] for m in models if part in m.model_fields), None)
        tagged = [m for m in models if _source_tag(m) == part]
        if field is None and tagged:
            models = tagged  # pydantic puts a union member's tag into the location; users never wrote it
            continue
        path = f"{path}.{part}" if path else str(part)
        models = _models_in(field.annotation) if field else []
    return path, models


def _source_tag(model: type[BaseModel]) -> str | None:
    field = model.model_fields.get("type")
    return get_args(field.annotation)[0] if field is not None else None


def _models_in(annotation: object) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and get_origin(annotation) is None and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]


def _show(value: object) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # pydantic reports the bound of `gt=0` on a float field as 0.0
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."
