"""What every SDK provider does (client ownership, credentials, retries, failures, runs
under the agent loop), checked with the Anthropic wire's shapes and exact messages."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic import AsyncAnthropic
from automata_wire_testing import Reply, Responder
from automata_wire_testing.suite import SDKProviderSuite

from automata.anthropic import AnthropicProvider

from . import replies

_KIND_OF_STATUS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    529: "overloaded_error",
}


class TestAnthropicProvider(SDKProviderSuite):
    provider_class = AnthropicProvider
    provider_name = "anthropic"
    model = "claude-test"
    api_path = "/v1/messages"
    events_before_content = 3  # message_start, ping, content_block_start
    tool_call_stop = "tool_use"
    credential_envs = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")

    missing_key_message = (
        "anthropic: no API key: set the ANTHROPIC_API_KEY environment variable, "
        "or pass AnthropicProvider(model, api_key=...)"
    )
    connection_message = (
        "anthropic: connection to {url}/v1/messages failed: All connection attempts failed"
    )
    ended_early_message = "anthropic: stream ended before message_stop"
    rate_limited_message = "anthropic: 429 rate_limit_error: slow down"

    def answer(self, text: str) -> Responder:
        return replies.reply(replies.message([{"type": "text", "text": text}]))

    def stream_events(self, text: str) -> list[bytes]:
        return replies.stream_events(replies.message([{"type": "text", "text": text}]))

    def error(self, status: int, text: str, *, headers: dict[str, str] | None = None) -> Reply:
        return replies.error(status, _KIND_OF_STATUS[status], text, headers=headers)

    def error_event(self, status: int, text: str) -> bytes:
        return replies.error_event(_KIND_OF_STATUS[status], text)

    def client_errors(self) -> list[tuple[Reply, str]]:
        return [
            (
                replies.error(400, "invalid_request_error", "messages: field required"),
                "anthropic: 400 invalid_request_error: messages: field required",
            ),
            (
                replies.error(401, "authentication_error", "invalid x-api-key"),
                "anthropic: 401 authentication_error: invalid x-api-key",
            ),
            (
                replies.error(403, "permission_error", "no access to this model"),
                "anthropic: 403 permission_error: no access to this model",
            ),
            (
                replies.error(404, "not_found_error", "model: claude-nope"),
                "anthropic: 404 not_found_error: model: claude-nope",
            ),
        ]

    def agent_turns(self, tool_name: str) -> tuple[Responder, Responder]:
        call = {"type": "tool_use", "id": "toolu_w", "name": tool_name, "input": {"city": "Oslo"}}
        usage = {"input_tokens": 10, "output_tokens": 5}
        answer = [{"type": "text", "text": "It snows in Oslo."}]
        return (
            replies.reply(replies.message([call], stop_reason="tool_use", usage=usage)),
            replies.reply(replies.message(answer, usage=usage)),
        )

    def new_client(self, base_url: str, *, max_retries: int) -> Any:
        return AsyncAnthropic(api_key="k", base_url=base_url, max_retries=max_retries)


def test_a_bearer_token_in_the_environment_counts_as_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token")
    assert AnthropicProvider("claude-test").model == "claude-test"
