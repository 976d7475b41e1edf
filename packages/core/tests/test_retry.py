"""automata.core._retry: the backoff policy and the async retry helper."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from automata.core._errors import ProviderError, RetryableError
from automata.core._retry import (
    RetryAttempt,
    RetryPolicy,
    is_retryable,
    parse_retry_after,
    retry,
    retry_after_hint,
)


class FakeTime:
    """A clock that only moves when something sleeps on it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class Flaky:
    """An operation that raises the given errors in turn, then returns "ok"."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def overloaded(retry_after: float | None = None) -> ProviderError:
    return ProviderError("overloaded", status=529, retryable=True, retry_after=retry_after)


NO_JITTER = RetryPolicy(max_attempts=4, base_delay=1.0, max_delay=10.0, jitter=0)


@pytest.mark.parametrize("attempts", [0, -1])
def test_policy_rejects_fewer_than_one_attempt(attempts: int) -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=attempts)


@pytest.mark.parametrize(
    ("field", "value"),
    [("base_delay", -0.1), ("jitter", 1.5), ("jitter", -0.1), ("multiplier", 0.5)],
)
def test_policy_rejects_out_of_range_values(field: str, value: float) -> None:
    overrides: dict[str, Any] = {field: value}
    with pytest.raises(ValueError, match=field):
        RetryPolicy(**overrides)


def test_policy_rejects_max_delay_below_base_delay() -> None:
    with pytest.raises(ValueError, match="max_delay"):
        RetryPolicy(base_delay=2.0, max_delay=1.0)


def test_policy_is_frozen() -> None:
    policy = RetryPolicy()
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.max_attempts = 9  # type: ignore[misc]


def test_backoff_grows_exponentially_up_to_the_cap() -> None:
    """L32."""
    delays = [NO_JITTER.backoff(n) for n in range(1, 7)]
    assert delays == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_backoff_survives_huge_retry_numbers() -> None:
    assert NO_JITTER.backoff(10_000) == 10.0


def test_full_jitter_spans_zero_to_the_delay() -> None:
    """L32."""
    policy = RetryPolicy(base_delay=4.0, max_delay=4.0, jitter=1.0)
    assert policy.backoff(1, random=lambda: 0.0) == 0.0
    assert policy.backoff(1, random=lambda: 0.5) == 2.0


def test_partial_jitter_keeps_a_floor() -> None:
    policy = RetryPolicy(base_delay=4.0, max_delay=4.0, jitter=0.25)
    assert policy.backoff(1, random=lambda: 0.0) == 3.0
    assert policy.backoff(1, random=lambda: 1.0) == 4.0


def test_only_retryable_provider_errors_and_the_retryable_marker_are_retryable() -> None:
    """L32."""
    assert is_retryable(overloaded())
    assert is_retryable(RetryableError("flaky upstream"))
    assert not is_retryable(ProviderError("bad request", status=400))
    assert not is_retryable(RuntimeError("boom"))


def test_retry_after_hint_ignores_missing_and_negative_values() -> None:
    assert retry_after_hint(overloaded(2.5)) == 2.5
    assert retry_after_hint(overloaded(None)) is None
    assert retry_after_hint(overloaded(-1)) is None
    assert retry_after_hint(RuntimeError()) is None


async def test_retry_returns_the_first_success_after_retryable_failures() -> None:
    time = FakeTime()
    op = Flaky(overloaded(), overloaded())
    result = await retry(op, NO_JITTER, sleep=time.sleep, clock=time.clock)
    assert result == "ok"
    assert op.calls == 3
    assert time.sleeps == [1.0, 2.0]


async def test_retry_raises_a_non_retryable_error_at_once() -> None:
    time = FakeTime()
    error = ProviderError("unauthorized", status=401)
    op = Flaky(error)
    with pytest.raises(ProviderError) as caught:
        await retry(op, NO_JITTER, sleep=time.sleep, clock=time.clock)
    assert caught.value is error
    assert op.calls == 1
    assert time.sleeps == []


async def test_retry_gives_up_after_max_attempts_with_the_last_error() -> None:
    time = FakeTime()
    errors = [overloaded() for _ in range(5)]
    op = Flaky(*errors)
    with pytest.raises(ProviderError) as caught:
        await retry(op, NO_JITTER, sleep=time.sleep, clock=time.clock)
    assert op.calls == 4
    assert caught.value is errors[3]


async def test_single_attempt_policy_never_retries() -> None:
    time = FakeTime()
    op = Flaky(overloaded())
    with pytest.raises(ProviderError):
        await retry(op, RetryPolicy.never(), sleep=time.sleep, clock=time.clock)
    assert op.calls == 1


async def test_retry_waits_exactly_the_servers_retry_after() -> None:
    time = FakeTime()
    op = Flaky(overloaded(retry_after=7.0))
    await retry(op, NO_JITTER, sleep=time.sleep, clock=time.clock)
    assert time.sleeps == [7.0]


async def test_retry_after_longer_than_max_delay_is_raised_not_slept() -> None:
    time = FakeTime()
    op = Flaky(overloaded(retry_after=60.0))
    with pytest.raises(ProviderError) as caught:
        await retry(op, NO_JITTER, sleep=time.sleep, clock=time.clock)
    assert caught.value.retry_after == 60.0
    assert time.sleeps == []


async def test_retry_stops_before_a_wait_that_would_exceed_max_elapsed() -> None:
    time = FakeTime()
    policy = dataclasses.replace(NO_JITTER, max_elapsed=2.5)
    op = Flaky(overloaded(), overloaded(), overloaded())
    with pytest.raises(ProviderError):
        await retry(op, policy, sleep=time.sleep, clock=time.clock)
    assert time.sleeps == [1.0]
    assert op.calls == 2


async def test_custom_predicate_decides_what_is_retried() -> None:
    time = FakeTime()
    op = Flaky(TimeoutError(), TimeoutError())
    result = await retry(
        op,
        NO_JITTER,
        retry_if=lambda e: isinstance(e, TimeoutError),
        sleep=time.sleep,
        clock=time.clock,
    )
    assert result == "ok"


async def test_on_retry_reports_each_wait_before_it_happens() -> None:
    time = FakeTime()
    seen: list[RetryAttempt] = []
    first, second = overloaded(), overloaded(retry_after=3.0)
    await retry(
        Flaky(first, second), NO_JITTER, sleep=time.sleep, clock=time.clock, on_retry=seen.append
    )
    assert [(a.retry_number, a.delay, a.error) for a in seen] == [(1, 1.0, first), (2, 3.0, second)]


async def test_cancellation_during_a_wait_propagates() -> None:
    started = asyncio.Event()

    async def never_wakes(_: float) -> None:
        started.set()
        await asyncio.Event().wait()

    task = asyncio.create_task(retry(Flaky(overloaded()), NO_JITTER, sleep=never_wakes))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_cancellation_raised_by_the_operation_is_not_retried() -> None:
    op = Flaky(asyncio.CancelledError())
    with pytest.raises(asyncio.CancelledError):
        await retry(op, NO_JITTER, retry_if=lambda e: True)
    assert op.calls == 1


async def test_default_policy_uses_real_sleep_briefly() -> None:
    policy = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.001)
    assert await retry(Flaky(overloaded()), policy) == "ok"


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "-4"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "inf"}, None),
        ({"retry-after-ms": "NaN", "retry-after": "2"}, 2.0),
        ({"retry-after-ms": "-inf"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_a_servers_retry_after_header_is_read_in_seconds(
    headers: dict[str, str] | None, seconds: float | None
) -> None:
    assert parse_retry_after(headers) == seconds


def test_a_retry_after_date_is_read_as_the_time_until_then() -> None:
    import email.utils
    import time

    later = email.utils.formatdate(time.time() + 120, usegmt=True)
    wait = parse_retry_after({"retry-after": later})
    assert wait is not None
    assert 100 < wait <= 120
