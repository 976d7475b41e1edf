"""`OpenAIResponsesProvider`: the Responses API behind automata's provider protocols."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from functools import partial
from typing import Any, Final, Literal, Unpack

from automata.core.providers import (
    ModelRequest,
    ModelResponse,
    ProviderError,
    ProviderStreamItem,
    SDKOptions,
    raw_post_problem,
    reply_data,
)
from automata.openai._catalog import DEFAULT_EMBEDDING_MODEL, MAX_EMBEDDING_INPUTS, OpenAIServices
from automata.openai._errors import _STATUS_OF_STREAM_ERROR, vendor_error
from automata.openai._posting import POST_OPTIONS
from automata.openai._provider import ReasoningEffort
from automata.openai._reply import PROVIDER
from automata.openai._reply_stream import stream_decoder
from automata.openai._responses_reply import (
    ModelEventsAssembler,
    ResponsesAssembler,
    json_of,
    response_from,
)
from automata.openai._responses_wire import ResponsesSettings, build_params
from openai import AsyncOpenAI

__all__ = ["OpenAIResponsesProvider"]

ReasoningSummary = Literal["auto", "concise", "detailed"]

_PATH: Final = "/responses"
"""Where `responses.create` posts (relative to the client's base URL)."""


class OpenAIResponsesProvider(OpenAIServices):
    """The OpenAI Responses API (`POST /v1/responses`) through the official `openai`
    SDK's client, streaming or not.

    The request goes out as `client.responses.create` sends it, whatever the client's
    class (`AsyncOpenAI`, `AsyncAzureOpenAI`, ...): the body built from the blocks is
    posted through the client's `post`, and the reply's JSON, or its events' JSON, is
    read straight into blocks, without the SDK's parameter transformation and
    response models. A client whose `post` no longer takes those requests goes
    through `responses.create` (with a `UserWarning`), its models dumped to the JSON
    they were read from and read by the same reader.

    Works with any server that speaks the Responses API at its `base_url`. Keys,
    clients, retries (429, 503 and 529, only before any delta), deadlines and error
    mapping are those of `OpenAIProvider` (errors read `openai: <status> <code>: ...`).

    Every request carries the whole transcript by default: reasoning items go back
    verbatim (their `encrypted_content` included), so a conversation needs nothing
    kept on the server. Settings:

    - `store`: sent as `store` when set; `store=False` (stateless, Zero Data
      Retention) also asks for `include=["reasoning.encrypted_content"]`, so the
      reasoning can be sent back.
    - `use_previous_response_id`: send `previous_response_id` of the latest reply in
      the transcript that this provider read, and only the messages after it (the
      whole transcript when there is none). Needs the server to keep responses, so
      it cannot be combined with `store=False`.
    - `reasoning_effort` (sent on every call; otherwise a `thinking_budget` is
      translated into an effort) and `reasoning_summary` (sent with an effort).
    - `system_role`: "developer" to send system messages with that role.

    Like `OpenAIProvider`, it is also a `ModelCatalog` (`list_models`, `get_model`:
    `GET /models`) and an `Embedder` (`embed`: `POST /embeddings`, with
    `embedding_model` and `embed_batch_size`), on the same base URL and key.
    """

    provider_name = PROVIDER
    client_class = AsyncOpenAI
    api_key_env = "OPENAI_API_KEY"
    stream_end = "response.completed"
    supports_native_output = True
    """Structured output maps onto `text.format` json_schema (strict when the schema
    allows it)."""

    def __init__(
        self,
        model: str,
        *,
        client: AsyncOpenAI | None = None,
        store: bool | None = None,
        use_previous_response_id: bool = False,
        reasoning_effort: ReasoningEffort | None = None,
        reasoning_summary: ReasoningSummary | None = "auto",
        system_role: Literal["system", "developer"] = "system",
        embedding_model: str = DEFAULT_EMBEDDING_MODEL,
        embed_batch_size: int = MAX_EMBEDDING_INPUTS,
        **options: Unpack[SDKOptions],
    ) -> None:
        if use_previous_response_id and store is False:
            raise ValueError(
                "use_previous_response_id needs responses kept on the server; "
                "it cannot be combined with store=False"
            )
        super().__init__(
            model,
            client=client,
            embedding_model=embedding_model,
            embed_batch_size=embed_batch_size,
            **options,
        )
        self._settings = ResponsesSettings(
            model=model,
            system_role=system_role,
            reasoning_effort=reasoning_effort,
            reasoning_summary=reasoning_summary,
            store=store,
            use_previous_response_id=use_previous_response_id,
        )
        self._warned = False
        problem = raw_post_problem(self.client)
        if problem is not None:
            warnings.warn(
                f"OpenAIResponsesProvider: calls go through responses.create: {problem}",
                UserWarning,
                stacklevel=2,
            )
        self._posts_raw = problem is None

    # ------------------------------------------------------------------- calls

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One whole reply: the body built from `request`, posted as
        `responses.create` posts it, its JSON read into blocks."""
        params = self.call_params(request)
        if not self._posts_raw:
            create = partial(self.client.responses.create, **params)
            return await self.call_reply(request.options, create, _read_model)
        return await self.post_reply(
            request.options, _PATH, params, _read_reply, post_options=POST_OPTIONS
        )

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        """Deltas as they arrive, then one `ModelResponse`: the body built from
        `request` (when this is called) and posted for streaming (when the stream is
        first read), its events read in the client's own framing."""
        params = self.stream_params(self.call_params(request))
        if not self._posts_raw:
            create: Any = partial(self.client.responses.create, **params)
            assembler = partial(ModelEventsAssembler, self._stream_failure)
            return self.stream_reply(request.options, create, assembler)
        return self.post_stream(
            request.options,
            _PATH,
            params,
            stream_decoder,
            partial(ResponsesAssembler, self._stream_failure),
            post_options=POST_OPTIONS,
        )

    # ------------------------------------------------------------ what it shares

    def request_params(self, request: ModelRequest) -> dict[str, Any]:
        """The `responses.create` arguments this provider sends for `request`, to see
        how blocks and options map. Nested values (schemas, tool inputs, kept items)
        are the request's own objects: read them, do not change them."""
        return build_params(request, self._settings)

    def call_params(self, request: ModelRequest) -> dict[str, Any]:
        """`request_params`, warning once that `stop_sequences` are not sent (the
        Responses API has no such parameter)."""
        if request.options.stop_sequences and not self._warned:
            self._warned = True
            warnings.warn(
                "openai-responses: the Responses API takes no stop sequences; "
                "stop_sequences are not sent",
                UserWarning,
                stacklevel=3,
            )
        return build_params(request, self._settings)

    def _stream_failure(self, code: str, message: str) -> ProviderError:
        """An `error` event or `response.failed`: its code gives a status when known."""
        return self.status_error(_STATUS_OF_STREAM_ERROR.get(code), code, message)

    def vendor_error(self, error: Exception) -> ProviderError | None:
        return vendor_error(self, error)


def _read_reply(response: Any) -> ModelResponse:
    """A whole reply's JSON as blocks."""
    return response_from(reply_data(response))


def _read_model(response: Any) -> ModelResponse:
    """The SDK's `Response` (from `responses.create`), dumped to its JSON, as blocks."""
    return response_from(json_of(response))
