"""Shared helpers for the provider factories: config normalisation and lazy imports.

The factories accept either a plain dict (the public ``get_embedding(config)``
form) or a validated config object with ``model_dump()``.  Both become one
plain dict here, with secrets unwrapped and ``None`` values dropped.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from ragwire.errors import ConfigError, MissingDependencyError, did_you_mean

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def normalise(config: Any, section: str, known_keys: frozenset[str]) -> dict[str, Any]:
    """Turn ``config`` into a plain dict for the ``section`` factory.

    A plain mapping is treated as user input: ``${VAR}`` references are
    expanded from the environment and unknown keys are rejected.  An object
    with ``model_dump()`` has been validated (and expanded) by ``ragwire.config``
    already, so it is only unwrapped.

    Raises:
        ConfigError: ``config`` has the wrong type, an unknown key, or names an
            environment variable that is not set.
    """
    if isinstance(config, Mapping):
        raw, from_user = dict(config), True
    elif hasattr(config, "model_dump"):
        raw, from_user = config.model_dump(), False
    else:
        raise ConfigError(
            f"{section}: expected a mapping with a 'provider' key, got {type(config).__name__}"
        )

    problems: list[str] = []
    if from_user:
        for key in raw:
            if key not in known_keys:
                problems.append(
                    f"{section}.{key}: unknown key{did_you_mean(str(key), known_keys)}"
                )
    out: dict[str, Any] = {}
    for key, value in raw.items():
        plain = _plain(value, f"{section}.{key}", expand=from_user, problems=problems)
        if plain is not None:
            out[str(key)] = plain
    if problems:
        raise ConfigError(problems)
    return out


def provider_name(cfg: Mapping[str, Any], section: str, valid: list[str]) -> str:
    """Return the lower-cased ``provider`` of ``cfg`` or raise a ConfigError listing ``valid``."""
    raw = cfg.get("provider")
    choices = ", ".join(valid)
    if not raw:
        raise ConfigError(f"{section}.provider: required (one of: {choices})")
    name = str(raw).strip().lower()
    if name not in valid:
        raise ConfigError(
            f"{section}.provider: unknown provider {raw!r}"
            f"{did_you_mean(name, frozenset(valid))} (valid: {choices})"
        )
    return name


def positive_int(cfg: Mapping[str, Any], key: str, section: str) -> int | None:
    """Return ``cfg[key]`` as a positive int, ``None`` when absent."""
    value = cfg.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ConfigError(f"{section}.{key}: must be a positive integer, got {value!r}")
    try:
        number = int(value)
    except ValueError:
        raise ConfigError(f"{section}.{key}: must be a positive integer, got {value!r}") from None
    if number <= 0:
        raise ConfigError(f"{section}.{key}: must be a positive integer, got {value!r}")
    return number


def positive_float(cfg: Mapping[str, Any], key: str, section: str) -> float | None:
    """Return ``cfg[key]`` as a positive float, ``None`` when absent."""
    value = cfg.get(key)
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{section}.{key}: must be a positive number, got {value!r}") from None
    if isinstance(value, bool) or number <= 0:
        raise ConfigError(f"{section}.{key}: must be a positive number, got {value!r}")
    return number


def require(module: str, feature: str, package: str, extra: str) -> ModuleType:
    """Import ``module`` or raise MissingDependencyError naming ``package`` and ``extra``.

    Only a missing ``module`` (or one of its parents) becomes a
    MissingDependencyError; an installed package that fails to import for
    another reason re-raises as it is, so the real cause stays visible.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if module == missing or module.startswith(missing + "."):
            raise MissingDependencyError(feature, package, extra) from exc
        raise


def _plain(value: Any, where: str, *, expand: bool, problems: list[str]) -> Any:
    if hasattr(value, "get_secret_value"):
        value = value.get_secret_value()
    if isinstance(value, str):
        return _expand(value, where, problems) if expand else value
    if isinstance(value, Mapping):
        return {
            str(k): _plain(v, f"{where}.{k}", expand=expand, problems=problems)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_plain(v, where, expand=expand, problems=problems) for v in value]
    return value


def _expand(text: str, where: str, problems: list[str]) -> str:
    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        found = os.environ.get(name)
        if found is None:
            problems.append(f"{where}: environment variable {name} is not set")
            return ""
        return found

    return _ENV_REF.sub(substitute, text)


