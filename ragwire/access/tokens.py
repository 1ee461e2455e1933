"""The tokens file: bearer tokens of the servers, each mapped to a principal, stored only as hashes.

``ragwire token add NAME --groups hr,eng [--role writer]`` prints a new token once; the
file keeps its SHA-256 (a token is 256 random bits, so no salt or slow hash is needed),
written with mode 0600.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import time
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .principal import Principal, Role

_PREFIX = "rw_"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenFile:
    """The tokens of one server; read again when the file changes, so a revoke takes effect at once."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._stamp: tuple[int, int] | None = None
        self._entries: list[dict[str, Any]] = []

    def exists(self) -> bool:
        return self.path.is_file()

    def _problem(self, message: str) -> ConfigError:
        return ConfigError(message, source=str(self.path))

    def entries(self) -> list[dict[str, Any]]:
        """Every token's record (name, groups, role, created, hash); [] when the file is absent."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._stamp, self._entries = None, []
            return []
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self._stamp:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                entries = list(data["tokens"])
                for entry in entries:
                    Principal.of(str(entry["name"]), entry.get("groups", []), entry.get("role", "reader"))
                    str(entry["hash"])
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise self._problem(f"not a tokens file ({exc}); recreate it with ragwire token add") from None
            self._stamp, self._entries = stamp, entries
        return list(self._entries)

    def principal(self, token: str) -> Principal | None:
        """The principal ``token`` belongs to; None for an unknown token."""
        wanted = token_hash(token)
        found = None
        for entry in self.entries():
            # compare every entry, so the time taken does not tell how far a guess got
            if hmac.compare_digest(str(entry["hash"]), wanted):
                found = entry
        if found is None:
            return None
        return Principal.of(str(found["name"]), found.get("groups", []), found.get("role", "reader"))

    def add(self, name: str, groups: list[str] | str = "", role: Role = "reader") -> str:
        """Store a new token for ``name`` and return it (it is not kept: show it once).

        Raises:
            ConfigError: ``name`` already has a token (revoke it first), or a bad group or role.
        """
        try:
            principal = Principal.of(name.strip(), groups, role)
        except ValueError as exc:
            raise self._problem(str(exc)) from None
        if not principal.name:
            raise self._problem("a token needs a name")
        entries = self.entries()
        if any(e["name"] == principal.name for e in entries):
            raise self._problem(f"{principal.name!r} already has a token (ragwire token revoke {principal.name} first)")
        token = _PREFIX + secrets.token_urlsafe(32)
        entries.append({"name": principal.name, "groups": sorted(principal.groups), "role": principal.role,
                        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "hash": token_hash(token)})
        self._write(entries)
        return token

    def revoke(self, name: str) -> bool:
        """Remove ``name``'s token; False when it had none."""
        entries = self.entries()
        kept = [e for e in entries if e["name"] != name]
        if len(kept) == len(entries):
            return False
        self._write(kept)
        return True

    def _write(self, entries: list[dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"tokens": entries}, out, indent=2)
        os.replace(temporary, self.path)
        self._stamp = None
