"""The `vectorstore:` section: where the collection lives."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationInfo, field_validator, model_validator

from ragwire.config._base import (
    _HOST_PORT,
    ConfigPath,
    _base_dir,
    _is_http,
    _not_a_file,
    _problem,
    _resolve,
    _Section,
)


class VectorstoreConfig(_Section):
    """`vectorstore:` where the collection lives: a local folder, a server or memory."""

    engine: Literal["auto", "edge", "qdrant"] = "auto"
    url: str | None = None
    path: ConfigPath | None = None
    api_key: SecretStr | None = None
    collection_name: str = "ragwire"
    use_sparse: bool = True
    force_recreate: bool = False
    timeout: float = Field(30, gt=0)
    optimize_after_points: int = Field(1000, ge=0)
    # Seconds the store stays open after a call, so a loop of calls opens it once.
    hold_open_s: float = Field(2.0, ge=0)
    # Seconds any call waits for another process to let go of an embedded store's folder.
    lock_wait_s: float = Field(10.0, ge=0)
    # Seconds a write run (ingest, delete, sync) waits for another one to finish.
    write_wait_s: float = Field(10.0, ge=0)
    # On a server engine: seconds a writer lease outlives its holder's last write.
    lease_ttl_s: float = Field(60.0, gt=0)

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None, info: ValidationInfo) -> str | None:
        engine = info.data.get("engine")
        if value is None or engine is None:  # engine None: it was invalid and is reported already
            return value
        if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", value) and not _is_http(value):
            raise ValueError(f"only http:// and https:// URLs are supported (got {value!r})")
        if _HOST_PORT.match(value):
            raise ValueError(
                f"{value!r} has no scheme (write http://{value} for a server, or use path: for a folder)"
            )
        if value == ":memory:" and engine != "qdrant":
            raise ValueError(f"':memory:' needs engine: qdrant (got engine {engine!r})")
        if _is_http(value) and engine == "edge":
            raise ValueError("engine 'edge' is embedded and cannot use a server URL (use qdrant or auto)")
        return value

    @field_validator("path")
    @classmethod
    def _check_path(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        if value is not None and info.data.get("url") is not None:
            raise ValueError("cannot be set together with url (url is for a server, path for a folder)")
        if value is not None:
            _not_a_file(value)
        return value

    @field_validator("collection_name")
    @classmethod
    def _check_collection_name(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_-]+", value):
            raise ValueError(f"may only contain letters, digits, '_' and '-' (got {value!r})")
        return value

    @model_validator(mode="after")
    def _settle_location(self, info: ValidationInfo) -> VectorstoreConfig:
        # the upstream config format put local folders in `url`; treat them as `path`
        if self.url is not None and not self.is_remote and self.url != ":memory:":
            folder = _resolve(Path(self.url), info)
            try:
                _not_a_file(folder)
            except ValueError as exc:
                raise _problem("url", str(exc)) from None
            self.path, self.url = folder, None
        if self.url is None and self.path is None:
            self.path = _base_dir(info) / ".ragwire_data"
        return self

    @property
    def is_remote(self) -> bool:
        """True when the store is a Qdrant server reached over HTTP(S)."""
        return self.url is not None and _is_http(self.url)

    @property
    def resolved_engine(self) -> Literal["edge", "qdrant"]:
        """``"qdrant"`` for a server, qdrant-client's local mode or ``:memory:``; else ``"edge"``."""
        return "qdrant" if self.is_remote or self.engine == "qdrant" else "edge"
