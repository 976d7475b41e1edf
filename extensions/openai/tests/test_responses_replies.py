"""What OpenAIResponsesProvider reads from the Responses wire, through the official
SDK from the local server: stream deltas, usage with cached and reasoning tokens,
native output, refusals, stop reasons and failures, JSON and SSE alike."""

from __future__ import annotations

import pytest
from automata_wire_testing import Reply, WireServer, ask, final_response, sse_event, stream_items
from automata_wire_testing import responses as wire
from pydantic import BaseModel

from automata.core import (
    Agent,
    Message,
    ModelResponse,
    ProviderError,
    StopReason,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
)
from automata.openai import OpenAIResponsesProvider

from .responses_support import ResponsesMaker, make_provider

__all__ = ["make_provider"]

HI = ask(Message.user("hi"))
MODES = pytest.mark.parametrize("streamed", [False, True], ids=["json", "sse"])


async def test_a_stream_yields_thinking_text_and_argument_deltas_in_order(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR10: a stream's summary, text and argument deltas are yielded in order (a blank line between
    summaries), and its reply equals the JSON one."""
    body = wire.response(
        wire.reasoning("Plan it.", "Then act."),
        wire.message("On it."),
        wire.function_call("call_1", "weather", '{"city":"Oslo"}'),
        wire.function_call("call_2", "clock", "{}"),
    )
    server.enqueue(wire.reply(body))
    items = await stream_items(provider, HI)
    assert items[:-1] == [
        ThinkingDelta("Plan"),
        ThinkingDelta(" it."),
        ThinkingDelta("\n\n"),
        ThinkingDelta("Then"),
        ThinkingDelta(" act."),
        TextDelta("On "),
        TextDelta("it."),
        ToolCallDelta("call_1", "weather", '{"city"'),
        ToolCallDelta("call_1", "weather", ':"Oslo"}'),
        ToolCallDelta("call_2", "clock", "{"),
        ToolCallDelta("call_2", "clock", "}"),
    ]
    final = items[-1]
    assert isinstance(final, ModelResponse)
    assert [c.id for c in final.message.tool_calls] == ["call_1", "call_2"]
    server.enqueue(wire.reply(body))
    assert await provider.complete(HI) == final


async def test_a_stream_whose_last_event_leaves_the_output_out_keeps_the_items_it_streamed(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR10: the items of response.output_item.done stand in for an empty output in
    response.completed."""
    body = wire.response(wire.message("Hello"), wire.function_call("call_1", "clock", "{}"))
    completed = {"type": "response.completed", "response": {**body, "output": []}}
    events = [*wire.stream_events(body)[:-1], sse_event("response.completed", completed)]
    server.enqueue(Reply(events=events))
    final = (await stream_items(provider, HI))[-1]
    assert isinstance(final, ModelResponse)
    assert (final.message.text, final.stop_reason) == ("Hello", StopReason.TOOL_USE)
    assert [c.id for c in final.message.tool_calls] == ["call_1"]


async def test_reasoning_text_is_the_thinking_of_an_item_without_a_summary(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR3: a reasoning item without a summary gives its reasoning_text content as
    thinking (servers running open-weight models send it)."""
    item = {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": "Step one."}],
    }
    server.enqueue(wire.reply(wire.response(item, wire.message("ok"))))
    first = (await provider.complete(HI)).message.content[0]
    assert isinstance(first, ThinkingBlock)
    assert first.thinking == "Step one."


@MODES
async def test_usage_takes_cached_tokens_out_of_input_and_reports_reasoning_within_output(
    server: WireServer, provider: OpenAIResponsesProvider, streamed: bool
) -> None:
    """OR11: cached tokens are taken out of input; reasoning tokens are part of output,
    and reported as `reasoning_tokens` too."""
    usage = wire.usage(1200, 300, cached=1000, reasoning_tokens=256)
    server.enqueue(wire.reply(wire.response(wire.message("ok"), usage=usage)))
    response = await final_response(provider, HI, streamed=streamed)
    assert response.usage == Usage(
        input_tokens=200, output_tokens=300, cache_read_tokens=1000, reasoning_tokens=256
    )


async def test_a_reply_without_usage_reports_none(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR11: a reply without usage reports none."""
    server.enqueue(wire.reply(wire.response(wire.message("ok"), usage=None)))
    assert (await provider.complete(HI)).usage is None


class City(BaseModel):
    name: str
    country: str


@MODES
async def test_native_output_is_read_from_the_text_format_reply(
    server: WireServer, make_provider: ResponsesMaker, streamed: bool
) -> None:
    """OR8: a typed run with native output reads the JSON answer."""
    text = '{"name": "Oslo", "country": "Norway"}'
    server.enqueue(wire.reply(wire.response(wire.message(text))))
    agent = Agent(make_provider())
    if streamed:
        run = agent.stream("Capital of Norway?", output_type=City, native_structured_output=True)
        _ = [event async for event in run]
        output = run.result.output
    else:
        result = await agent.run(
            "Capital of Norway?", output_type=City, native_structured_output=True
        )
        output = result.output
    assert output == City(name="Oslo", country="Norway")
    assert server.received[0].body["text"]["format"]["type"] == "json_schema"


@MODES
async def test_a_refusal_stops_for_content_filter_keeping_its_text(
    server: WireServer, provider: OpenAIResponsesProvider, streamed: bool
) -> None:
    """OR12: a refusal stops for content_filter and keeps its text."""
    server.enqueue(wire.reply(wire.response(wire.refusal("I can't help with that."))))
    response = await final_response(provider, HI, streamed=streamed)
    assert (response.stop_reason, response.message.text) == (
        StopReason.CONTENT_FILTER,
        "I can't help with that.",
    )


@MODES
async def test_an_incomplete_reply_cut_at_max_output_tokens_stops_for_max_tokens(
    server: WireServer, provider: OpenAIResponsesProvider, streamed: bool
) -> None:
    """OR12: an incomplete reply cut at max_output_tokens stops for max_tokens."""
    body = wire.response(
        wire.message("Once upon"), status="incomplete", incomplete_reason="max_output_tokens"
    )
    server.enqueue(wire.reply(body))
    response = await final_response(provider, HI, streamed=streamed)
    assert (response.stop_reason, response.raw_stop_reason, response.message.text) == (
        StopReason.MAX_TOKENS,
        "max_output_tokens",
        "Once upon",
    )


async def test_the_reply_keeps_its_response_id_and_model(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR9: the reply keeps its response id on its first block, and its model."""
    body = wire.response(wire.message("ok"), response_id="resp_42", model="gpt-5-2026")
    server.enqueue(wire.reply(body))
    response = await provider.complete(HI)
    assert response.model == "gpt-5-2026"
    first = response.message.content[0]
    assert isinstance(first, TextBlock)
    assert first.extra is not None
    assert first.extra["openai-responses"]["response"] == "resp_42"  # type: ignore[call-overload,index]


# --- failures ------------------------------------------------------------------------


async def _collect(provider: OpenAIResponsesProvider, items: list[object]) -> None:
    async for item in provider.stream(HI):
        items.append(item)


async def test_a_stream_that_fails_before_content_is_retried(
    server: WireServer, make_provider: ResponsesMaker, sleeps: list[float]
) -> None:
    """OR10: response.failed with a retryable code before any delta is retried."""
    failing = Reply(events=wire.failed_events("rate_limit_exceeded", "Slow down."))
    server.enqueue(failing, wire.reply(wire.response(wire.message("ok"))))
    final = (await stream_items(make_provider(), HI))[-1]
    assert isinstance(final, ModelResponse)
    assert final.message.text == "ok"
    assert len(sleeps) == 1


async def test_a_failed_response_is_an_error_naming_its_code_and_message(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR10: response.failed raises ProviderError with the code's status and message."""
    server.enqueue(Reply(events=wire.failed_events("server_error", "The model crashed.")))
    with pytest.raises(ProviderError) as caught:
        await stream_items(provider, HI)
    error = caught.value
    assert (str(error), error.status, error.retryable) == (
        "openai: 500 server_error: The model crashed.",
        500,
        False,
    )


async def test_an_error_event_after_content_is_final_with_its_message(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR10: an error event after a delta is final and carries its message."""
    events = wire.stream_events(wire.response(wire.message("hello there")))[:5]
    server.enqueue(Reply(events=[*events, wire.error_event("server_error", "Lost it.")]))
    items: list[object] = []
    with pytest.raises(ProviderError) as caught:
        await _collect(provider, items)
    assert items == [TextDelta("hello")]
    assert (str(caught.value), caught.value.retryable) == (
        "openai: 500 server_error: Lost it.",
        False,
    )


async def test_a_whole_reply_with_status_failed_is_an_error(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR12: a whole reply with status failed is an error."""
    error = {"code": "server_error", "message": "The model crashed."}
    server.enqueue(Reply(json_body=wire.response(status="failed", error=error)))
    with pytest.raises(ProviderError, match=r"^openai: the response failed: The model crashed\.$"):
        await provider.complete(HI)


async def test_a_body_that_is_not_a_response_is_named_in_the_error(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR12: a 200 answer that is not a response is named in the error."""
    server.enqueue(Reply(body=b"upstream says no", headers={"content-type": "text/plain"}))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(HI)
    assert str(caught.value) == "openai: the reply is not a response: 'upstream says no'"


async def test_a_function_call_without_a_call_id_is_a_malformed_reply(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR5: a function call needs its call_id; without one the reply is malformed."""
    call = {**wire.function_call("x", "weather", "{}"), "call_id": ""}
    server.enqueue(wire.reply(wire.response(call)))
    with pytest.raises(ProviderError, match=r"^openai: malformed reply: a function call has no"):
        await provider.complete(HI)


@MODES
async def test_a_text_part_s_logprobs_are_kept_on_its_block_and_not_sent_back(
    server: WireServer, provider: OpenAIResponsesProvider, streamed: bool
) -> None:
    """OR4: a part's `logprobs` are kept as received; the next turn goes without them."""
    logprobs = [
        {"token": "Hi", "bytes": [72, 105], "logprob": -0.01, "top_logprobs": []},
        {"token": "!", "bytes": [33], "logprob": -0.2, "top_logprobs": []},
    ]
    item = wire.message("Hi!")
    item["content"][0]["logprobs"] = logprobs
    item_fields = {k: v for k, v in item.items() if k != "content"}
    server.enqueue(wire.reply(wire.response(item)), wire.reply(wire.response(wire.message("ok"))))
    reply = await final_response(provider, HI, streamed=streamed)
    (block,) = reply.message.content
    assert isinstance(block, TextBlock)
    kept = {"item": item_fields, "logprobs": logprobs, "response": "resp_1"}
    assert block.extra == {"openai-responses": kept}
    await provider.complete(ask(Message.user("hi"), reply.message, Message.user("again")))
    (part,) = server.received[1].body["input"][1]["content"]
    assert part == {"type": "output_text", "text": "Hi!", "annotations": []}
