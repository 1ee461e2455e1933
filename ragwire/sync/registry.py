"""Sources by ``type:`` name.  A new kind of source is one module and one line here."""

from __future__ import annotations

import importlib
from typing import Any

from ..config import LoaderConfig, LocalSource, S3Source
from ..errors import ConfigError
from .base import Source

# type → "module:class"; imported on use, so `import ragwire` never imports boto3.
_SOURCES = {
    "local": "ragwire.sync.local:LocalFolderSource",
    "s3": "ragwire.sync.s3:S3BucketSource",
}


def make_source(config: LocalSource | S3Source, loader: LoaderConfig | None = None) -> Source:
    """Build the source a ``sources:`` entry describes; ``loader`` sets the walk's limits.

    Raises:
        ConfigError: the ``type`` is unknown (the message lists the known ones).
        MissingDependencyError: the source needs an extra that is not installed.
    """
    kind = getattr(config, "type", None)
    target = _SOURCES.get(kind) if isinstance(kind, str) else None
    if target is None:
        raise ConfigError(f"sources: unknown type {kind!r} (choose one of: {', '.join(sorted(_SOURCES))})")
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)(config, loader or LoaderConfig())


def make_sources(configs: list[Any], loader: LoaderConfig | None = None, where: str = "config.yaml") -> list[Source]:
    """Build every source; two sources with one key would delete each other's documents.

    ``where`` names the config file in messages.
    """
    sources = [make_source(c, loader) for c in configs]
    seen: dict[str, int] = {}
    for index, source in enumerate(sources):
        if source.key in seen:
            raise ConfigError(
                f"sources[{index}]: same source as sources[{seen[source.key]}] ({source.key}); "
                "give each entry its own name or path",
                source=where,
            )
        seen[source.key] = index
    return sources
