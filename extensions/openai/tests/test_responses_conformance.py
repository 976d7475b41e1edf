"""OpenAIResponsesProvider passes the core provider conformance suite on the local
server speaking the Responses wire: a reply with a reasoning item, text and a function
call, JSON and SSE alike."""

from __future__ import annotations

from automata_wire_testing import Responder
from automata_wire_testing import responses as wire
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
from automata.openai import OpenAIResponsesProvider

REASONING = wire.reasoning(
    "The user wants weather.", "Lima is next.", encrypted_content="gAAAA-sealed"
)
MESSAGE = wire.message("Let me check that for you.")
CALL = wire.function_call("call_7", "weather", {"city": "Lima"})
BODY = wire.response(
    REASONING,
    MESSAGE,
    CALL,
    usage=wire.usage(130, 12, cached=100, reasoning_tokens=4),
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
MESSAGE_FIELDS = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed"}


class TestOpenAIResponsesConformance(WireConformance):
    def answer(self) -> Responder:
        return wire.reply(BODY)

    def new_provider(self, base_url: str) -> OpenAIResponsesProvider:
        return OpenAIResponsesProvider("gpt-test", api_key="test-key", base_url=f"{base_url}/v1")

    def scenario(self) -> ConformanceScenario:
        return ConformanceScenario(
            request=REQUEST,
            expected_stop_reason=StopReason.TOOL_USE,
            expected_raw_stop_reason="completed",
            expected_message=Message.assistant(
                [
                    ThinkingBlock(
                        thinking="The user wants weather.\n\nLima is next.",
                        extra={"openai-responses": {"item": REASONING, "response": "resp_1"}},
                    ),
                    TextBlock(
                        text="Let me check that for you.",
                        extra={"openai-responses": {"item": MESSAGE_FIELDS}},
                    ),
                    ToolUseBlock(
                        id="call_7",
                        name="weather",
                        input={"city": "Lima"},
                        extra={
                            "openai-responses": {"item": {"id": "fc_call_7", "status": "completed"}}
                        },
                    ),
                ]
            ),
            expected_usage=Usage(
                input_tokens=30, output_tokens=12, cache_read_tokens=100, reasoning_tokens=4
            ),
            gate=self.server,
        )
