"""What every SDK provider does (client ownership, credentials, retries, failures, runs
under the agent loop), checked with the Chat Completions wire's shapes and exact
messages."""

from __future__ import annotations

from typing import Any

from automata_wire_testing import Reply, Responder
from automata_wire_testing.suite import SDKProviderSuite
from openai import AsyncOpenAI

from automata.openai import OpenAIProvider

from . import replies

# What each status looks like on this wire: (code, type).
_ERROR_OF_STATUS: dict[int, tuple[str | None, str]] = {
    429: ("rate_limit_exceeded", "requests"),
    500: (None, "server_error"),
    503: (None, "server_error"),
    529: (None, "server_error"),
}
# An error inside a stream carries only a code; these map back to the status.
_STREAM_CODE_OF_STATUS = {
    429: "rate_limit_exceeded",
    503: "server_overloaded",
    529: "overloaded_error",
}


class TestOpenAIProvider(SDKProviderSuite):
    provider_class = OpenAIProvider
    provider_name = "openai"
    model = "gpt-test"
    api_path = "/v1/chat/completions"
    base_path = "/v1"
    events_before_content = 1  # the role chunk
    events_after_end = 2  # the usage chunk, [DONE]
    tool_call_stop = "tool_calls"
    credential_envs = ("OPENAI_API_KEY",)

    missing_key_message = (
        "openai: no API key: set the OPENAI_API_KEY environment variable, "
        "or pass OpenAIProvider(model, api_key=...)"
    )
    connection_message = (
        "openai: connection to {url}/v1/chat/completions failed: All connection attempts failed"
    )
    ended_early_message = "openai: stream ended before a finish reason"
    rate_limited_message = "openai: 429 rate_limit_exceeded: slow down"
    late_error_message = "openai: 529 overloaded_error: late"

    def answer(self, text: str) -> Responder:
        return replies.reply(replies.completion(text))

    def stream_events(self, text: str) -> list[bytes]:
        return replies.stream_events(replies.completion(text))

    def error(self, status: int, text: str, *, headers: dict[str, str] | None = None) -> Reply:
        code, kind = _ERROR_OF_STATUS[status]
        return replies.error(status, code, text, kind=kind, headers=headers)

    def error_event(self, status: int, text: str) -> bytes:
        return replies.error_chunk(_STREAM_CODE_OF_STATUS[status], text)

    def client_errors(self) -> list[tuple[Reply, str]]:
        return [
            (
                replies.error(400, "invalid_value", "Invalid value for 'messages'."),
                "openai: 400 invalid_value: Invalid value for 'messages'.",
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
        call = replies.tool_call("call_w", tool_name, {"city": "Oslo"})
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        return (
            replies.reply(
                replies.completion(tool_calls=[call], finish_reason="tool_calls", usage=usage)
            ),
            replies.reply(replies.completion("It snows in Oslo.", usage=usage)),
        )

    def new_client(self, base_url: str, *, max_retries: int) -> Any:
        return AsyncOpenAI(api_key="k", base_url=base_url, max_retries=max_retries)
