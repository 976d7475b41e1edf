"""What every SDK provider does (client ownership, credentials, retries, deadlines,
failures, runs under the agent loop), checked for `OpenAIResponsesProvider` with the
Responses wire's shapes and exact messages."""

from __future__ import annotations

from typing import Any

from automata_wire_testing import Reply, Responder
from automata_wire_testing import responses as wire
from automata_wire_testing.deadlines import DeadlineSuite
from automata_wire_testing.suite import SDKProviderSuite
from openai import AsyncOpenAI

from automata.openai import OpenAIResponsesProvider

from . import replies
from .responses_support import make_provider

__all__ = ["make_provider"]

# What each status looks like on this wire: (code, type), as for Chat Completions.
_ERROR_OF_STATUS: dict[int, tuple[str | None, str]] = {
    429: ("rate_limit_exceeded", "requests"),
    500: (None, "server_error"),
    503: (None, "server_error"),
    529: (None, "server_error"),
}
# An `error` event carries only a code; these map back to the status.
_STREAM_CODE_OF_STATUS = {
    429: "rate_limit_exceeded",
    503: "server_overloaded",
    529: "overloaded_error",
}
_EVENTS_BEFORE_CONTENT = 4  # created, in_progress, output_item.added, content_part.added


def _answer(text: str) -> Responder:
    return wire.reply(wire.response(wire.message(text)))


def _stream_events(text: str) -> list[bytes]:
    return wire.stream_events(wire.response(wire.message(text)))


class TestOpenAIResponsesProvider(SDKProviderSuite):
    provider_class = OpenAIResponsesProvider
    provider_name = "openai"
    model = "gpt-test"
    api_path = "/v1/responses"
    base_path = "/v1"
    events_before_content = _EVENTS_BEFORE_CONTENT
    events_after_end = 0  # response.completed is the last event
    tool_call_stop = "completed"
    credential_envs = ("OPENAI_API_KEY",)

    missing_key_message = (
        "openai: no API key: set the OPENAI_API_KEY environment variable, "
        "or pass OpenAIResponsesProvider(model, api_key=...)"
    )
    connection_message = (
        "openai: connection to {url}/v1/responses failed: All connection attempts failed"
    )
    ended_early_message = "openai: stream ended before response.completed"
    rate_limited_message = "openai: 429 rate_limit_exceeded: slow down"

    def answer(self, text: str) -> Responder:
        return _answer(text)

    def stream_events(self, text: str) -> list[bytes]:
        return _stream_events(text)

    def error(self, status: int, text: str, *, headers: dict[str, str] | None = None) -> Reply:
        code, kind = _ERROR_OF_STATUS[status]
        return replies.error(status, code, text, kind=kind, headers=headers)

    def error_event(self, status: int, text: str) -> bytes:
        return wire.error_event(_STREAM_CODE_OF_STATUS[status], text)

    def client_errors(self) -> list[tuple[Reply, str]]:
        return [
            (
                replies.error(400, "invalid_value", "Invalid value for 'input'."),
                "openai: 400 invalid_value: Invalid value for 'input'.",
            ),
            (
                replies.error(401, "invalid_api_key", "Incorrect API key provided."),
                "openai: 401 invalid_api_key: Incorrect API key provided.",
            ),
            (
                replies.error(403, "unsupported_country_region_territory", "Not supported."),
                "openai: 403 unsupported_country_region_territory: Not supported.",
            ),
            (
                replies.error(404, "model_not_found", "The model `nope` does not exist."),
                "openai: 404 model_not_found: The model `nope` does not exist.",
            ),
        ]

    def agent_turns(self, tool_name: str) -> tuple[Responder, Responder]:
        usage = wire.usage(10, 5)
        call = wire.function_call("call_w", tool_name, {"city": "Oslo"})
        return (
            wire.reply(wire.response(call, usage=usage)),
            wire.reply(wire.response(wire.message("It snows in Oslo."), usage=usage)),
        )

    def new_client(self, base_url: str, *, max_retries: int) -> Any:
        return AsyncOpenAI(api_key="k", base_url=base_url, max_retries=max_retries)


class TestOpenAIResponsesDeadlines(DeadlineSuite):
    provider_name = "openai"
    events_before_content = _EVENTS_BEFORE_CONTENT
    events_after_end = 0
    keepalive = b": keepalive\n\n"

    def answer(self, text: str) -> Responder:
        return _answer(text)

    def stream_events(self, text: str) -> list[bytes]:
        return _stream_events(text)
