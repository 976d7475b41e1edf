"""Retrying transient failures: a backoff policy and an async helper that applies it.

Providers use this for rate limits and overload, and only around work that has not
yet produced any output: once a reply has started to stream, a failure is final (see
`automata.core._provider`). Nothing here keeps state between calls; randomness, sleep
and the clock are injectable so tests are exact and instant.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import random as _random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from automata.core._errors import ProviderError, RetryableError

__all__ = [
    "RetryAttempt",
    "RetryPolicy",
    "is_retryable",
    "parse_retry_after",
    "retry",
    "retry_after_hint",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently to repeat a failed operation.

    `max_attempts` counts every try, the first included (1 means never retry). The
    n-th retry waits `base_delay * multiplier ** (n - 1)` seconds, capped at
    `max_delay`; `jitter` (0 to 1) is the fraction of that wait drawn at random, so
    `jitter=1` is "full jitter" and `jitter=0` is a fixed schedule. A server's
    retry-after hint replaces the computed wait; a hint longer than `max_delay` ends
    the retries instead (waiting that long is the caller's decision, and the error
    carries the hint). `max_elapsed`, when set, bounds the total time spent, sleeps
    included: a wait that would cross it is not started.

    Invalid values (no attempts, negative delays, jitter outside 0..1) raise
    `ValueError` on construction.
    """

    max_attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 30.0
    multiplier: float = 2.0
    jitter: float = 1.0
    max_elapsed: float | None = None

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts}")
        if self.base_delay < 0:
            raise ValueError(f"base_delay must not be negative, got {self.base_delay}")
        if self.max_delay < self.base_delay:
            raise ValueError(
                f"max_delay ({self.max_delay}) must not be below base_delay ({self.base_delay})"
            )
        if self.multiplier < 1:
            raise ValueError(f"multiplier must be at least 1, got {self.multiplier}")
        if not 0 <= self.jitter <= 1:
            raise ValueError(f"jitter must be between 0 and 1, got {self.jitter}")
        if self.max_elapsed is not None and self.max_elapsed < 0:
            raise ValueError(f"max_elapsed must not be negative, got {self.max_elapsed}")

    @classmethod
    def never(cls) -> RetryPolicy:
        """A policy that tries once and never retries."""
        return cls(max_attempts=1)

    def backoff(self, retry_number: int, *, random: Callable[[], float] = _random.random) -> float:
        """The wait before retry number `retry_number` (1 for the first retry).

        Always within `[(1 - jitter) * d, d]` where `d` is the capped exponential delay.
        """
        if retry_number < 1:
            raise ValueError(f"retry_number starts at 1, got {retry_number}")
        # Cap the exponent before computing so huge retry numbers cannot overflow.
        delay = self.base_delay
        for _ in range(retry_number - 1):
            delay *= self.multiplier
            if delay >= self.max_delay:
                break
        delay = min(delay, self.max_delay)
        if self.jitter == 0:
            return delay
        return delay * (1 - self.jitter) + delay * self.jitter * random()


@dataclass(frozen=True, slots=True)
class RetryAttempt:
    """What `retry` tells its `on_retry` callback before each wait."""

    retry_number: int
    """1 for the first retry."""
    delay: float
    """Seconds about to be slept."""
    error: BaseException
    """The failure being retried."""


def is_retryable(error: BaseException) -> bool:
    """Whether repeating the operation may succeed: a `ProviderError` marked retryable,
    or any `RetryableError` (the marker tools raise)."""
    if isinstance(error, RetryableError):
        return True
    return isinstance(error, ProviderError) and error.retryable


def retry_after_hint(error: BaseException) -> float | None:
    """The server's requested wait carried by `error`, if any (seconds, never negative)."""
    hint = getattr(error, "retry_after", None)
    if isinstance(hint, int | float) and not isinstance(hint, bool) and hint >= 0:
        return float(hint)
    return None


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds a server asks to wait, from `retry-after-ms` or `retry-after` (seconds or
    an HTTP date); None when it gives no usable hint (a NaN or an infinity is none).
    Never negative."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        seconds = _seconds(millis)
        if seconds is not None:
            return max(seconds / 1000, 0.0)
    value = headers.get("retry-after")
    if not value:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return max(seconds, 0.0)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _seconds(value: str) -> float | None:
    """`value` as a finite number, or None."""
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


async def retry(
    operation: Callable[[], Awaitable[T]],
    policy: RetryPolicy | None = None,
    *,
    retry_if: Callable[[BaseException], bool] = is_retryable,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
    random: Callable[[], float] = _random.random,
    on_retry: Callable[[RetryAttempt], object] | None = None,
) -> T:
    """Await `operation()` until it succeeds, retrying failures that `retry_if` accepts.

    Each try calls `operation` afresh. A failure that is not retryable, the last allowed
    attempt's failure, a retry-after hint beyond `policy.max_delay`, or a wait that
    would cross `policy.max_elapsed` is raised as is (the original exception, not a
    wrapper). Cancellation is never retried: it propagates from the operation or from
    the sleep immediately.
    """
    policy = policy or RetryPolicy()
    started = clock()
    retry_number = 0
    while True:
        try:
            return await operation()
        except Exception as error:
            retry_number += 1
            if retry_number >= policy.max_attempts or not retry_if(error):
                raise
            hint = retry_after_hint(error)
            if hint is not None:
                if hint > policy.max_delay:
                    raise
                delay = hint
            else:
                delay = policy.backoff(retry_number, random=random)
            if policy.max_elapsed is not None and clock() - started + delay > policy.max_elapsed:
                raise
            if on_retry is not None:
                on_retry(RetryAttempt(retry_number=retry_number, delay=delay, error=error))
            await sleep(delay)
