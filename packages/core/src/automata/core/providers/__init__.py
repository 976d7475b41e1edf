"""The toolkit for provider authors: one base for providers built on a vendor's SDK,
and every type a provider reads or returns.

`SDKProvider` holds what every SDK-backed provider does alike, written once:

- **Client ownership.** A client the provider built is its own and `aclose()` (or
  `async with provider:`) closes it; a client passed in is the caller's and stays
  open. Passing a client together with `api_key` / `base_url` is a `ValueError`.
- **Credentials.** Without a client, a missing API key is refused at construction
  with `MissingAPIKeyError`, naming the environment variable and `api_key=`.
- **Retries, only before the first delta.** The SDK's own retries are off; one
  `RetryPolicy` decides. A non-streaming call is retried as a whole. A stream is read
  up to its first delta inside the retry, so a stream that fails before producing
  content (an error event, a dropped connection, a body that ends early) is retried
  too. Once a delta has been handed on, nothing is retried.
- **Error mapping.** Every failure of a call (the SDK's errors, the HTTP client's, a
  reply that cannot be parsed) becomes a `ProviderError` chained to the original: the
  vendor's own errors through `vendor_error`, anything else as `"<provider>: <Type>:
  <message>"`, never retryable. A failure after content was handed on is never
  retryable, whatever its status (the agent loop reports it as
  `IncompleteResponseError`). A failure after the reply is whole (its end marker seen)
  only loses the tail of the body and is ignored, unless the server reported it in the
  stream (`reported_in_stream`: it said the call failed), which is raised. A body that
  ends before its end marker is an error: retryable before the first delta, final after
  it. A reply whose body decodes past `max_reply_bytes` (default
  `DEFAULT_MAX_REPLY_BYTES`; None: no cap) raises `ReplyTooLargeError`, on both paths,
  for the clients the provider builds (`http_client_class`, through `cap_reply_size`); a
  passed-in client keeps its own HTTP client (build that with `cap_reply_size` to cap it
  too).
  `ContentDecoder` is the bounded decoder the cap reads with, for any reader of
  untrusted compressed bodies (`automata.tools`' `http_fetch` adds an expansion check
  through its `check`).
  Cancellation always propagates as `asyncio.CancelledError` and closes the response.
- **Deadlines.** Each attempt of a call ends within `call_timeout` seconds (default
  `DEFAULT_CALL_TIMEOUT`), keepalives or not, and a stream that sends no event for
  `stream_idle_timeout` seconds (default `DEFAULT_STREAM_IDLE_TIMEOUT`; the wait for
  its response headers included) is given up; a request's `CallOptions` override
  both. Either raises `ProviderTimeoutError`: retryable before the first delta,
  final after it. Once the end marker was seen, the rest of the body gets at most
  `TAIL_GRACE` seconds.

## Writing a provider

A new vendor writes, on a subclass of `SDKProvider[ItsClient]`:

- class attributes `provider_name` (e.g. `"acme"`), `client_class` (the SDK's async
  client), `api_key_env` (e.g. `"ACME_API_KEY"`), `stream_end` (how its stream says it
  is complete, for error messages, e.g. `"message_stop"`) and, when it has a
  JSON-schema mode, `supports_native_output = True`;
- `request_params`: a `ModelRequest` as the keyword arguments of the SDK call;
- `vendor_error`: the SDK's exceptions as `ProviderError`s, usually through
  `status_error` and `connection_error`;
- and how a call is made, one of two ways:
  - the hooks the base's own `complete` and `stream` call: `send` (the SDK call
    itself: a reply object, or a stream when the params ask for one),
    `parse_response` (the SDK's reply object as a `ModelResponse`; a plain function
    serves: `parse_response = staticmethod(response_from)`) and `new_assembler` (a
    fresh `StreamAssembler` that folds stream events into deltas and one
    `ModelResponse`; the assembler's class serves: `new_assembler = Assembler`);
  - or `complete` and `stream` themselves, top to bottom (build the body, make the
    call, read the reply), on the base's helpers, which keep every rule above:
    `call_reply(options, send, read)` (one whole reply) and
    `stream_reply(options, open_stream, new_assembler)` (deltas, then the reply), and
    for a body posted through a Stainless-built client's `post`, `post_reply` and
    `post_stream` (with `raw_response_class` and `sse_decoder_class` set); each takes
    an `answer` for a vendor error that stands for a reply (see `answer_for_error`).
    `final_response(stream)` is the reply a `complete` that must stream reads. The
    Anthropic and OpenAI providers are written this way.

A subclass that writes neither `complete` nor its hooks (or neither `stream` nor its
hooks) is refused at construction with a `TypeError` naming what is missing.

Optional capabilities: a vendor whose API lists models or makes embeddings implements
`ModelCatalog` / `Embedder` (`automata.core.providers` exports both and their values)
with `vendor_call` and `vendor_pages`, so those calls keep the same error mapping,
deadlines and retries as `complete`.

Optional hooks: `new_client` and `adopt_client` (default: through `client_class` and
`client.with_options`, with the SDK's retries off), `has_credentials` (default:
`api_key` or the `api_key_env` variable is set), `reported_in_stream` (default: none;
an error event the server sends after the end marker, raised rather than ignored),
and for the base's own `complete` and `stream`: `stream_params` (default: adds
`stream=True`), `call_params` (default: `request_params`; override to warn about
options the vendor does not take), `completes_by_streaming` (default: never) and
`answer_for_error` (default: none; a vendor error that is in fact the model's own
malformed turn, such as Groq's `tool_use_failed`, as the reply the loop corrects).

## Skipping the SDK's models (the fast path)

An SDK's parameter transformation and response models cost more client CPU than the
rest of a call. A provider on a Stainless-generated SDK (Anthropic's, OpenAI's) can
keep the SDK's client (auth, base URL, headers, timeouts, error types) and skip them:
`post_reply` / `post_stream` post the body with `post_raw` (the SDK's documented
`client.post(path, cast_to=httpx.Response, body=...)`, so each client class, Azure's,
Bedrock's or Vertex's included, prepares, rewrites and signs the request as its own
`create` does), the provider reads the reply's JSON (`reply_data`; `read_reply` reads a
reply of the wrong shape again through the SDK's models, so it fails exactly as on the
SDK's path), and a stream is `client_event_stream(client, response, decode, ...)`: an
`SSEStream` over the response, or the client's own decoder when its class frames
streams otherwise (Bedrock's AWS event stream), whose `decode` turns each event into
what the assembler reads. A `send` hook can do the same with these pieces.
`raw_post_problem(client)` says whether the client's `post` still takes what
`post_raw` passes; when it does not, the provider keeps the SDK's own calls.

Then test it against a local server speaking the vendor's wire format, with the
provider conformance suite (`automata.core.testing.conformance`); see
docs/providers.md.
"""

from __future__ import annotations

from automata.core._blocks import (
    Block,
    Citation,
    DocumentBlock,
    ImageBlock,
    Message,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from automata.core._capabilities import Embedder, Embeddings, ModelCatalog, ModelInfo, capability
from automata.core._errors import (
    MissingAPIKeyError,
    ProviderError,
    ProviderTimeoutError,
    ReplyTooLargeError,
)
from automata.core._options import CallOptions
from automata.core._provider import (
    ModelRequest,
    ModelResponse,
    OutputSchema,
    ProviderStreamItem,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolSpec,
)
from automata.core._retry import RetryPolicy, parse_retry_after, retry
from automata.core._stop import StopReason
from automata.core._usage import Usage
from automata.core.providers._client_streams import ClientEventStream, client_event_stream
from automata.core.providers._content_coding import ContentDecoder
from automata.core.providers._deadline import TAIL_GRACE
from automata.core.providers._raw import (
    RAW_POST_PARAMETERS,
    RawResponse,
    post_raw,
    raw_post_problem,
    read_reply,
    reply_data,
)
from automata.core.providers._reply_cap import DEFAULT_MAX_REPLY_BYTES, cap_reply_size
from automata.core.providers._sdk_protocols import (
    DEFAULT_CALL_TIMEOUT,
    DEFAULT_RETRY_STATUSES,
    DEFAULT_STREAM_IDLE_TIMEOUT,
    Delta,
    SDKClient,
    SDKOptions,
    SDKPage,
    SDKStream,
    StreamAssembler,
)
from automata.core.providers._sdk_provider import SDKProvider, final_response
from automata.core.providers._sse import DEFAULT_MAX_EVENT_BYTES, SKIP, RawStreamResponse, SSEStream

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_REPLY_BYTES",
    "DEFAULT_RETRY_STATUSES",
    "DEFAULT_STREAM_IDLE_TIMEOUT",
    "RAW_POST_PARAMETERS",
    "SKIP",
    "TAIL_GRACE",
    "Block",
    "CallOptions",
    "Citation",
    "ClientEventStream",
    "ContentDecoder",
    "Delta",
    "DocumentBlock",
    "Embedder",
    "Embeddings",
    "ImageBlock",
    "Message",
    "MissingAPIKeyError",
    "ModelCatalog",
    "ModelInfo",
    "ModelRequest",
    "ModelResponse",
    "OutputSchema",
    "ProviderError",
    "ProviderStreamItem",
    "ProviderTimeoutError",
    "RawBlock",
    "RawResponse",
    "RawStreamResponse",
    "ReplyTooLargeError",
    "RetryPolicy",
    "SDKClient",
    "SDKOptions",
    "SDKPage",
    "SDKProvider",
    "SDKStream",
    "SSEStream",
    "StopReason",
    "StreamAssembler",
    "TextBlock",
    "TextDelta",
    "ThinkingBlock",
    "ThinkingDelta",
    "ToolCallDelta",
    "ToolResultBlock",
    "ToolSpec",
    "ToolUseBlock",
    "Usage",
    "cap_reply_size",
    "capability",
    "client_event_stream",
    "final_response",
    "parse_retry_after",
    "post_raw",
    "raw_post_problem",
    "read_reply",
    "reply_data",
    "retry",
]
