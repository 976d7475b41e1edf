"""`GoogleProvider`: the Gemini API (and Vertex AI) behind automata's provider
protocols, on the official `google-genai` SDK."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import AsyncIterator, Mapping, Sequence
from functools import partial
from typing import Any, Final, Unpack

import httpx2

from automata.core.providers import (
    Embeddings,
    ModelInfo,
    ModelRequest,
    ModelResponse,
    ProviderError,
    ProviderStreamItem,
    SDKOptions,
    SDKProvider,
    cap_reply_size,
)
from automata.google import _catalog, _public
from automata.google._errors import vendor_error
from automata.google._reading import not_a_reply, response_from
from automata.google._stream import STREAM_END, StreamAssembler
from automata.google._wire import PROVIDER, ServerTools, WireSettings, build_body
from google import genai
from google.genai import types

__all__ = ["DEFAULT_EMBEDDING_MODEL", "GoogleProvider"]

DEFAULT_EMBEDDING_MODEL: Final = "gemini-embedding-001"
_KEY_ENVS: Final = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
GEMINI_API_VERSION: Final = "v1beta"
"""The Gemini API version a client the provider builds speaks (the SDK's own default is
`v1`): the version whose reference documents every field the provider sends and reads
(`thoughtSignature`, `parametersJsonSchema`, `responseJsonSchema`, `thinkingConfig`,
the server-side tools)."""
_NO_RETRIES: Final = types.HttpOptions(retry_options=types.HttpRetryOptions(attempts=1))
"""Per call, for a client passed in: the SDK's own retries off, the client unchanged."""


def model_path(model: str, *, vertexai: bool) -> str:
    """The resource path of `model` as the SDK names it: `models/<id>` on the Gemini
    API (`tunedModels/...` as given), `publishers/google/models/<id>` on Vertex AI
    (`<publisher>/<id>`, `projects/...` and `models/...` as given)."""
    if vertexai:
        if model.startswith(("projects/", "models/", "publishers/")):
            return model
        if "/" in model:
            publisher, ident = model.split("/", 1)
            return f"publishers/{publisher}/models/{ident}"
        return f"publishers/google/models/{model}"
    if model.startswith(("models/", "tunedModels/")):
        return model
    return f"models/{model}"


class _Chunks:
    """The SDK's stream of `generateContent` chunks as an `SDKStream`: each chunk's
    JSON, read from the body the SDK hands on."""

    __slots__ = ("_chunks",)

    def __init__(self, chunks: Any) -> None:
        self._chunks = chunks

    async def __anext__(self) -> Any:
        chunk = await self._chunks.__anext__()
        return json.loads(chunk.body) if chunk.body else {}

    async def close(self) -> None:
        await self._chunks.aclose()


def _read_reply(response: Any) -> ModelResponse:
    """A whole reply's JSON as blocks (a body that is no JSON named as such)."""
    body = response.body
    try:
        data = json.loads(body) if body else None
    except ValueError:
        raise not_a_reply(body, "not JSON") from None
    return response_from(data)


class GoogleProvider(SDKProvider[Any]):
    """Gemini through the official `google-genai` SDK (the Gemini API, or Vertex AI),
    streaming or not.

    On the Gemini API it reads `GEMINI_API_KEY` (or `GOOGLE_API_KEY`) unless `api_key`
    is passed; `base_url` points the client at another endpoint (a proxy, a local
    server). `vertexai=True` speaks to Vertex AI instead: with `project` and
    `location` (or `GOOGLE_CLOUD_PROJECT` / `GOOGLE_CLOUD_LOCATION`), authenticated
    by `credentials` (a `google.auth` credentials object) or Application Default
    Credentials; or with an `api_key` alone (Vertex AI express mode). A configured
    `genai.Client` may be passed as `client` instead (its owner closes it; its own
    retries are turned off per call, the client unchanged). Credentials, client
    ownership, retries (429, 503 and 529, only before any delta), deadlines and error
    mapping are those of `automata.core.providers.SDKProvider`, whose `SDKOptions` it
    takes.

    `max_tokens` is sent as `maxOutputTokens` when a call sets none (None: the
    model's own limit). A `thinking_budget` is sent as `thinkingConfig.thinkingBudget`,
    with `includeThoughts` unless `include_thoughts=False`. `google_search`,
    `code_execution` and `url_context` turn on Gemini's server-side tools;
    `safety_settings` are sent as the API's `safetySettings` (each
    `{"category": ..., "threshold": ...}`).

    The body built from the blocks is posted through the client's own API client, as
    `models.generate_content` posts it (the same URL, authentication and headers, on
    either platform), and the reply's JSON is read straight into blocks, without the
    SDK's request and response models: what the server sent (thought signatures
    included) is what goes back. A client whose `aio` lacks that API client (or whose
    `async_request` takes other parameters) goes through the public
    `models.generate_content` and `generate_content_stream` instead, with a
    `UserWarning`: the same bytes on the wire and the same blocks read back (see
    `automata.google._public`).

    On the Gemini API a client the provider builds speaks `api_version` (default
    `GEMINI_API_VERSION`, `v1beta`, unless `GOOGLE_GENAI_API_VERSION` names another);
    on Vertex AI the SDK's own default (`v1beta1`) unless `api_version` is given. A
    passed-in client keeps its own.

    It is also a `ModelCatalog` (`list_models`, `get_model`) and an `Embedder`
    (`embed`, with `embedding_model` unless a call names one), through the SDK's own
    `models.list`, `models.get` and `models.embed_content`.
    """

    provider_name = PROVIDER
    client_class = genai.Client
    api_key_env = "GEMINI_API_KEY"
    stream_end = STREAM_END
    supports_native_output = True
    """Structured output maps onto `responseJsonSchema` with `responseMimeType`
    `application/json`."""
    client: genai.Client

    def __init__(
        self,
        model: str,
        *,
        client: genai.Client | None = None,
        vertexai: bool = False,
        project: str | None = None,
        location: str | None = None,
        credentials: Any = None,
        max_tokens: int | None = None,
        include_thoughts: bool = True,
        google_search: bool = False,
        code_execution: bool = False,
        url_context: bool = False,
        safety_settings: Sequence[Mapping[str, str]] = (),
        embedding_model: str = DEFAULT_EMBEDDING_MODEL,
        api_version: str | None = None,
        **options: Unpack[SDKOptions],
    ) -> None:
        if max_tokens is not None and max_tokens < 1:
            raise ValueError(f"max_tokens must be positive or None, got {max_tokens}")
        if client is not None and (vertexai or project or location or credentials):
            raise ValueError("pass either client or vertexai/project/location/credentials")
        self._vertex = {
            "vertexai": vertexai,
            "project": project,
            "location": location,
            "credentials": credentials,
        }
        self._http_client: httpx2.AsyncClient | None = None
        self._api_version = api_version
        super().__init__(model, client=client, **options)
        problem = _public.raw_request_problem(self.client)
        if problem is not None:
            warnings.warn(
                f"GoogleProvider: calls go through models.generate_content: {problem}",
                UserWarning,
                stacklevel=2,
            )
        self.posts_raw = problem is None
        """Whether calls post through the client's API client (else through the SDK's
        public `models.generate_content` and `generate_content_stream`)."""
        self.vertexai = bool(self.client.vertexai)
        """Whether calls go to Vertex AI (else the Gemini API)."""
        self._paths = (
            model_path(model, vertexai=self.vertexai) + ":generateContent",
            model_path(model, vertexai=self.vertexai) + ":streamGenerateContent?alt=sse",
        )
        self._call_options: types.HttpOptions | None = None if self._owns_client else _NO_RETRIES
        self._settings = WireSettings(
            max_tokens=max_tokens,
            include_thoughts=include_thoughts,
            server_tools=ServerTools(google_search, code_execution, url_context),
            safety_settings=tuple(dict(s) for s in safety_settings),
        )
        self.embedding_model = embedding_model

    # ------------------------------------------------------------------ clients

    def has_credentials(self, api_key: str | None) -> bool:
        """A key (`api_key`, `GEMINI_API_KEY` or `GOOGLE_API_KEY`), or Vertex AI, whose
        credentials the SDK finds when a call is made (`credentials`, else
        Application Default Credentials)."""
        if api_key or any(os.environ.get(name) for name in _KEY_ENVS):
            return True
        return bool(self._vertex["vertexai"])

    def new_client(
        self, *, api_key: str | None, base_url: str | None, timeout: float | None
    ) -> genai.Client:
        """A `genai.Client` for the Gemini API or Vertex AI, its SDK retries off, its
        replies read through an `httpx2.AsyncClient` capped at `max_reply_bytes` (the
        provider closes both)."""
        version = self._api_version
        if version is None and not self._vertex["vertexai"]:
            version = os.environ.get("GOOGLE_GENAI_API_VERSION") or GEMINI_API_VERSION
        http = types.HttpOptions(base_url=base_url, api_version=version)
        if timeout is not None:
            http.timeout = int(timeout * 1000)
        if self.max_reply_bytes is not None:
            self._http_client = cap_reply_size(
                httpx2.AsyncClient(), max_bytes=self.max_reply_bytes, provider=PROVIDER
            )
            http.httpx_async_client = self._http_client
        vertex = {k: v for k, v in self._vertex.items() if v}
        return genai.Client(api_key=api_key, http_options=http, **vertex)

    def adopt_client(self, client: genai.Client, *, timeout: float | None) -> genai.Client:
        """A caller's client as it is: its own retries are turned off per call."""
        return client

    async def aclose(self) -> None:
        """Close the client this provider built (a passed-in client stays open)."""
        if self._owns_client:
            await self.client.aio.aclose()
            self.client.close()
            if self._http_client is not None:
                await self._http_client.aclose()

    # ---------------------------------------------------------------- requests

    def request_params(self, request: ModelRequest) -> dict[str, Any]:
        """The `generateContent` JSON body this provider sends for `request`, to see
        how blocks and options map."""
        return build_body(request, self._settings)

    def vendor_error(self, error: Exception) -> ProviderError | None:
        return vendor_error(self, error)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One whole reply: the body built from `request`, posted to
        `...:generateContent`, its JSON read into blocks."""
        body = self.call_params(request)
        if self.posts_raw:
            send: Any = partial(
                self.client.aio._api_client.async_request,
                "post",
                self._paths[0],
                body,
                self._call_options,
            )
        else:
            send = partial(_public.generate, self.client, self.model, body, self._call_options)
        return await self.call_reply(request.options, send, _read_reply)

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        """Deltas as they arrive, then one `ModelResponse`: the body built from
        `request` (when this is called), posted to `...:streamGenerateContent?alt=sse`
        (when the stream is first read)."""
        body = self.call_params(request)
        return self.stream_reply(request.options, partial(self._open, body), StreamAssembler)

    async def _open(self, body: dict[str, Any]) -> _Chunks | _public.ModelChunks:
        if not self.posts_raw:
            return await _public.open_stream(self.client, self.model, body, self._call_options)
        chunks = await self.client.aio._api_client.async_request_streamed(
            "post", self._paths[1], body, self._call_options
        )
        return _Chunks(chunks)

    # ------------------------------------------------------ optional capabilities

    async def list_models(self) -> tuple[ModelInfo, ...]:
        """Every base model of `models.list` (all pages), with its token limits, its
        thinking flag and whether it embeds; see `ModelInfo`."""
        return await _catalog.list_models(self, self._call_options)

    async def get_model(self, model_id: str) -> ModelInfo:
        """One model from `models.get`; an unknown id is a 404 `ProviderError`."""
        return await _catalog.get_model(self, model_id, self._call_options)

    async def embed(
        self, texts: Sequence[str], *, model: str | None = None, dimensions: int | None = None
    ) -> Embeddings:
        """One vector per text, in order (`models.embed_content`, batched by the SDK);
        `dimensions` is sent as `outputDimensionality`. No texts, no request."""
        return await _catalog.embed(
            self,
            texts,
            model=model or self.embedding_model,
            dimensions=dimensions,
            call_options=self._call_options,
        )
