"""The `metadata:` section: LLM metadata extraction."""

from __future__ import annotations

from pydantic import Field

from ragwire.config._base import ConfigPath, _Section


class MetadataConfig(_Section):
    """`metadata:` LLM metadata extraction, driven by a metadata.yaml schema."""

    enabled: bool = True
    config_file: ConfigPath | None = None
    max_chars: int = Field(10_000, ge=1)
