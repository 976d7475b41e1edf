"""`SDKProvider`: the base of a provider over a vendor SDK's async client (the rules it
keeps and what a subclass writes are in the docstring of `automata.core.providers`)."""

from __future__ import annotations

import asyncio
import os
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from functools import partial
from typing import Any, ClassVar, Generic, Self, TypeVar

from automata.core._errors import MissingAPIKeyError, ProviderError, ProviderTimeoutError
from automata.core._options import CallOptions
from automata.core._provider import ModelRequest, ModelResponse, ProviderStreamItem
from automata.core._retry import RetryPolicy, parse_retry_after, retry
from automata.core.providers._client_streams import client_event_stream
from automata.core.providers._deadline import Deadlines, Expired, Watch
from automata.core.providers._raw import post_raw
from automata.core.providers._reply_cap import (
    DEFAULT_MAX_REPLY_BYTES,
    cap_reply_size,
    reply_too_large,
)
from automata.core.providers._retry_tally import RetryTally
from automata.core.providers._sdk_protocols import (
    DEFAULT_CALL_TIMEOUT,
    DEFAULT_RETRY_STATUSES,
    DEFAULT_STREAM_IDLE_TIMEOUT,
    Answer,
    EventDecode,
    SDKClient,
    SDKPage,
    SDKStream,
    StreamAssembler,
)
from automata.core.providers._stream_reading import read_stream

__all__ = ["SDKProvider", "final_response"]

ClientT = TypeVar("ClientT", bound=SDKClient)
T = TypeVar("T")
R = TypeVar("R")

_TEMPLATE_HOOKS: dict[str, tuple[str, ...]] = {
    "complete": ("send", "parse_response"),
    "stream": ("send", "new_assembler"),
}
"""The hooks the base's own `complete` and `stream` call (a vendor that writes its own
needs none of them)."""


class SDKProvider(ABC, Generic[ClientT]):
    """A provider over a vendor SDK's async client, streaming or not (see the module
    docstring for the rules it keeps and what a subclass implements).

    `api_key` and `base_url` go to the client the provider builds (the SDK reads its
    own environment variables for what is left `None`); `client` is a configured
    client to use instead, through `adopt_client` (its owner closes it). `timeout`
    (seconds) applies to every call. `retry_policy` (default `RetryPolicy()`) decides
    how often a failure marked retryable is repeated; `retry_statuses` are the HTTP
    statuses marked retryable. `sleep` is how retries wait (injectable for tests).

    A subclass's `__init__` takes its own settings and forwards the rest:

        def __init__(self, model: str, *, client: AcmeClient | None = None,
                     house_style: bool = False, **options: Unpack[SDKOptions]) -> None:
            super().__init__(model, client=client, **options)
            self._house_style = house_style
    """

    provider_name: ClassVar[str]
    """The vendor's name: prefixes every error message, and is reported as
    `gen_ai.provider.name` on tracing spans."""
    api_key_env: ClassVar[str]
    """The environment variable the SDK reads the API key from."""
    stream_end: ClassVar[str]
    """What marks a whole stream, as error messages name it."""
    client_class: ClassVar[Callable[..., Any]]
    """The SDK's async client class (`new_client` calls it with `api_key`, `base_url`,
    `max_retries` and `timeout`)."""
    supports_streaming: ClassVar[bool] = True
    """Every SDK provider streams (`stream()` as well as `complete()`)."""
    supports_native_output: ClassVar[bool] = False
    """Whether `ModelRequest.output_schema` maps onto a native JSON-schema mode."""
    http_client_class: ClassVar[type[Any] | None] = None
    """The SDK's default `httpx2.AsyncClient` (`DefaultAsyncHttpxClient`): when set,
    `new_client` gives the client one with `cap_reply_size(max_reply_bytes)`."""
    raw_response_class: ClassVar[type[Any]]
    """The HTTP response class the SDK's `post` hands back as it is (its `cast_to`,
    `httpx2.Response` for the Stainless-built SDKs): what `post_reply` and
    `post_stream` post with (set it to use them)."""
    sse_decoder_class: ClassVar[type[Any]]
    """The SDK's plain server-sent-events decoder: `post_stream` reads a body with
    `SSEStream` when the client's decoder is of this class, else with the client's
    own (see `client_event_stream`; set it to use `post_stream`)."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: ClientT | None = None,
        retry_policy: RetryPolicy | None = None,
        retry_statuses: Collection[int] = DEFAULT_RETRY_STATUSES,
        timeout: float | None = None,
        call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
        stream_idle_timeout: float | None = DEFAULT_STREAM_IDLE_TIMEOUT,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        max_reply_bytes: int | None = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        missing = _missing_hooks(type(self))
        if missing:
            raise TypeError(
                f"Can't instantiate {type(self).__name__} without {', '.join(missing)}: "
                "the base's complete and stream call them (or write complete and stream "
                "on the base's helpers)"
            )
        if max_reply_bytes is not None and max_reply_bytes < 1:
            raise ValueError(f"max_reply_bytes must be positive or None, got {max_reply_bytes}")
        self.max_reply_bytes = max_reply_bytes
        for name, limit in (
            ("call_timeout", call_timeout),
            ("stream_idle_timeout", stream_idle_timeout),
        ):
            if limit is not None and not limit > 0:
                raise ValueError(f"{name} must be positive or None, got {limit}")
        if client is not None and (api_key is not None or base_url is not None):
            raise ValueError("pass either client or api_key/base_url, not both")
        if client is None and not self.has_credentials(api_key):
            raise MissingAPIKeyError(
                f"{self.provider_name}: no API key: set the {self.api_key_env} environment "
                f"variable, or pass {type(self).__name__}(model, api_key=...)",
                provider=self.provider_name,
            )
        self._owns_client = client is None
        if client is None:
            client = self.new_client(api_key=api_key, base_url=base_url, timeout=timeout)
        else:
            client = self.adopt_client(client, timeout=timeout)
        self.client: ClientT = client
        self._model = model
        self.retry_policy = retry_policy or RetryPolicy()
        self.retry_statuses = frozenset(retry_statuses)
        self.call_timeout = call_timeout
        self.stream_idle_timeout = stream_idle_timeout
        self._sleep = sleep
        self._deadlines: Deadlines | None = None

    @property
    def model(self) -> str:
        """The model every call asks for."""
        return self._model

    # ------------------------------------------------------------- what a vendor writes

    @abstractmethod
    def request_params(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of the SDK call for `request`, without streaming
        flags. Never changes `request`; nested values may be shared with it."""

    async def send(self, params: dict[str, Any]) -> Any:
        """Make the SDK call with `params`: a reply object, or an `SDKStream` when
        `params` came from `stream_params`. Raises the SDK's own errors. Called by the
        base's `complete` and `stream` (a subclass that writes both needs none)."""
        raise NotImplementedError

    def parse_response(self, raw: Any, /) -> ModelResponse:
        """The `ModelResponse` for the reply object of a non-streaming call. Called by
        the base's `complete`."""
        raise NotImplementedError

    def new_assembler(self) -> StreamAssembler:
        """A fresh assembler for one streamed reply. Called by the base's `stream`."""
        raise NotImplementedError

    @abstractmethod
    def vendor_error(self, error: Exception) -> ProviderError | None:
        """The `ProviderError` for one of the SDK's (or its HTTP client's) exceptions,
        or None for anything else (the base reports that as not retryable). Build it
        with `status_error` and `connection_error` so that every provider's messages
        read alike; retryability after content is the base's concern."""

    # ------------------------------------------------------- hooks with a default

    def new_client(
        self, *, api_key: str | None, base_url: str | None, timeout: float | None
    ) -> ClientT:
        """A new SDK client: `client_class(api_key=..., base_url=..., **sdk_options)`
        (the SDK's own retries off), with an `http_client_class()` whose replies are
        capped at `max_reply_bytes` when the class is set. The provider owns it and
        closes it in `aclose()`."""
        options = self.sdk_options(timeout)
        if self.http_client_class is not None and self.max_reply_bytes is not None:
            options["http_client"] = cap_reply_size(
                self.http_client_class(),
                max_bytes=self.max_reply_bytes,
                provider=self.provider_name,
            )
        client: ClientT = self.client_class(api_key=api_key, base_url=base_url, **options)
        return client

    def adopt_client(self, client: ClientT, *, timeout: float | None) -> ClientT:
        """A caller's client as this provider uses it: `client.with_options(...)` with
        `sdk_options(timeout)`, a copy that shares its connection pool. The caller's
        client is not changed."""
        configurable: Any = client  # `with_options` is not typed alike by every SDK
        adopted: ClientT = configurable.with_options(**self.sdk_options(timeout))
        return adopted

    def stream_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """`params` for a streaming call (a new dict): adds `stream=True`."""
        return {**params, "stream": True}

    def call_params(self, request: ModelRequest) -> dict[str, Any]:
        """The params a call sends: `request_params`. Override to warn about options
        the vendor does not take (the call then goes out without them). A `complete`
        that streams under the hood calls it twice."""
        return self.request_params(request)

    def completes_by_streaming(self, params: dict[str, Any]) -> bool:
        """Whether `complete` must stream under the hood (an SDK refusing long
        non-streaming calls). Default: never."""
        return False

    def answer_for_error(self, error: Exception, request: ModelRequest) -> ModelResponse | None:
        """The reply to stand for `error` (the SDK's own exception, raised before any
        delta) when the vendor refused what the model wrote rather than the request,
        such as a tool call it could not parse: a turn whose `ToolUseBlock` carries
        `input_error`, which the loop answers `invalid args: ...` so the model corrects
        it within the run's `max_steps`. None (the default): `error` is an error."""
        return None

    def reported_in_stream(self, error: Exception) -> bool:
        """Whether `error` (the SDK's own) is an error the server sent inside the
        stream, which is raised even after the reply's end marker (the server said the
        call failed); any other failure there only loses the tail and is ignored.
        Default: none is."""
        return False

    def has_credentials(self, api_key: str | None) -> bool:
        """Whether a client built now would have a key: `api_key`, or the
        `api_key_env` environment variable, set and not empty."""
        return bool(api_key) or bool(os.environ.get(self.api_key_env))

    # ------------------------------------------------------------ shared helpers

    @staticmethod
    def sdk_options(timeout: float | None) -> dict[str, Any]:
        """The SDK client options every provider sets: `max_retries=0` (one retry
        policy decides), and `timeout` when given."""
        return {"max_retries": 0} if timeout is None else {"max_retries": 0, "timeout": timeout}

    def status_error(
        self,
        status: int | None,
        kind: str,
        detail: str,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> ProviderError:
        """`"<provider>: <status> <kind>: <detail>"`, retryable when `status` is one of
        `retry_statuses`, carrying the server's retry-after hint from `headers`."""
        label = f"{status or ''} {kind}".strip() or "error"
        return ProviderError(
            f"{self.provider_name}: {label}: {detail}",
            provider=self.provider_name,
            status=status,
            retryable=status in self.retry_statuses,
            retry_after=parse_retry_after(headers),
        )

    def connection_error(self, error: BaseException) -> ProviderError:
        """`"<provider>: connection to <url> failed: <cause>"`, retryable. The URL is
        the request's (the client's base URL when the error carries no request); the
        cause is the HTTP client's own error when the SDK wrapped one."""
        cause = error.__cause__ if error.__cause__ is not None else error
        detail = str(cause) or type(cause).__name__
        return ProviderError(
            f"{self.provider_name}: connection to {self._url_of(error)} failed: {detail}",
            provider=self.provider_name,
            retryable=True,
        )

    def _url_of(self, error: BaseException) -> str:
        try:
            request = getattr(error, "request", None)  # httpx raises when it has none
        except RuntimeError:
            request = None
        url = getattr(request, "url", None)
        if url is None:
            url = getattr(self.client, "base_url", "the server")
        return str(url)

    def map_error(self, error: Exception, *, after_content: bool = False) -> ProviderError:
        """The `ProviderError` to raise for `error` (see the module docstring).
        `after_content` marks a failure after part of the reply was handed on: never
        retryable then."""
        too_large = reply_too_large(error)
        if isinstance(error, ProviderError):
            mapped = error
        elif too_large is not None:  # raised by the HTTP client, wrapped by the SDK
            mapped = too_large
        elif isinstance(error, Expired):
            mapped = self._timed_out(str(error))
        else:
            vendor = self.vendor_error(error)
            if vendor is None:
                reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
                vendor = ProviderError(
                    f"{self.provider_name}: {reason}", provider=self.provider_name
                )
            mapped = vendor
        if after_content and mapped.retryable:
            final = (
                ProviderTimeoutError if isinstance(mapped, ProviderTimeoutError) else ProviderError
            )
            return final(
                str(mapped),
                provider=mapped.provider,
                status=mapped.status,
                retry_after=mapped.retry_after,
                usage=mapped.usage,
            )
        return mapped

    # ------------------------------------------------------------------ lifecycle

    async def aclose(self) -> None:
        """Close the client this provider built (a passed-in client stays open: its
        owner closes it)."""
        if self._owns_client:
            await self.client.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self._model!r})"

    # ---------------------------------------------------------------------- calls

    def _watch(self, options: CallOptions, *, streaming: bool) -> Watch:
        """The limits of one attempt: the request's, else the provider's (a call that
        does not stream has no idle limit: its reply comes whole)."""
        call_timeout = options.call_timeout or self.call_timeout
        idle = (options.stream_idle_timeout or self.stream_idle_timeout) if streaming else None
        loop = asyncio.get_running_loop()
        deadlines = self._deadlines
        if deadlines is None or deadlines.loop is not loop:
            deadlines = self._deadlines = Deadlines(loop)  # one per loop the provider serves
        return Watch(call_timeout, idle, deadlines)

    def _timed_out(self, reason: str) -> ProviderTimeoutError:
        return ProviderTimeoutError(
            f"{self.provider_name}: timed out: {reason}",
            provider=self.provider_name,
            retryable=True,
        )

    def _ended_early(self, *, retryable: bool) -> ProviderError:
        return ProviderError(
            f"{self.provider_name}: stream ended before {self.stream_end}",
            provider=self.provider_name,
            retryable=retryable,
        )

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One whole reply: `parse_response(await send(call_params(request)))` through
        `call_reply` (or the last item of `stream(request)` when
        `completes_by_streaming`). A vendor may write its own `complete` on the
        helpers instead (then it needs no `send` or `parse_response`)."""
        params = self.call_params(request)
        if self.completes_by_streaming(params):
            return await final_response(self.stream(request))
        answer_for_error = self.answer_for_error
        return await self.call_reply(
            request.options,
            partial(self.send, params),
            self.parse_response,
            answer=lambda error: answer_for_error(error, request),
        )

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        """Deltas as they arrive, then one `ModelResponse`: `send(stream_params(...))`
        folded by `new_assembler()` through `stream_reply`. The params are built when
        this is called, the request sent when the stream is first read. A vendor may
        write its own `stream` on the helpers instead (then it needs no `send` or
        `new_assembler`)."""
        params = self.stream_params(self.call_params(request))
        answer_for_error = self.answer_for_error
        return self.stream_reply(
            request.options,
            partial(self.send, params),
            self.new_assembler,
            answer=lambda error: answer_for_error(error, request),
        )

    # ------------------------------------------------- the helpers a call is made of

    async def call_reply(
        self,
        options: CallOptions,
        send: Callable[[], Awaitable[R]],
        read: Callable[[R], ModelResponse],
        *,
        answer: Answer | None = None,
    ) -> ModelResponse:
        """One whole reply: `read(await send())`, each attempt within the call's
        deadline (`options`, else the provider's), every failure a `ProviderError`
        through `map_error`, retryable ones repeated per `retry_policy`; the reply, or
        the error raised, carries how many attempts were repeated (`retries`).
        `answer` turns one of the SDK's errors into the reply it stands for (see
        `answer_for_error`), or gives None: the error is raised."""

        async def once() -> ModelResponse:
            try:
                raw = await send()
            except Exception as error:
                answered = None if answer is None else answer(error)
                if answered is None:
                    raise
                return answered
            return read(raw)

        tally = RetryTally()
        try:
            response = await self._attempts(once, options, tally)
        except ProviderError as error:
            tally.on_error(error)
            raise
        return tally.on_reply(response)

    async def post_reply(
        self,
        options: CallOptions,
        path: str,
        body: Mapping[str, Any],
        read: Callable[[Any], ModelResponse],
        *,
        post_options: Mapping[str, Any] | None = None,
        answer: Answer | None = None,
    ) -> ModelResponse:
        """`call_reply` for `body` posted to `path` through the client's `post`
        (`post_raw`, with `raw_response_class` and the SDK's request `post_options`):
        `read` gets the HTTP response, its body read whole."""
        client, response_class = self.client, self.raw_response_class

        def send() -> Awaitable[Any]:
            return post_raw(
                client,
                path,
                body,
                response_class=response_class,
                stream=False,
                options=post_options,
            )

        return await self.call_reply(options, send, read, answer=answer)

    def stream_reply(
        self,
        options: CallOptions,
        open_stream: Callable[[], Awaitable[SDKStream]],
        new_assembler: Callable[[], StreamAssembler],
        *,
        answer: Answer | None = None,
    ) -> AsyncIterator[ProviderStreamItem]:
        """Deltas as they arrive, then one `ModelResponse`: the events of
        `await open_stream()` folded by a `new_assembler()` per attempt. The stream is
        read up to its first delta inside the retries (see `automata.core.providers`);
        after a delta was handed on, a failure raises a non-retryable `ProviderError`
        (the agent loop reports it as an incomplete response), running past the
        call's deadline or idle limit a `ProviderTimeoutError`. `answer` as in
        `call_reply`, before the first delta."""
        return read_stream(self, options, open_stream, new_assembler, answer)

    def post_stream(
        self,
        options: CallOptions,
        path: str,
        body: Mapping[str, Any],
        decode: Callable[[Any], EventDecode],
        new_assembler: Callable[[], StreamAssembler],
        *,
        post_options: Mapping[str, Any] | None = None,
        answer: Answer | None = None,
    ) -> AsyncIterator[ProviderStreamItem]:
        """`stream_reply` for `body` posted to `path` through the client's `post`
        (opened for streaming), its events read in the client's own framing
        (`client_event_stream` with `sse_decoder_class`): `decode(response)` gives
        what turns each event into what the assembler reads."""
        return read_stream(
            self,
            options,
            partial(self._open_posted, path, body, decode, post_options),
            new_assembler,
            answer,
        )

    async def _open_posted(
        self,
        path: str,
        body: Mapping[str, Any],
        decode: Callable[[Any], EventDecode],
        post_options: Mapping[str, Any] | None,
    ) -> SDKStream:
        client = self.client
        response: Any = await post_raw(
            client,
            path,
            body,
            response_class=self.raw_response_class,
            stream=True,
            options=post_options,
        )
        return client_event_stream(
            client,
            response,
            decode(response),
            sse_decoder=self.sse_decoder_class,
            provider=self.provider_name,
        )

    async def _attempts(
        self,
        call: Callable[[], Awaitable[T]],
        options: CallOptions,
        tally: RetryTally | None = None,
    ) -> T:
        async def attempt() -> T:
            watch = self._watch(options, streaming=False)
            try:
                return await watch.read(call)
            except Exception as error:
                raise self.map_error(error) from error
            finally:
                watch.close()

        return await retry(attempt, self.retry_policy, sleep=self._sleep, on_retry=tally)

    async def vendor_call(self, call: Callable[[], Awaitable[T]]) -> T:
        """`await call()` (an SDK call, and reading its reply) under the rules of
        `complete`: each attempt ends within `call_timeout`, every failure becomes a
        `ProviderError` through `map_error`, and retryable ones are repeated per
        `retry_policy`. For the vendor's other services (a model list, embeddings)."""
        return await self._attempts(call, CallOptions())

    async def vendor_pages(self, first: Callable[[], Awaitable[SDKPage]]) -> list[Any]:
        """Every item of a paginated SDK listing, in the vendor's order: `first()` gives
        the first page, each page's `get_next_page()` the next while `has_next_page()`.
        Each page is one `vendor_call`, so a failed page is retried alone."""
        page = await self.vendor_call(first)
        items = list(page.data or ())
        while page.has_next_page():
            page = await self.vendor_call(page.get_next_page)
            items.extend(page.data or ())
        return items


async def final_response(items: AsyncIterator[ProviderStreamItem]) -> ModelResponse:
    """The `ModelResponse` a provider's stream ends with (its deltas dropped): how a
    `complete` that must stream under the hood reads its reply."""
    final: ModelResponse | None = None
    async for item in items:
        if isinstance(item, ModelResponse):
            final = item
    if final is None:  # pragma: no cover - a provider's stream ends with a response
        raise ProviderError("the stream ended without a ModelResponse")
    return final


def _missing_hooks(cls: type[SDKProvider[Any]]) -> list[str]:
    """The hooks `cls` must write and does not: those of the base's `complete` and
    `stream` that `cls` keeps."""
    missing: list[str] = []
    for method, hooks in _TEMPLATE_HOOKS.items():
        if getattr(cls, method) is getattr(SDKProvider, method):
            missing.extend(
                hook
                for hook in hooks
                if getattr(cls, hook) is getattr(SDKProvider, hook) and hook not in missing
            )
    return missing
