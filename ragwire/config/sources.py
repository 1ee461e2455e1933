"""The `sources:` entries: a local folder or file, or an S3 bucket."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import Field, SecretStr, field_validator

from ragwire.config._base import ConfigPath, Extensions, _Section
from ragwire.config.access import normalise_labels


class _Labelled(_Section):
    """Who may read a source's documents: ``access`` for all of them, ``access_paths`` for a
    sub-folder or key prefix (the longest matching prefix wins over ``access``)."""

    access: list[str] | None = None
    access_paths: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("access", mode="before")
    @classmethod
    def _labels(cls, value: Iterable[object] | str | None) -> list[str] | None:
        return None if value is None else normalise_labels(value)

    @field_validator("access_paths", mode="before")
    @classmethod
    def _path_labels(cls, value: object) -> object:
        if not isinstance(value, dict):
            return value
        return {str(k).strip("/") + "/": normalise_labels(v, f"access_paths.{k}") for k, v in value.items()}


class LocalSource(_Labelled):
    """A `sources:` entry with ``type: local``: a folder or a single file."""

    type: Literal["local"] = "local"
    path: ConfigPath
    recursive: bool = False
    extensions: Extensions | None = None
    name: str | None = None

    @field_validator("path", mode="before")
    @classmethod
    def _path_not_blank(cls, value: object) -> object:
        # an empty path would silently mean "the config's folder"
        if isinstance(value, str) and not value.strip():
            raise ValueError("must not be empty")
        return value


class S3Source(_Labelled):
    """A `sources:` entry with ``type: s3``: a bucket (and prefix) mirrored into ``cache_dir``."""

    type: Literal["s3"] = "s3"
    bucket: str = Field(min_length=3)
    prefix: str = ""
    cache_dir: ConfigPath = Field(Path(".ragwire_cache"), validate_default=True)
    region: str | None = None
    endpoint_url: str | None = None
    aws_access_key_id: str | None = None
    aws_secret_access_key: SecretStr | None = None
    extensions: Extensions | None = None
    name: str | None = None


SourceConfig = Annotated[Union[LocalSource, S3Source], Field(discriminator="type")]
