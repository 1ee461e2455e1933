"""The one exception tree of ragwire.

    RagwireError
    ├── NotFoundError(FileNotFoundError)   a file the user named does not exist: config.yaml, a golden set
    ├── ConfigError(ValueError)        config.yaml is missing keys, has unknown keys, bad values
    ├── MissingDependencyError(ImportError)   an optional package is not installed (message has the pip command)
    ├── LoaderError                    a file could not be read or converted to text
    ├── ProviderError                  an embedding / LLM / rerank provider call failed (``retryable`` says if a retry may help)
    ├── StoreError                     the vector store refused an operation or is incompatible with the config
    │   ├── StoreLockedError           another process holds the embedded store, or another run the writer lease
    │   └── StoreFullError             the embedded store's filesystem has too little free space to open or write it
    ├── IngestError                    a document could not be ingested (wraps the stage that failed)
    │   └── IngestAborted              a failure of the whole run stopped it; ``stats`` holds what was done
    ├── SourceError                    a sync source could not be listed, or one of its files fetched
    ├── ServerError                    an HTTP server will not start: an open bind without a token, an empty token, a busy port
    ├── RequestError(ValueError)       a request to a server or an MCP tool names an unknown key (the message has a did-you-mean)
    ├── GoldenSetError(ValueError)     a golden set file cannot be read: not YAML or JSON, an unknown key, an entry without a query
    └── EvalError(ValueError)          a golden set cannot be scored against the collection: it is empty, no chunk has match_field, none of the expected documents is stored

Every message says what failed, where, and how to fix it.  This module imports
nothing from ragwire so that every other module can import it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, or ``""`` when none is close."""
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=cutoff)
    return f" (did you mean '{close[0]}'?)" if close else ""


def one_line(exc: BaseException, limit: int = 300) -> str:
    """An exception's text on one line, short enough for a CLI error (its type name when it has none)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


class RagwireError(Exception):
    """Base class of every error raised by ragwire itself.

    ``retryable`` is true when a later attempt may succeed (set by the subclasses that
    can fail transiently: :class:`LoaderError`, :class:`ProviderError`, :class:`StoreError`).
    """

    retryable: bool = False


class NotFoundError(RagwireError, FileNotFoundError):
    """A file the user named does not exist (a config.yaml, a golden set); the message says which and what to do."""


class ConfigError(RagwireError, ValueError):
    """The configuration is invalid.  ``problems`` holds one line per problem."""

    def __init__(self, problems: list[str] | str, source: str = "config.yaml") -> None:
        if isinstance(problems, str):
            problems = [problems]
        self.problems = list(problems)
        self.source = source
        lines = [f"{source}: {p}" for p in self.problems]
        super().__init__("\n".join(lines))


class MissingDependencyError(RagwireError, ImportError):
    """An optional dependency is missing.  The message carries the install command."""

    def __init__(self, feature: str, package: str, extra: str) -> None:
        self.feature = feature
        self.package = package
        self.extra = extra
        super().__init__(
            f"{feature} needs {package}. Install it with: pip install 'ragwire[{extra}]'"
        )


class LoaderError(RagwireError):
    """A document could not be loaded.

    ``retryable`` is true when a later attempt may succeed: the file was being replaced
    while read, or no conversion process could be started.
    """

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class ProviderError(RagwireError):
    """A provider (embeddings, LLM, reranker) failed.

    ``retryable`` is true for network failures, timeouts, rate limits and 5xx
    answers: a later attempt may succeed.
    """

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class StoreError(RagwireError):
    """The vector store failed or does not match the configuration.

    ``retryable`` is true when the store was unreachable: the same write may succeed later.
    """

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class StoreLockedError(StoreError):
    """Another process holds the embedded store's folder, or another run the collection's writer lease."""


class StoreFullError(StoreError):
    """The embedded store's filesystem is (nearly) full: the engine maps its files into memory
    and would be killed by SIGBUS when one of them cannot grow, so ragwire stops first."""


class IngestError(RagwireError):
    """A document failed somewhere between loading and writing."""


class IngestAborted(IngestError):
    """A failure that belongs to the run, not to one file, stopped it.

    Examples: the store stayed unreachable after retries, or the embedding model
    could not be loaded.  ``stats`` is the public stats dict of the files handled
    before the stop; files already written stay written.
    """

    def __init__(self, message: str, stats: dict | None = None) -> None:
        super().__init__(message)
        self.stats = stats or {}


class SourceError(RagwireError):
    """A sync source could not be listed (sync then deletes nothing of it), or one file fetched."""


class ServerError(RagwireError):
    """A server will not start, or will not run what a CLI hands it.

    It would be reachable without a token from other machines, its token is empty, an
    allowed host is malformed, or its port is taken; or the serving process that owns a
    store refuses a handed-over run whose config would store differently from its own.
    """


class RequestError(RagwireError, ValueError):
    """A request to ``ragwire serve`` or an MCP tool sent a key nobody reads; the message names it."""


class GoldenSetError(RagwireError, ValueError):
    """A golden set file cannot be read: not YAML or JSON, an unknown key, an entry without a query.

    The message starts with the file's path and names the entry (counted from 1).
    """


class EvalError(RagwireError, ValueError):
    """A golden set cannot be scored against this collection: the scores would all be zero for a broken run.

    The collection is empty, no stored chunk has the set's ``match_field``, or none of
    its expected documents is stored.  ``absent`` lists the expected ids not found.
    """

    def __init__(self, message: str, absent: list[str] | None = None) -> None:
        super().__init__(message)
        self.absent = list(absent or [])
