"""The vendor-facing protocols and defaults of `SDKProvider`, re-exported by
`automata.core.providers` (the public home of every name here)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any, Final, Protocol, TypedDict

from automata.core._provider import ModelResponse, TextDelta, ThinkingDelta, ToolCallDelta
from automata.core._retry import RetryPolicy

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_RETRY_STATUSES",
    "DEFAULT_STREAM_IDLE_TIMEOUT",
    "Answer",
    "Delta",
    "EventDecode",
    "SDKClient",
    "SDKOptions",
    "SDKPage",
    "SDKStream",
    "StreamAssembler",
]

DEFAULT_RETRY_STATUSES: Final = frozenset({429, 503, 529})
"""Rate limited, unavailable, overloaded: worth repeating after a wait."""

DEFAULT_CALL_TIMEOUT: Final = 1800.0
"""Seconds one attempt of a call may take in all (30 minutes): room for the longest
replies current models stream (128k output tokens at about 80 tokens a second), and
a bound where the SDK's own timeout, which applies to each read, has none."""

DEFAULT_STREAM_IDLE_TIMEOUT: Final = 300.0
"""Seconds a stream may go without an event (5 minutes): longer than a reasoning
model stays silent while it thinks, half the SDK's 600 s read timeout."""

Delta = TextDelta | ThinkingDelta | ToolCallDelta
"""What a stream hands on before its final `ModelResponse`."""

Answer = Callable[[Exception], ModelResponse | None]
"""The reply one of the SDK's errors stands for, or None when it is an error (see
`SDKProvider.answer_for_error`)."""

EventDecode = Callable[[str | None, str], Any]
"""One stream event (its name and data) as what an assembler reads, or `SKIP`."""


class SDKOptions(TypedDict, total=False):
    """The keyword arguments every `SDKProvider` takes beside `model` and `client`; a
    subclass forwards them as `**options: Unpack[SDKOptions]` (see `SDKProvider`)."""

    api_key: str | None
    base_url: str | None
    retry_policy: RetryPolicy | None
    retry_statuses: Collection[int]
    timeout: float | None
    call_timeout: float | None
    stream_idle_timeout: float | None
    sleep: Callable[[float], Awaitable[object]]
    max_reply_bytes: int | None


class SDKClient(Protocol):
    """What the base needs of a vendor SDK's async client: a way to close it (and, for
    the default `adopt_client`, a `with_options(max_retries=..., timeout=...)` copy)."""

    async def close(self) -> None: ...


class SDKStream(Protocol):
    """What the base needs of the stream an SDK call returns: the next event, and a
    way to release the HTTP response. A stream that also has `buffered()` (the next
    event already received, or `SKIP`; `SSEStream` has it) gets those events read
    without a timed wait each."""

    def __anext__(self) -> Awaitable[Any]: ...

    async def close(self) -> None: ...


class SDKPage(Protocol):
    """What `vendor_pages` needs of one page of an SDK listing (the Stainless-built
    SDKs' pages): its items, and the way to the next page."""

    @property
    def data(self) -> Sequence[Any]: ...

    def has_next_page(self) -> bool: ...

    def get_next_page(self) -> Awaitable[Any]: ...


class StreamAssembler(Protocol):
    """Folds one reply's stream events into deltas and one final `ModelResponse`.

    `feed` returns the deltas an event carries, in order (empty when it carries
    none). `finished` turns true once the vendor's end marker was seen (the reply is
    whole); `response()` is only called then.
    """

    @property
    def finished(self) -> bool: ...

    def feed(self, event: Any) -> Sequence[Delta]: ...

    def response(self) -> ModelResponse: ...
