"""The audit log: one JSON line per server request (who, which route or tool, what was asked,
with which filters, which sources came back), rotated by size; ``ragwire audit`` reads it."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Literal, Mapping

from .principal import Principal

if TYPE_CHECKING:
    from ..config.access import AuditConfig

QueryMode = Literal["full", "hash", "off"]


def query_field(text: str | None, mode: QueryMode) -> dict[str, str]:
    """The question as the log keeps it: its text, ``sha256:<hex>``, or nothing."""
    if text is None or mode == "off":
        return {}
    if mode == "hash":
        return {"query_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
    return {"query": text}


class AuditLog:
    """Appends records to ``path``; past ``max_bytes`` it becomes ``path.1`` (``path.1`` → ``path.2`` …, ``keep`` kept)."""

    def __init__(self, path: str | Path, *, query: QueryMode = "hash", max_bytes: int = 10 * 2**20,
                 keep: int = 5) -> None:
        self.path = Path(path)
        self.query = query
        self.max_bytes = max_bytes
        self.keep = keep
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, audit: AuditConfig) -> AuditLog | None:
        """The log an ``access.audit`` section describes; None when it is off."""
        if not audit.enabled:
            return None
        return cls(audit.path, query=audit.query, max_bytes=int(audit.max_mb * 2**20), keep=audit.keep)

    def record(self, principal: Principal, route: str, *, query: str | None = None,
               filters: Mapping[str, Any] | None = None, sources: Iterable[str] = (), status: int | None = None,
               **extra: object) -> dict[str, Any]:
        """Append one request's line; returns what was written."""
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}Z",
            "principal": principal.name, "groups": sorted(principal.groups), "route": route,
            **query_field(query, self.query),
            **({"filters": dict(filters)} if filters else {}),
            "sources": sorted(set(sources)),
            **({"status": status} if status is not None else {}),
            **extra,
        }
        data = (json.dumps(line, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                size = self.path.stat().st_size
            except FileNotFoundError:
                size = 0
            if size and size + len(data) > self.max_bytes:
                self._rotate()
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            with os.fdopen(fd, "ab") as out:
                out.write(data)
        return line

    def _rotate(self) -> None:
        for n in range(self.keep - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{n}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{self.path.name}.{n + 1}"))
        os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))


def read_log(path: str | Path, *, principal: str | None = None, route: str | None = None,
             source: str | None = None, since: str | None = None) -> Iterator[dict[str, Any]]:
    """The records of a log and its rotated files, oldest first, those matching every filter given.

    ``since`` is an ISO time prefix (``2026-12-04`` or ``2026-12-04T10:00``); ``source``
    matches a record that returned that source.
    """
    base = Path(path)
    rotated = sorted(base.parent.glob(base.name + ".*"), key=lambda p: -int(p.suffix[1:]) if p.suffix[1:].isdigit() else 0)
    for file in [*(p for p in rotated if p.suffix[1:].isdigit()), base]:
        if not file.is_file():
            continue
        with file.open(encoding="utf-8") as lines:
            for text in lines:
                try:
                    rec = json.loads(text)
                except ValueError:
                    continue  # a line cut by a crash mid-write
                if principal is not None and rec.get("principal") != principal:
                    continue
                if route is not None and rec.get("route") != route:
                    continue
                if source is not None and source not in rec.get("sources", ()):
                    continue
                if since is not None and str(rec.get("time", "")) < since:
                    continue
                yield rec
