"""The `logging:` section: level and handlers set up by the CLI."""

from __future__ import annotations

from typing import Literal

from pydantic import field_validator

from ragwire.config._base import ConfigPath, _Section


class LoggingConfig(_Section):
    """`logging:` level and handlers set up by the CLI."""

    level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    colored: bool = False
    console_output: bool = True
    log_file: ConfigPath | None = None

    @field_validator("level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value
