"""AnthropicProvider passes the core provider conformance suite on the local server."""

from __future__ import annotations

from typing import Any

from automata_wire_testing import Responder
from automata_wire_testing.conformance import ConformanceScenario, WireConformance

from automata.anthropic import AnthropicProvider
from automata.core import (
    CallOptions,
    Message,
    ModelRequest,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)

from . import replies
from .conftest import through_create

CONTENT: list[dict[str, Any]] = [
    {"type": "thinking", "thinking": "The user wants weather.", "signature": "sig-xyz"},
    {"type": "text", "text": "Let me check that for you."},
    {"type": "tool_use", "id": "toolu_7", "name": "weather", "input": {"city": "Lima"}},
]
USAGE = {
    "input_tokens": 30,
    "output_tokens": 12,
    "cache_read_input_tokens": 100,
    "cache_creation_input_tokens": 8,
}
WEATHER = ToolSpec(
    "weather",
    "Get the weather",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
REQUEST = ModelRequest(
    messages=(
        Message.system("Be brief."),
        Message.user("What's the weather in Paris?"),
        Message.assistant(
            [
                ThinkingBlock(thinking="Call the tool.", signature="sig-old"),
                ToolUseBlock(id="toolu_1", name="weather", input={"city": "Paris"}),
            ]
        ),
        Message(
            role="tool",
            content=(ToolResultBlock(tool_use_id="toolu_1", content=(TextBlock(text="sunny"),)),),
        ),
        Message.user("And Lima?"),
    ),
    tools=(WEATHER,),
    options=CallOptions(max_tokens=2000, thinking_budget=1024, tool_choice="auto"),
)


class TestAnthropicConformance(WireConformance):
    def answer(self) -> Responder:
        return replies.reply(replies.message(CONTENT, stop_reason="tool_use", usage=USAGE))

    def new_provider(self, base_url: str) -> AnthropicProvider:
        return AnthropicProvider(
            "claude-test", api_key="test-key", base_url=base_url, cache_prompt=True
        )

    def scenario(self) -> ConformanceScenario:
        return ConformanceScenario(
            request=REQUEST,
            expected_stop_reason=StopReason.TOOL_USE,
            expected_raw_stop_reason="tool_use",
            expected_message=Message.assistant(
                [
                    ThinkingBlock(thinking="The user wants weather.", signature="sig-xyz"),
                    TextBlock(text="Let me check that for you."),
                    ToolUseBlock(id="toolu_7", name="weather", input={"city": "Lima"}),
                ]
            ),
            expected_usage=Usage(
                input_tokens=30, output_tokens=12, cache_read_tokens=100, cache_write_tokens=8
            ),
            gate=self.server,
        )


class TestAnthropicConformancethrough_create(TestAnthropicConformance):
    """The same scenario through `messages.create` and the SDK's models (a client whose
    `post` does not take raw requests), dumped into the same reader."""

    def new_provider(self, base_url: str) -> AnthropicProvider:
        return through_create(
            "claude-test", api_key="test-key", base_url=base_url, cache_prompt=True
        )
