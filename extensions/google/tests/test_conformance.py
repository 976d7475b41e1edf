"""GoogleProvider passes the core provider conformance suite on the local server."""

from __future__ import annotations

from typing import Any

from automata_wire_testing import Responder
from automata_wire_testing import gemini as wire
from automata_wire_testing.conformance import ConformanceScenario, WireConformance

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
from automata.google import GoogleProvider

PARTS: list[dict[str, Any]] = [
    {"text": "The user wants weather.", "thought": True},
    {"text": "Let me check that for you."},
    {
        "functionCall": {"id": "fc_7", "name": "weather", "args": {"city": "Lima"}},
        "thoughtSignature": "c2lnLXh5eg==",
    },
]
USAGE = {
    "promptTokenCount": 130,
    "candidatesTokenCount": 12,
    "cachedContentTokenCount": 100,
    "thoughtsTokenCount": 4,
    "totalTokenCount": 146,
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
        Message.assistant([ToolUseBlock(id="fc_1", name="weather", input={"city": "Paris"})]),
        Message(
            role="tool",
            content=(ToolResultBlock(tool_use_id="fc_1", content=(TextBlock(text="sunny"),)),),
        ),
        Message.user("And Lima?"),
    ),
    tools=(WEATHER,),
    options=CallOptions(max_tokens=2000, thinking_budget=1024, tool_choice="auto"),
)


class TestGoogleConformance(WireConformance):
    def answer(self) -> Responder:
        return wire.answer(wire.response(PARTS, usage=USAGE))

    def new_provider(self, base_url: str) -> GoogleProvider:
        return GoogleProvider(wire.MODEL, api_key="test-key", base_url=base_url)

    def scenario(self) -> ConformanceScenario:
        return ConformanceScenario(
            request=REQUEST,
            expected_stop_reason=StopReason.TOOL_USE,
            expected_raw_stop_reason="STOP",
            expected_message=Message.assistant(
                [
                    ThinkingBlock(thinking="The user wants weather."),
                    TextBlock(text="Let me check that for you."),
                    ToolUseBlock(
                        id="fc_7",
                        name="weather",
                        input={"city": "Lima"},
                        extra={"google": {"part": {"thoughtSignature": "c2lnLXh5eg=="}}},
                    ),
                ]
            ),
            expected_usage=Usage(
                input_tokens=30, output_tokens=16, cache_read_tokens=100, reasoning_tokens=4
            ),
            gate=self.server,
        )
