"""The `access:` section (who may read what, see docs/security.md) and the rule for an access label."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from typing import Any, Iterable, Literal

from pydantic import Field, field_validator, model_validator

from ragwire.config._base import ConfigPath, _Section

# The label every principal may read.
PUBLIC = "public"
_LABEL = re.compile(r"^[a-z0-9][a-z0-9_.@-]{0,63}$")


def normalise_labels(values: Iterable[Any] | str, where: str = "access") -> list[str]:
    """Access labels (or group names) as stored: lower case, sorted, each once.

    A comma-separated string is a list (``--access hr,finance``).

    Raises:
        ValueError: a label is empty or has characters other than letters, digits and ``_ . @ -``.
    """
    items = [p for p in values.split(",") if p.strip()] if isinstance(values, str) else list(values)
    out: set[str] = set()
    for raw in items:
        label = str(raw).strip().lower()
        if not _LABEL.fullmatch(label):
            raise ValueError(f"{where}: {str(raw)!r} is not a label (letters, digits and _ . @ -, "
                             "starting with a letter or digit, at most 64)")
        out.add(label)
    return sorted(out)


class AuditConfig(_Section):
    """`access.audit:` one JSON line per server request."""

    enabled: bool = True
    path: ConfigPath = Field(Path(".ragwire/audit.jsonl"), validate_default=True)
    # The question or query of a request: its text, a SHA-256 of it (who asked the same thing,
    # not what), or nothing.
    query: Literal["full", "hash", "off"] = "hash"
    max_mb: float = Field(10.0, gt=0)
    keep: int = Field(5, ge=1, le=100)


class AccessConfig(_Section):
    """`access:` labels' default, the tokens file, trusted proxies and the audit log."""

    # A document no source, sub-folder, object tag or --access labels: readable by every
    # principal (public) or by none but the unrestricted one (deny).
    default: Literal["public", "deny"] = "deny"
    tokens_file: ConfigPath = Field(Path(".ragwire/tokens.json"), validate_default=True)
    # The S3 object tag whose value (labels separated by spaces, '+' or ':') labels an object.
    s3_tag_key: str | None = None
    # Addresses (or networks) allowed to name the user with X-Forwarded-User / X-Forwarded-Groups;
    # empty: those headers are refused.
    trusted_proxies: list[str] = Field(default_factory=list)
    user_header: str = "X-Forwarded-User"
    groups_header: str = "X-Forwarded-Groups"
    audit: AuditConfig = Field(default_factory=AuditConfig)

    @model_validator(mode="before")
    @classmethod
    def _audit_from_the_file(cls, data: object) -> object:
        # validated from {} rather than built by its default, so its path resolves against the config's folder
        if isinstance(data, dict) and data.get("audit") is None:
            return {**data, "audit": {}}
        return data

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, values: list[str]) -> list[str]:
        for value in values:
            try:
                ipaddress.ip_network(value, strict=False)
            except ValueError:
                raise ValueError(f"{value!r} is not an address or network (e.g. 127.0.0.1, 10.0.0.0/8)") from None
        return values

    def default_labels(self) -> list[str]:
        """What an unlabelled document is stored with: ``[public]``, or no label (nobody restricted reads it)."""
        return [PUBLIC] if self.default == "public" else []
