"""What the provider factories share: turning their argument into a typed section, and lazy imports.

A factory takes a validated section (``EmbeddingsConfig`` / ``LLMConfig``, as
``ragwire.config`` builds it), or a plain dict (the public ``get_embedding(config)``
form), which is validated by the same model: one set of keys, defaults and rules.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any, TypeVar

from pydantic import BaseModel, SecretStr

from ragwire.config import parse_section
from ragwire.errors import ConfigError, MissingDependencyError, did_you_mean

S = TypeVar("S", bound=BaseModel)

OLLAMA_URL = "http://localhost:11434"
OPENROUTER_URL = "https://openrouter.ai/api/v1"


def as_section(config: object, model: type[S], section: str, providers: Sequence[str]) -> S:
    """Return ``config`` as a validated ``model`` for the ``section`` factory.

    A plain mapping is user input: ``${VAR}`` references are expanded from the
    environment. Another pydantic object (a section of the caller's own config
    model) has been expanded already, so only its values are validated.

    Raises:
        ConfigError: ``config`` has the wrong type, an unknown provider or key, a bad
            value, or names an environment variable that is not set.
    """
    if isinstance(config, model):
        return config
    if isinstance(config, Mapping):
        raw, expand = dict(config), True
    elif hasattr(config, "model_dump"):
        dumped = config.model_dump()
        raw, expand = {k: v for k, v in dumped.items() if v is not None}, False
    else:
        raise ConfigError(
            f"{section}: expected a mapping with a 'provider' key, got {type(config).__name__}"
        )
    raw["provider"] = provider_name(raw, section, providers)
    return parse_section(model, section, raw, expand=expand)


def provider_name(cfg: Mapping[str, Any], section: str, valid: Sequence[str]) -> str:
    """Return the lower-cased ``provider`` of ``cfg`` or raise a ConfigError listing ``valid``."""
    raw = cfg.get("provider")
    choices = ", ".join(sorted(valid))
    if not raw:
        raise ConfigError(f"{section}.provider: required (one of: {choices})")
    name = str(raw).strip().lower()
    if name not in valid:
        raise ConfigError(
            f"{section}.provider: unknown provider {raw!r}"
            f"{did_you_mean(name, frozenset(valid))} (valid: {choices})"
        )
    return name


def secret(value: SecretStr | None) -> str | None:
    """The plain text of a ``SecretStr`` (``None`` when unset)."""
    return value.get_secret_value() if value is not None else None


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
