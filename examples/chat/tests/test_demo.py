"""The demo model: replies computed from the transcript, streamed word by word."""

from __future__ import annotations

from chat.demo import DemoModel, demo_agent

from automata.core import Message, ModelRequest, ModelResponse, TextDelta, ThinkingDelta


async def test_a_reply_streams_one_word_at_a_time_then_the_whole_reply() -> None:
    request = ModelRequest(messages=(Message.user("Tell me about tides"),))
    items = [item async for item in DemoModel(pace=0.0).stream(request)]
    *deltas, response = items
    assert isinstance(response, ModelResponse)
    text = "".join(d.text for d in deltas if isinstance(d, TextDelta))
    thinking = "".join(d.text for d in deltas if isinstance(d, ThinkingDelta))
    assert sum(isinstance(d, TextDelta) for d in deltas) == len(text.split())
    assert text == response.message.text
    assert text.startswith("You asked about Tell me about tides.")
    assert thinking.startswith("The user wrote about 'Tell me about tides'.")
    assert response.usage is not None
    assert response.usage.output_tokens > 0


async def test_the_same_request_gets_the_same_reply() -> None:
    request = ModelRequest(messages=(Message.user("Email the team"),))
    first = await DemoModel().complete(request)
    second = await DemoModel().complete(request)
    assert first == second
    assert [call.name for call in first.message.tool_calls] == ["send_email"]


async def test_a_weather_question_is_answered_from_the_tool() -> None:
    result = await demo_agent(pace=0.0).run("What is the weather in London?")
    assert result.output == "In London it is light rain, 14°C today."


async def test_outside_a_thread_service_the_email_is_not_sent() -> None:
    result = await demo_agent(pace=0.0).run("Email the team")
    assert result.output.startswith("I did not send the email (denied")
