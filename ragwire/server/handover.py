"""One owner per embedded store: a CLI writer finds the serving process that owns the store and hands it its run.

The owner (``ragwire serve``) listens on a Unix socket in the store folder,
``.<collection>.owner.sock``, mode 0600, and answers only processes of its own user
(checked again with the peer's credentials).  A CLI writer (``sync``, ``ingest``,
``reingest``, ``delete``, ``migrate``) that finds a live owner sends it the call it
would have made (:data:`HANDED_CALLS`, arguments as JSON), prints the owner's progress
lines, and gets back what the call returned or raised, so it prints and exits exactly as
when it runs alone.  With no owner it runs as before.

The reply is a pickle: the CLI rebuilds the very stats object or exception the owner's
call produced.  Only the owner's answer is unpickled, from a socket only this user can
create and reach; the owner never unpickles anything.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import pickle
import socket
import struct
import sys
from pathlib import Path
from typing import Any, Protocol, TypeVar

log = logging.getLogger(__name__)

# The public RAGWire calls a CLI writer may hand over; nothing else is run for a caller.
HANDED_CALLS = frozenset({"ingest_documents", "reingest_documents", "ingest_directory", "delete_document",
                          "sync", "migrate"})
_MAX_SOCKET_PATH = 100  # sun_path holds 104-108 bytes, depending on the system
# The config sections that decide what a write run stores: the owner runs a handed-over
# call with its own config, so the CLI's must agree on these (the socket names the store).
WRITE_SECTIONS = ("loader", "splitter", "ingestion", "embeddings", "metadata", "sources", "access")
# Keys of those sections that concern readers or the server, not what is stored.
_READ_SIDE = {"access": {"tokens_file", "trusted_proxies", "user_header", "groups_header", "audit"}}


# What the hand-over reads of a RAGWire and its config (the server may not import the config package).
class StoreSettings(Protocol):
    """The config's ``vectorstore`` section: where an embedded store lives."""

    @property
    def path(self) -> Path | None: ...

    @property
    def collection_name(self) -> str: ...

    @property
    def resolved_engine(self) -> str: ...


class WriteConfig(Protocol):
    """A loaded config (``RagwireConfig``): its store section, and its sections as JSON to compare."""

    @property
    def vectorstore(self) -> StoreSettings: ...

    def model_dump(self, *, mode: str) -> dict[str, Any]: ...


class Pipeline(Protocol):
    """A :class:`~ragwire.RAGWire` as the hand-over sees it: its config (its calls are looked up by name)."""

    @property
    def config(self) -> WriteConfig: ...


P = TypeVar("P", bound=Pipeline)


def write_settings(config: WriteConfig) -> dict[str, str]:
    """A digest of each of ``config``'s :data:`WRITE_SECTIONS`, to compare the CLI's config with the owner's."""
    dumped = config.model_dump(mode="json")
    out = {}
    for name in WRITE_SECTIONS:
        section = dumped.get(name)
        if isinstance(section, dict):
            section = {k: v for k, v in section.items() if k not in _READ_SIDE.get(name, ())}
        out[name] = hashlib.sha256(json.dumps(section, sort_keys=True).encode("utf-8")).hexdigest()
    return out


def settings_differ(mine: dict[str, str], theirs: object) -> list[str]:
    """The sections whose digests differ (all of them when ``theirs`` is not a digest map)."""
    if not isinstance(theirs, dict):
        return list(WRITE_SECTIONS)
    return [name for name in WRITE_SECTIONS if mine.get(name) != theirs.get(name)]


def owner_socket(vectorstore: StoreSettings) -> Path | None:
    """Where the owner of this embedded store listens; None for a server engine or a path too long for a socket."""
    folder = getattr(vectorstore, "path", None)
    if getattr(vectorstore, "resolved_engine", "edge") != "edge" or not folder:
        return None
    path = Path(folder).resolve() / f".{vectorstore.collection_name}.owner.sock"
    return path if len(os.fsencode(path)) <= _MAX_SOCKET_PATH else None


def same_user(conn: socket.socket) -> bool:
    """True when the process at the other end of ``conn`` runs as this user (Linux: SO_PEERCRED)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True  # the socket's mode 0600 is the check there
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", creds)
    return uid == os.getuid()


def send_line(conn: socket.socket, message: dict[str, Any]) -> None:
    conn.sendall(json.dumps(message).encode("utf-8") + b"\n")


def encode_outcome(value: object = None, error: BaseException | None = None) -> dict[str, Any]:
    """The owner's last line: the call's return value or its exception, pickled for the CLI to rebuild."""
    payload = pickle.dumps(("error", error) if error is not None else ("value", value))
    return {"event": "outcome", "pickle": base64.b64encode(payload).decode("ascii")}


class HandedOver:
    """A :class:`~ragwire.RAGWire` whose write calls run in the store's owner; everything else is the real one."""

    def __init__(self, rag: Pipeline, path: Path) -> None:
        self._rag = rag
        self._path = path

    def __getattr__(self, name: str) -> Any:
        if name in HANDED_CALLS:
            return lambda *args, **kwargs: self._call(name, args, kwargs)
        return getattr(self._rag, name)

    def _call(self, name: str, args: tuple, kwargs: dict[str, Any]) -> Any:
        # The owner runs elsewhere: paths are made absolute here, where they were typed.
        args = tuple(_absolute(a) for a in args)
        kwargs = {k: _absolute(v) for k, v in kwargs.items() if k != "progress"}
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(str(self._path))
            send_line(conn, {"call": name, "args": list(args), "kwargs": kwargs, "pid": os.getpid(),
                             "settings": write_settings(self._rag.config)})
            for raw in conn.makefile("rb"):
                message = json.loads(raw)
                if message.get("event") == "progress":
                    print(f"  {message['text']}", file=sys.stderr, flush=True)
                elif message.get("event") == "outcome":
                    kind, value = pickle.loads(base64.b64decode(message["pickle"]))  # noqa: S301 - see the module docstring
                    if kind == "error":
                        raise value
                    return value
        raise ConnectionError(f"the serving process owning the store ({self._path}) closed the channel mid-run")


def _absolute(value: object) -> object:
    if isinstance(value, Path):
        return str(value.resolve())
    if isinstance(value, (list, tuple)):
        return [_absolute(v) for v in value]
    if isinstance(value, str) and value and not value.startswith(("s3://", "local://")) and os.path.exists(value):
        return str(Path(value).resolve())
    return value


def handover_if_owned(rag: P) -> P | HandedOver:
    """``rag``, or a :class:`HandedOver` of it when a serving process owns its embedded store.

    Called at the start of each CLI writer command, after the config is loaded: the owner
    is looked for on its socket; none listening (no file, or a stale one) means no owner.
    """
    path = owner_socket(rag.config.vectorstore)
    if path is None or not path.exists():
        return rag
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
            send_line(probe, {"call": "ping"})
            answer = json.loads(probe.makefile("rb").readline() or b"{}")
        except (OSError, ValueError):
            return rag  # a socket left by an owner that is gone
    print(f"ragwire: the store is owned by a serving process (pid {answer.get('pid')}); handing this run to it",
          file=sys.stderr, flush=True)
    return HandedOver(rag, path)
