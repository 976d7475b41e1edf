"""What every SDK provider does (client ownership, credentials, retries, failures, runs
under the agent loop), checked with the Gemini wire's shapes and exact messages."""

from __future__ import annotations

from typing import Any

from automata_wire_testing import Reply, Responder
from automata_wire_testing import gemini as wire
from automata_wire_testing.suite import SDKProviderSuite
from google import genai
from google.genai import types

from automata.google import GoogleProvider

_USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5}


def text_reply(text: str) -> dict[str, Any]:
    return wire.response([{"text": text}], usage=_USAGE)


class TestGoogleProvider(SDKProviderSuite):
    provider_class = GoogleProvider
    provider_name = "google"
    model = wire.MODEL
    api_path = "/v1beta/models/gemini-test:generateContent"
    events_before_content = 0  # the first chunk carries text
    tool_call_stop = "STOP"
    credential_envs = ("GEMINI_API_KEY", "GOOGLE_API_KEY")

    missing_key_message = (
        "google: no API key: set the GEMINI_API_KEY environment variable, "
        "or pass GoogleProvider(model, api_key=...)"
    )
    connection_message = (
        "google: connection to {url}/v1beta/models/m:generateContent failed: "
        "All connection attempts failed"
    )
    ended_early_message = "google: stream ended before a finishReason"
    rate_limited_message = "google: 429 RESOURCE_EXHAUSTED: slow down"

    def answer(self, text: str) -> Responder:
        return wire.answer(text_reply(text))

    def stream_events(self, text: str) -> list[bytes]:
        return wire.stream_events(text_reply(text))

    def error(self, status: int, text: str, *, headers: dict[str, str] | None = None) -> Reply:
        return wire.error(status, text, headers=headers)

    def error_event(self, status: int, text: str) -> bytes:
        return wire.error_event(status, text)

    def client_errors(self) -> list[tuple[Reply, str]]:
        return [
            (
                wire.error(400, "* GenerateContentRequest.contents: contents is not specified"),
                "google: 400 INVALID_ARGUMENT: "
                "* GenerateContentRequest.contents: contents is not specified",
            ),
            (
                wire.error(401, "API key not valid. Please pass a valid API key."),
                "google: 401 UNAUTHENTICATED: API key not valid. Please pass a valid API key.",
            ),
            (
                wire.error(403, "Permission denied on resource project p."),
                "google: 403 PERMISSION_DENIED: Permission denied on resource project p.",
            ),
            (
                wire.error(404, "models/gemini-nope is not found for API version v1beta"),
                "google: 404 NOT_FOUND: models/gemini-nope is not found for API version v1beta",
            ),
        ]

    def agent_turns(self, tool_name: str) -> tuple[Responder, Responder]:
        call = {"functionCall": {"name": tool_name, "args": {"city": "Oslo"}}}
        return (
            wire.answer(wire.response([call], usage=_USAGE)),
            wire.answer(text_reply("It snows in Oslo.")),
        )

    def new_client(self, base_url: str, *, max_retries: int) -> Any:
        retries = types.HttpRetryOptions(
            attempts=max_retries + 1, http_status_codes=[429, 503, 529], initial_delay=0.01
        )
        options = types.HttpOptions(base_url=base_url, retry_options=retries)
        return genai.Client(api_key="k", http_options=options)

    def sdk_retries(self, client: Any) -> int:
        # The client's options as the SDK reports them (read, not changed).
        options = client.aio._api_client.get_read_only_http_options()
        retry = options.get("retry_options")
        return 0 if retry is None else int(retry["attempts"]) - 1

    def is_closed(self, client: Any) -> bool:
        closed: bool = client.aio._api_client._async_httpx_client.is_closed
        return closed

    async def close_client(self, client: Any) -> None:
        await client.aio.aclose()
        client.close()
