"""Retry policy for provider calls: which failures are worth another attempt, and when.

``classify`` maps a third-party exception to a ProviderError (or ``None`` for
errors that are not provider failures, such as bugs); ``call_with_retries``
(and ``acall_with_retries`` for coroutines) applies exponential backoff with
full jitter to the retryable ones, or waits as long as the server's
``Retry-After`` header asks (capped by ``max_backoff``).  Provider SDKs are
inspected through ``sys.modules`` so this module imports none of them.
"""

from __future__ import annotations

import datetime
import email.utils
import errno
import logging
import math
import random
import re
import socket
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from ragwire.errors import ProviderError, RagwireError

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Bugs and programming errors: retrying cannot help and wrapping would hide them.
_PROGRAMMING_ERRORS = (
    TypeError,
    AttributeError,
    NameError,
    KeyError,
    IndexError,
    ValueError,
    AssertionError,
    ImportError,
    NotImplementedError,
)

# Socket-level errnos that mean "the network or the peer failed", not "bad input".
_NETWORK_ERRNOS = frozenset(
    getattr(errno, name)
    for name in (
        "ECONNREFUSED",
        "ECONNRESET",
        "ECONNABORTED",
        "EPIPE",
        "ETIMEDOUT",
        "EHOSTUNREACH",
        "EHOSTDOWN",
        "ENETUNREACH",
        "ENETDOWN",
        "ENETRESET",
    )
    if hasattr(errno, name)
)

# Top-level packages whose exceptions are provider failures even when we
# cannot tell their kind: they become non-retryable ProviderErrors.
_PROVIDER_PACKAGES = frozenset(
    {
        "openai",
        "ollama",
        "anthropic",
        "groq",
        "openrouter",
        "cohere",
        "google",
        "httpx",
        "httpcore",
        "requests",
        "urllib3",
        "langchain_openai",
        "langchain_ollama",
        "langchain_anthropic",
        "langchain_groq",
        "langchain_openrouter",
        "langchain_google_genai",
    }
)

# Stainless-generated SDKs (openai, anthropic, groq) share these class names.
_RETRYABLE_CLASS_NAMES = frozenset(
    {"APIConnectionError", "APITimeoutError", "RateLimitError", "InternalServerError"}
)

_RETRYABLE_STATUS = frozenset({408, 425, 429})

_SECRET_PATTERNS = (
    re.compile(r"(?i)(bearer\s+)[^\s'\",]+"),
    re.compile(r"(?i)((?:api[_-]?key|key|token|secret|password)=)[^&\s'\",]+"),
    re.compile(r"\b(sk-|gsk_|sk-ant-|sk-or-|AIza)[A-Za-z0-9_\-]{6,}"),
)

_MAX_REASON = 300


def classify(exc: BaseException) -> ProviderError | None:
    """Map ``exc`` to a ProviderError, or ``None`` when it is not a provider failure.

    Network failures, timeouts, HTTP 408/425/429 and 5xx answers are
    retryable; other HTTP errors (400, 401, 404, ...) are not.  Programming
    errors (TypeError, ValueError, KeyError, ImportError, ...) and anything
    unrecognised give ``None``: the caller must re-raise them unchanged.

    Args:
        exc: the exception raised by a provider call.

    Returns:
        A ProviderError with a one-line message and ``retryable`` set, or None.
    """
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, RagwireError) and exc.retryable:
        # e.g. a StoreError for an unreachable server: writes are idempotent, so retry them
        return ProviderError(str(exc), retryable=True)
    if isinstance(exc, (RagwireError, *_PROGRAMMING_ERRORS)):
        return None
    seen: set[int] = set()
    current: BaseException | None = exc
    # A wrapper (e.g. a LangChain error) may hide the transport error as its
    # explicit cause.  ``__context__`` is not followed: an unrelated error raised
    # while handling a network failure is not a network failure.
    while current is not None and id(current) not in seen and len(seen) < 6:
        seen.add(id(current))
        retryable = _retryable(current)
        if retryable is not None:
            return ProviderError(reason(exc), retryable=retryable)
        current = current.__cause__
    if _root_package(exc) in _PROVIDER_PACKAGES:
        return ProviderError(reason(exc), retryable=False)
    return None


def call_with_retries(
    fn: Callable[..., T],
    *args: object,
    retries: int,
    backoff: float = 0.5,
    max_backoff: float = 30.0,
    what: str = "call",
    sleep: Callable[[float], None] = time.sleep,
    **kwargs: object,
) -> T:
    """Call ``fn(*args, **kwargs)``, retrying retryable provider failures.

    Attempt ``n`` (counting from 0) that fails with a retryable error is
    followed by a sleep drawn uniformly from ``[0, min(max_backoff, backoff * 2**n)]``
    ("full jitter"), up to ``retries`` extra attempts.  When the failed response
    says how long to wait (``Retry-After`` in seconds or as an HTTP date, or
    ``retry-after-ms``), the sleep is that long instead, at most ``max_backoff``.

    Args:
        fn: the provider call.
        *args: positional arguments for ``fn``.
        retries: extra attempts after the first one (0 means a single attempt).
        backoff: the first backoff ceiling in seconds.
        max_backoff: the largest backoff ceiling in seconds, and the longest a
            ``Retry-After`` is honoured.
        what: a short name of the call for messages, e.g. ``"embed batch 3"``.
        sleep: the sleep function (tests inject a recorder).
        **kwargs: keyword arguments for ``fn``.

    Returns:
        What ``fn`` returns.

    Raises:
        ProviderError: a non-retryable provider failure (at once), or the last
            retryable failure once every attempt is spent.
        Exception: anything ``classify`` does not recognise, unchanged and at once.
    """
    attempts = _attempts(retries)
    for attempt in range(attempts):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            final = _after_failure(exc, attempt, attempts, what)
            if final is exc:
                raise
            if final is not None:
                raise final from exc
            sleep(_next_delay(exc, attempt, attempts, backoff, max_backoff, what))
    raise AssertionError("unreachable")  # pragma: no cover


async def acall_with_retries(
    fn: Callable[..., Awaitable[T]],
    *args: object,
    retries: int,
    backoff: float = 0.5,
    max_backoff: float = 30.0,
    what: str = "call",
    sleep: Callable[[float], Awaitable[Any]] | None = None,
    **kwargs: object,
) -> T:
    """:func:`call_with_retries` for a coroutine function: the same policy, awaiting between attempts.

    The backoff sleeps with ``asyncio.sleep`` (unless ``sleep`` is given), so other tasks run meanwhile.
    """
    if sleep is None:
        import asyncio  # here, not at the top: a cold synchronous query never needs it

        sleep = asyncio.sleep
    attempts = _attempts(retries)
    for attempt in range(attempts):
        try:
            return await fn(*args, **kwargs)
        except Exception as exc:
            final = _after_failure(exc, attempt, attempts, what)
            if final is exc:
                raise
            if final is not None:
                raise final from exc
            await sleep(_next_delay(exc, attempt, attempts, backoff, max_backoff, what))
    raise AssertionError("unreachable")  # pragma: no cover


def _attempts(retries: int) -> int:
    if retries < 0:
        raise ValueError(f"retries must be >= 0, got {retries}")
    return retries + 1


def _after_failure(exc: Exception, attempt: int, attempts: int, what: str) -> BaseException | None:
    """What failed attempt ``attempt`` ends in: ``exc`` itself (re-raise), a ProviderError, or None (retry)."""
    error = classify(exc)
    if error is None:
        return exc
    if not error.retryable:
        return exc if error is exc else ProviderError(f"{what} failed: {error}", retryable=False)
    if attempt + 1 >= attempts:
        plural = "s" if attempts != 1 else ""
        return ProviderError(f"{what} failed after {attempts} attempt{plural}: {error}", retryable=True)
    return None


def _next_delay(exc: Exception, attempt: int, attempts: int, backoff: float, max_backoff: float,
                what: str) -> float:
    asked = retry_after(exc)
    if asked is None:
        delay, why = backoff_delay(attempt, backoff, max_backoff), ""
    else:
        delay = min(asked, max_backoff)
        why = " (the server's Retry-After)" if delay == asked else f" (Retry-After {asked:.1f} s, capped)"
    logger.warning(
        "%s failed (attempt %d of %d), retrying in %.1f s%s: %s",
        what,
        attempt + 1,
        attempts,
        delay,
        why,
        classify(exc),
    )
    return delay


def retry_after(exc: BaseException, now: Callable[[], float] = time.time) -> float | None:
    """Seconds the failed response asks to wait before the next attempt, or None when it does not say.

    Reads ``retry-after-ms`` (OpenAI) or ``Retry-After`` (seconds, or an HTTP date)
    from the response headers of ``exc`` or of the exception it was raised from:
    the openai / anthropic / groq SDKs and httpx keep them on ``exc.response``,
    Cohere's ``ApiError`` on ``exc.headers``.  A date in the past gives 0.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 6:
        seen.add(id(current))
        for headers in (getattr(getattr(current, "response", None), "headers", None),
                        getattr(current, "headers", None)):
            if isinstance(headers, Mapping):  # httpx.Headers is one too
                seconds = _parse_retry_after({str(k).lower(): str(v).strip() for k, v in headers.items()}, now)
                if seconds is not None:
                    return seconds
        current = current.__cause__
    return None


def _parse_retry_after(headers: Mapping[str, str], now: Callable[[], float]) -> float | None:
    millis = _seconds(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    text = headers.get("retry-after")
    if not text:
        return None
    seconds = _seconds(text)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000": UTC, as HTTP dates are
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, when.timestamp() - now())


def _seconds(text: str | None) -> float | None:
    """A non-negative finite number of seconds, or None."""
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def backoff_delay(
    attempt: int,
    backoff: float,
    max_backoff: float,
    rand: Callable[[], float] = random.random,
) -> float:
    """Return the full-jitter delay after failed attempt ``attempt`` (0-based).

    The ceiling doubles with each attempt, ``min(max_backoff, backoff * 2**attempt)``,
    and the delay is ``rand()`` times that ceiling.
    """
    ceiling = min(max_backoff, backoff * (2**attempt))
    return max(0.0, ceiling * rand())


def reason(exc: BaseException) -> str:
    """One line describing ``exc``, with anything that looks like a secret masked."""
    text = " ".join(str(exc).split())
    cause = exc.__cause__
    if cause is not None:
        # e.g. openai's "Connection error." hides "[Errno 111] Connection refused".
        detail = " ".join(str(cause).split())
        if detail and detail not in text:
            text = f"{text} ({type(cause).__name__}: {detail})"
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + "***", text)
    if len(text) > _MAX_REASON:
        text = text[: _MAX_REASON - 3] + "..."
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


def _retryable(exc: BaseException) -> bool | None:
    """True/False when ``exc`` is a recognised provider failure, None otherwise."""
    status = _status_code(exc)
    if status is not None:
        return status in _RETRYABLE_STATUS or status >= 500

    httpx = sys.modules.get("httpx")
    if httpx is not None:
        if isinstance(exc, httpx.TransportError):
            return True
        if isinstance(exc, (httpx.DecodingError, httpx.TooManyRedirects)):
            return False

    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & _RETRYABLE_CLASS_NAMES:
        return True

    if isinstance(exc, (ConnectionError, TimeoutError, socket.gaierror)):
        return True
    if isinstance(exc, OSError) and exc.errno in _NETWORK_ERRNOS:
        return True

    # requests / urllib3 / grpc-style names for transport failures.
    transport = any("Timeout" in n or n in {"ConnectionError", "ConnectError"} for n in names)
    if transport and _root_package(exc) in _PROVIDER_PACKAGES:
        return True
    return None


def _status_code(exc: BaseException) -> int | None:
    for candidate in (
        getattr(exc, "status_code", None),
        getattr(getattr(exc, "response", None), "status_code", None),
    ):
        if isinstance(candidate, int) and 100 <= candidate <= 599:
            return candidate
    # google-genai's APIError carries the HTTP status as ``code``.
    code = getattr(exc, "code", None)
    if _root_package(exc) == "google" and isinstance(code, int) and 100 <= code <= 599:
        return code
    return None


def _root_package(exc: BaseException) -> str:
    return (type(exc).__module__ or "").split(".", 1)[0]
