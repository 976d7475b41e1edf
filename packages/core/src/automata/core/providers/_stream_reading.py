"""How `SDKProvider.stream_reply` reads one streamed reply: opened and read up to its
first deltas inside the retries, then handed on under the call's limits (the rules are
in the docstring of `automata.core.providers`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from automata.core._errors import ProviderError
from automata.core._options import CallOptions
from automata.core._provider import ModelResponse, ProviderStreamItem
from automata.core._retry import retry
from automata.core.providers._deadline import Watch
from automata.core.providers._retry_tally import RetryTally
from automata.core.providers._sdk_protocols import Answer, Delta, SDKStream, StreamAssembler
from automata.core.providers._sse import SKIP

if TYPE_CHECKING:
    from automata.core.providers._sdk_provider import SDKProvider

__all__ = ["read_stream"]


class _Answered(Exception):
    """Raised inside a stream's first attempt when `answer` turned the vendor's error
    into a reply (never retried: it is an answer)."""

    def __init__(self, response: ModelResponse) -> None:
        super().__init__("answered")
        self.response = response


@dataclass(slots=True)
class _Opened:
    """A stream read up to its first deltas (or its end); nothing handed on yet."""

    stream: SDKStream
    assembler: StreamAssembler
    first: Sequence[Delta]
    ended: bool
    watch: Watch


def _raise_answer(answer: Answer | None, error: Exception) -> None:
    answered = None if answer is None else answer(error)
    if answered is not None:
        raise _Answered(answered) from error


async def _open(
    provider: SDKProvider[Any],
    options: CallOptions,
    open_stream: Callable[[], Awaitable[SDKStream]],
    new_assembler: Callable[[], StreamAssembler],
    answer: Answer | None,
) -> _Opened:
    """Start a stream and read it up to its first deltas (or its end); failures here
    are still retryable because nothing has been handed on. A failure that `answer`
    turns into a reply raises `_Answered`."""
    watch = provider._watch(options, streaming=True)
    try:
        stream: SDKStream = await watch.read(open_stream)
    except BaseException as error:
        watch.close()
        if isinstance(error, Exception):
            _raise_answer(answer, error)
            raise provider.map_error(error) from error
        raise
    assembler = new_assembler()
    try:
        while True:
            try:
                event = await watch.read(stream.__anext__)
            except StopAsyncIteration:
                if not assembler.finished:
                    raise provider._ended_early(retryable=True) from None
                return _Opened(stream, assembler, (), ended=True, watch=watch)
            except Exception as error:
                if assembler.finished and not provider.reported_in_stream(error):
                    # the reply is whole; only the tail is lost
                    return _Opened(stream, assembler, (), ended=True, watch=watch)
                raise
            deltas = assembler.feed(event)
            if deltas:
                return _Opened(stream, assembler, deltas, ended=False, watch=watch)
            if assembler.finished:
                watch.set_tail()
    except BaseException as error:
        watch.close()
        await stream.close()
        if isinstance(error, Exception):
            _raise_answer(answer, error)
            raise provider.map_error(error) from error
        raise


async def read_stream(
    provider: SDKProvider[Any],
    options: CallOptions,
    open_stream: Callable[[], Awaitable[SDKStream]],
    new_assembler: Callable[[], StreamAssembler],
    answer: Answer | None,
) -> AsyncIterator[ProviderStreamItem]:
    """Deltas as they arrive, then one `ModelResponse` (see
    `SDKProvider.stream_reply`). The reply, or the error raised, carries how many
    attempts to open the stream were repeated (`retries`)."""
    tally = RetryTally()
    try:
        opened = await retry(
            lambda: _open(provider, options, open_stream, new_assembler, answer),
            provider.retry_policy,
            sleep=provider._sleep,
            on_retry=tally,
        )
    except _Answered as answered:
        yield tally.on_reply(answered.response)
        return
    except ProviderError as error:
        tally.on_error(error)
        raise
    stream, assembler, watch = opened.stream, opened.assembler, opened.watch
    feed = assembler.feed
    begin, end = watch.begin, watch.end
    next_event = stream.__anext__
    # An event already read off the connection is handed on without a timed wait.
    buffered: Callable[[], Any] | None = getattr(stream, "buffered", None)
    if assembler.finished:
        watch.set_tail()
    try:
        for delta in opened.first:
            yield delta
        # Read to the end of the body even after the end marker, so the connection
        # goes back to the pool instead of being closed with bytes unread.
        while not opened.ended:
            try:
                event = SKIP if buffered is None else buffered()
                if event is SKIP:
                    begin()  # `watch.read(next_event)`, inline: one coroutine less
                    try:
                        event = await next_event()
                    except asyncio.CancelledError:
                        expired = watch.expired()
                        if expired is None:
                            raise
                        raise expired from None
                    finally:
                        end()
                deltas = feed(event)
                if assembler.finished:
                    watch.set_tail()
            except StopAsyncIteration:
                break
            except Exception as error:
                if assembler.finished and not provider.reported_in_stream(error):
                    break  # the reply is whole; only the tail of the body is lost
                raise tally.on_error(provider.map_error(error, after_content=True)) from error
            for delta in deltas:
                yield delta
    finally:
        watch.close()
        await stream.close()
    if not assembler.finished:
        raise tally.on_error(provider._ended_early(retryable=False))
    try:
        response = assembler.response()
    except Exception as error:
        raise tally.on_error(provider.map_error(error, after_content=True)) from error
    yield tally.on_reply(response)
