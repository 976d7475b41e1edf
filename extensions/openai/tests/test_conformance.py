"""OpenAIProvider passes the core provider conformance suite on the local server."""

from __future__ import annotations

from automata_wire_testing import Responder
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
from automata.openai import OpenAIProvider

from . import replies
from .older_client import through_create

BODY = replies.completion(
    "Let me check that for you.",
    tool_calls=[replies.tool_call("call_7", "weather", {"city": "Lima"})],
    finish_reason="tool_calls",
    usage={
        "prompt_tokens": 130,
        "completion_tokens": 12,
        "total_tokens": 142,
        "prompt_tokens_details": {"cached_tokens": 100},
    },
    extra={"reasoning_content": "The user wants weather."},
)
WEATHER = ToolSpec(
    "weather",
    "Get the weather",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
REQUEST = ModelRequest(
    messages=(
        Message.system("Be brief."),
        Message.user("What's the weather in Paris?"),
        Message.assistant([ToolUseBlock(id="call_1", name="weather", input={"city": "Paris"})]),
        Message(
            role="tool",
            content=(ToolResultBlock(tool_use_id="call_1", content=(TextBlock(text="sunny"),)),),
        ),
        Message.user("And Lima?"),
    ),
    tools=(WEATHER,),
    options=CallOptions(max_tokens=2000, tool_choice="auto", temperature=0.1),
)


class TestOpenAIConformance(WireConformance):
    def answer(self) -> Responder:
        return replies.reply(BODY)

    def new_provider(self, base_url: str) -> OpenAIProvider:
        return OpenAIProvider("gpt-test", api_key="test-key", base_url=f"{base_url}/v1")

    def scenario(self) -> ConformanceScenario:
        return ConformanceScenario(
            request=REQUEST,
            expected_stop_reason=StopReason.TOOL_USE,
            expected_raw_stop_reason="tool_calls",
            expected_message=Message.assistant(
                [
                    ThinkingBlock(
                        thinking="The user wants weather.",
                        extra={"openai": {"field": "reasoning_content"}},
                    ),
                    TextBlock(text="Let me check that for you."),
                    ToolUseBlock(id="call_7", name="weather", input={"city": "Lima"}),
                ]
            ),
            expected_usage=Usage(input_tokens=30, output_tokens=12, cache_read_tokens=100),
            gate=self.server,
        )


class TestOpenAIConformanceThroughCreate(TestOpenAIConformance):
    """The same scenario through `chat.completions.create` (a client whose `post`
    cannot take the body), its models dumped into the same reader."""

    def new_provider(self, base_url: str) -> OpenAIProvider:
        return through_create("gpt-test", api_key="test-key", base_url=f"{base_url}/v1")
