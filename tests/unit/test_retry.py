"""The retry policy: what is retried, how long it waits, and what it raises."""

from __future__ import annotations

import httpx
import pytest

from ragwire.errors import ProviderError
from ragwire.providers.retry import backoff_delay, call_with_retries, classify


class _StatusError(Exception):
    """Shaped like an SDK's HTTP error: a ``status_code`` attribute."""

    def __init__(self, status_code: int, message: str = "provider said no") -> None:
        super().__init__(message)
        self.status_code = status_code


class _Flaky:
    """Raises the scripted exceptions in order, then returns ``"ok"``."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self, *args: object, **kwargs: object) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


@pytest.mark.parametrize(
    "error", [TypeError("bad arg"), KeyError("k"), ValueError("v"), AttributeError("a")]
)
def test_programming_error_reraises_immediately_without_sleeping(error: Exception) -> None:
    sleeps: list[float] = []
    fn = _Flaky(error)
    with pytest.raises(type(error)) as info:
        call_with_retries(fn, retries=5, sleep=sleeps.append)
    assert info.value is error
    assert fn.calls == 1
    assert sleeps == []


def test_retryable_error_succeeds_on_third_attempt_after_two_growing_sleeps() -> None:
    sleeps: list[float] = []
    fn = _Flaky(ConnectionError("refused"), _StatusError(503))
    assert call_with_retries(fn, "x", retries=3, backoff=0.5, sleep=sleeps.append) == "ok"
    assert fn.calls == 3
    assert len(sleeps) == 2
    # full jitter: each sleep lies under its ceiling, and the ceiling doubles
    assert 0.0 <= sleeps[0] <= 0.5
    assert 0.0 <= sleeps[1] <= 1.0


def test_backoff_ceiling_doubles_per_attempt_and_stops_at_max_backoff() -> None:
    at_top = [backoff_delay(n, 0.5, 3.0, rand=lambda: 1.0) for n in range(5)]
    assert at_top == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert backoff_delay(4, 0.5, 3.0, rand=lambda: 0.0) == 0.0


def test_non_retryable_4xx_raises_at_once_as_provider_error() -> None:
    sleeps: list[float] = []
    original = _StatusError(401, "invalid api key")
    fn = _Flaky(original, _StatusError(401))
    with pytest.raises(
        ProviderError, match=r"^embed batch 0 failed: _StatusError: invalid api key$"
    ) as info:
        call_with_retries(fn, retries=4, what="embed batch 0", sleep=sleeps.append)
    assert info.value.retryable is False
    assert info.value.__cause__ is original
    assert fn.calls == 1
    assert sleeps == []


def test_message_after_exhaustion_is_one_line_without_secrets() -> None:
    error = _StatusError(
        500, "upstream exploded\nAuthorization: Bearer sk-abcdefghijkl\n  at line 3"
    )
    fn = _Flaky(error, error, error)
    with pytest.raises(ProviderError) as info:
        call_with_retries(fn, retries=2, what="embed batch 7", sleep=lambda _s: None)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(
        "embed batch 7 failed after 3 attempts: _StatusError: upstream exploded"
    )
    assert "sk-abcdefghijkl" not in message
    assert info.value.retryable is True
    assert fn.calls == 3


def test_zero_retries_means_one_attempt() -> None:
    fn = _Flaky(TimeoutError("slow"))
    with pytest.raises(ProviderError, match="failed after 1 attempt: TimeoutError: slow"):
        call_with_retries(fn, retries=0, sleep=lambda _s: None)
    assert fn.calls == 1


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(429, True), (408, True), (500, True), (503, True), (400, False), (401, False), (404, False)],
)
def test_classify_by_http_status(status: int, retryable: bool) -> None:
    error = classify(_StatusError(status))
    assert error is not None
    assert error.retryable is retryable


def test_classify_httpx_errors() -> None:
    request = httpx.Request("POST", "http://127.0.0.1:1/api/embed")
    timeout = classify(httpx.ReadTimeout("timed out", request=request))
    assert timeout is not None and timeout.retryable
    response = httpx.Response(502, request=request)
    bad_gateway = classify(httpx.HTTPStatusError("502", request=request, response=response))
    assert bad_gateway is not None and bad_gateway.retryable
    response = httpx.Response(422, request=request)
    unprocessable = classify(httpx.HTTPStatusError("422", request=request, response=response))
    assert unprocessable is not None and not unprocessable.retryable


def test_classify_returns_none_for_unrecognised_errors() -> None:
    assert classify(RuntimeError("something else")) is None
    assert classify(FileNotFoundError("model.bin")) is None


def test_bug_raised_while_handling_network_error_is_not_retried() -> None:
    # Guards against classifying by __context__: a TypeError raised inside an
    # ``except ConnectionError`` block must surface at once, not be retried.
    def buggy() -> None:
        try:
            raise ConnectionError("refused")
        except ConnectionError:
            raise TypeError("bug in handler") from None

    calls: list[float] = []
    with pytest.raises(TypeError, match="bug in handler"):
        call_with_retries(buggy, retries=3, sleep=calls.append)
    assert calls == []


def test_wrapped_network_error_is_retryable_through_its_cause() -> None:
    class WrapperError(Exception):
        pass

    try:
        try:
            raise ConnectionResetError("peer reset")
        except ConnectionResetError as exc:
            raise WrapperError("provider call failed") from exc
    except WrapperError as wrapped:
        error = classify(wrapped)
    assert error is not None and error.retryable
    assert "peer reset" in str(error)


def test_non_retryable_provider_error_is_raised_unchanged() -> None:
    original = ProviderError("quota exhausted", retryable=False)
    fn = _Flaky(original)
    with pytest.raises(ProviderError) as info:
        call_with_retries(fn, retries=3, sleep=lambda _s: None)
    assert info.value is original
    assert fn.calls == 1


def test_an_unreachable_store_is_retried_but_a_store_mismatch_is_not() -> None:
    from ragwire.errors import StoreError

    attempts = []

    def flaky_write() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise StoreError("Qdrant at http://q:6333 is unreachable during upsert", retryable=True)
        return "written"

    assert call_with_retries(flaky_write, retries=2, sleep=lambda s: None) == "written"
    assert len(attempts) == 3

    def mismatch() -> None:
        attempts.append(1)
        raise StoreError("collection holds vectors from another model")

    attempts.clear()
    with pytest.raises(StoreError, match="another model"):
        call_with_retries(mismatch, retries=2, sleep=lambda s: None)
    assert len(attempts) == 1


class _HeaderError(Exception):
    """Shaped like an SDK's rate-limit error: the HTTP response on ``response``."""

    def __init__(self, status: int, headers: dict[str, str]) -> None:
        super().__init__(f"HTTP {status}")
        self.status_code = status
        self.response = httpx.Response(status, headers=headers)


def test_retry_after_seconds_replace_the_jittered_backoff() -> None:
    # guards issue 19.12: Retry-After was ignored
    sleeps: list[float] = []
    fn = _Flaky(_HeaderError(429, {"Retry-After": "1"}), _HeaderError(503, {"Retry-After": "2.5"}))
    assert call_with_retries(fn, retries=2, backoff=0.1, sleep=sleeps.append) == "ok"
    assert sleeps == [1.0, 2.5]


def test_retry_after_is_capped_by_max_backoff() -> None:
    sleeps: list[float] = []
    fn = _Flaky(_HeaderError(429, {"Retry-After": "3600"}))
    call_with_retries(fn, retries=1, max_backoff=4.0, sleep=sleeps.append)
    assert sleeps == [4.0]


def test_retry_after_reads_seconds_dates_milliseconds_and_cohere_style_headers() -> None:
    from ragwire.errors import ProviderError as PE
    from ragwire.providers.retry import retry_after

    now = 1_700_000_000.0
    date = "Tue, 14 Nov 2023 22:13:30 GMT"  # now + 10 s
    assert retry_after(_HeaderError(429, {"retry-after": date}), now=lambda: now) == 10.0
    assert retry_after(_HeaderError(429, {"Retry-After": "Tue, 14 Nov 2023 22:13:00 GMT"}), now=lambda: now) == 0.0
    assert retry_after(_HeaderError(429, {"retry-after-ms": "250", "Retry-After": "3"})) == 0.25
    for junk in ("soon", "-1", "nan", "inf", ""):
        assert retry_after(_HeaderError(429, {"Retry-After": junk})) is None
    assert retry_after(_StatusError(429)) is None

    class CohereStyle(Exception):  # cohere's ApiError keeps a plain dict on .headers
        headers = {"Retry-After": "2"}

    wrapped = PE("HTTP 429: slow down", retryable=True)
    wrapped.__cause__ = CohereStyle()
    assert retry_after(wrapped) == 2.0


def test_without_retry_after_the_jittered_backoff_is_kept() -> None:
    sleeps: list[float] = []
    call_with_retries(_Flaky(_HeaderError(429, {})), retries=1, backoff=0.5, sleep=sleeps.append)
    assert len(sleeps) == 1 and 0.0 <= sleeps[0] <= 0.5
