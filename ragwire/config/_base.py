"""What every config section shares: the strict base model and path, model-name and extension types."""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationInfo, model_validator
from pydantic_core import PydanticCustomError

from ragwire.loaders.formats import SUPPORTED_EXTENSIONS


def _base_dir(info: ValidationInfo) -> Path:
    # parse_config passes the config file's folder; models built in code fall back to cwd
    return Path((info.context or {}).get("base_dir") or Path.cwd())


def _resolve(value: Path, info: ValidationInfo) -> Path:
    # abspath normalises ".." without following symlinks, unlike Path.resolve()
    return Path(os.path.abspath(_base_dir(info) / value.expanduser()))


def _resolve_if_local(value: str, info: ValidationInfo) -> str:
    # model ids like "BAAI/bge-small-en-v1.5" look like relative paths, so only explicit ones resolve
    if not value.startswith(("./", "../", "~")):
        return value
    return str(_resolve(Path(value), info))


def _is_http(url: str) -> bool:
    return url.lower().startswith(("http://", "https://"))


# `localhost:6333`, `qdrant.internal:6333/x` or `[::1]:6333`: a server address missing its scheme,
# which would otherwise be taken for a relative folder name and silently create that folder
_HOST_PORT = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):\d+")


def _normalise_extensions(values: list[str]) -> list[str]:
    result = []
    for raw in values:
        ext = raw.strip().lower()
        if not ext.strip("."):
            raise ValueError(f"extensions must not be empty (got {values!r})")
        ext = ext if ext.startswith(".") else f".{ext}"
        if ext not in SUPPORTED_EXTENSIONS:
            # an unsupported type would be walked past silently, so no file of it is ever ingested
            close = difflib.get_close_matches(ext, SUPPORTED_EXTENSIONS, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise ValueError(f"{raw!r} is not supported ({hint}supported: {', '.join(SUPPORTED_EXTENSIONS)})")
        result.append(ext)
    return result


def _not_a_file(path: Path) -> None:
    if path.is_file():
        raise ValueError(f"{str(path)!r} is a file, not a folder (point it at a folder; a missing one is created)")


def _problem(at: str, message: str) -> PydanticCustomError:
    """An error for key ``at`` below the model that raises it (pydantic would point at the model)."""
    return PydanticCustomError("ragwire", "{message}", {"at": at, "message": message})


# a path in the config file, resolved against the file's folder
ConfigPath = Annotated[Path, AfterValidator(_resolve)]
# a model id, or a local model folder when written as ./x, ../x or ~/x
ModelName = Annotated[str, AfterValidator(_resolve_if_local)]
Extensions = Annotated[list[str], AfterValidator(_normalise_extensions)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unset(cls, data: object) -> object:
        # `${VAR:-}` expands to "", which for an optional key means "not set"
        if not isinstance(data, dict):
            return data
        optional = {name for name, field in cls.model_fields.items() if field.default is None}
        blank = {k for k, v in data.items() if k in optional and isinstance(v, str) and not v.strip()}
        return {k: None if k in blank else v for k, v in data.items()}
