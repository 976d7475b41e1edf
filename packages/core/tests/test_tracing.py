"""OpenTelemetry spans: one per run, provider call and tool call, nested as they ran."""

from __future__ import annotations

import json
import logging

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from automata.core import (
    Agent,
    CallOptions,
    MaxStepsError,
    Message,
    ModelResponse,
    ProviderError,
    StopReason,
    Usage,
    as_tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def tracer_provider(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


class NamedProvider(ScriptedProvider):
    provider_name = "scripted"
    model = "script-1"


USAGE = Usage(input_tokens=11, output_tokens=3, cache_read_tokens=5, cache_write_tokens=2)


def turn(message: Message) -> ModelResponse:
    stop = StopReason.TOOL_USE if message.tool_calls else StopReason.END_TURN
    return ModelResponse(message, stop, USAGE, raw_stop_reason=stop.value, model="script-1-0601")


def tree(spans: tuple[ReadableSpan, ...]) -> list[str]:
    """Span names indented by depth, in start order."""
    by_id = {s.context.span_id: s for s in spans}

    def depth(span: ReadableSpan) -> int:
        level = 0
        while span.parent is not None and span.parent.span_id in by_id:
            span = by_id[span.parent.span_id]
            level += 1
        return level

    ordered = sorted(spans, key=lambda s: s.start_time or 0)
    return ["  " * depth(s) + s.name for s in ordered]


def research_pair(tracer_provider: TracerProvider) -> Agent:
    researcher = Agent(
        NamedProvider(
            [turn(tool_calls(tool_call("r1", "search", q="x"))), turn(Message.assistant("found"))]
        ),
        name="researcher",
        tracer_provider=tracer_provider,
    )
    researcher.tool(lambda q: f"results for {q}", name="search")
    orchestrator = Agent(
        NamedProvider(
            [
                turn(tool_calls(tool_call("o1", "research", task="look"))),
                turn(Message.assistant("report")),
            ]
        ),
        name="orchestrator",
        tracer_provider=tracer_provider,
    )
    orchestrator.add_tool(as_tool(researcher, "research", "Research a topic"))
    return orchestrator


async def test_spans_nest_runs_provider_calls_tools_and_sub_agents(
    tracer_provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    await research_pair(tracer_provider).run("go")
    assert tree(exporter.get_finished_spans()) == [
        "invoke_agent orchestrator",
        "  chat script-1",
        "  execute_tool research",
        "    invoke_agent research",
        "      chat script-1",
        "      execute_tool search",
        "      chat script-1",
        "  chat script-1",
    ]


async def test_provider_call_spans_carry_genai_attributes(
    tracer_provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    agent = Agent(
        NamedProvider([turn(Message.assistant("hi"))]),
        tracer_provider=tracer_provider,
        call_options=CallOptions(temperature=0.5, max_tokens=64, stop_sequences=("END",)),
    )
    await agent.run("hello")
    (chat,) = [s for s in exporter.get_finished_spans() if s.name.startswith("chat")]
    assert chat.kind is SpanKind.CLIENT
    assert dict(chat.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "script-1",
        "gen_ai.request.temperature": 0.5,
        "gen_ai.request.max_tokens": 64,
        "gen_ai.request.stop_sequences": ("END",),
        "gen_ai.response.model": "script-1-0601",
        "gen_ai.response.finish_reasons": ("end_turn",),
        "gen_ai.usage.input_tokens": 11,
        "gen_ai.usage.output_tokens": 3,
        "gen_ai.usage.cache_read.input_tokens": 5,
        "gen_ai.usage.cache_creation.input_tokens": 2,
    }


async def test_run_and_tool_spans_carry_genai_attributes(
    tracer_provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    await research_pair(tracer_provider).run("go")
    spans = {s.name: s for s in exporter.get_finished_spans()}
    run = dict(spans["invoke_agent orchestrator"].attributes or {})
    assert run["gen_ai.operation.name"] == "invoke_agent"
    assert run["gen_ai.agent.name"] == "orchestrator"
    assert str(run["gen_ai.conversation.id"]).startswith("run_")
    assert (run["gen_ai.usage.input_tokens"], run["gen_ai.usage.output_tokens"]) == (22, 6)
    assert (run["automata.steps"], run["automata.stop_reason"]) == (2, "end_turn")
    tool = dict(spans["execute_tool search"].attributes or {})
    assert tool == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "search",
        "gen_ai.tool.call.id": "r1",
        "gen_ai.tool.type": "function",
    }
    sub_run = dict(spans["invoke_agent research"].attributes or {})
    assert sub_run["gen_ai.conversation.id"] == "o1"  # the parent's tool-call id


async def test_message_content_is_off_by_default(
    tracer_provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    await research_pair(tracer_provider).run("a secret task")
    for span in exporter.get_finished_spans():
        for value in (span.attributes or {}).values():
            assert "secret" not in str(value)
            assert "results for" not in str(value)


async def test_message_content_can_be_switched_on(
    tracer_provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    agent = Agent(
        NamedProvider(
            [
                turn(tool_calls(tool_call("c1", "echo", text="ping"))),
                turn(Message.assistant("pong")),
            ]
        ),
        tracer_provider=tracer_provider,
        trace_content=True,
    )
    agent.tool(lambda text: text.upper(), name="echo")
    await agent.run("say ping")
    spans = exporter.get_finished_spans()
    first_chat = next(s for s in spans if s.name.startswith("chat"))
    sent = json.loads(str((first_chat.attributes or {})["gen_ai.input.messages"]))
    assert sent[-1]["content"][0]["text"] == "say ping"
    received = json.loads(str((first_chat.attributes or {})["gen_ai.output.messages"]))
    assert received[0]["content"][0]["name"] == "echo"
    tool = next(s for s in spans if s.name == "execute_tool echo")
    assert (tool.attributes or {})["gen_ai.tool.call.arguments"] == '{"text": "ping"}'
    assert (tool.attributes or {})["gen_ai.tool.call.result"] == "PING"


async def test_a_failing_tool_marks_its_span_as_an_error(
    tracer_provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    agent = Agent(
        NamedProvider([turn(tool_calls(tool_call("c1", "boom"))), turn(Message.assistant("ok"))]),
        tracer_provider=tracer_provider,
    )

    @agent.tool
    def boom() -> str:
        raise ValueError("kaput")

    await agent.run("go")
    tool = next(s for s in exporter.get_finished_spans() if s.name == "execute_tool boom")
    assert tool.status.status_code is StatusCode.ERROR
    assert tool.status.description == "kaput"
    assert (tool.attributes or {})["error.type"] == "ValueError"


async def test_a_failed_provider_call_and_its_run_are_error_spans(
    tracer_provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    agent = Agent(
        NamedProvider([ProviderError("overloaded", status=529)]), tracer_provider=tracer_provider
    )
    with pytest.raises(ProviderError):
        await agent.run("go")
    spans = {s.name: s for s in exporter.get_finished_spans()}
    chat = spans["chat script-1"]
    assert chat.status.status_code is StatusCode.ERROR
    assert (chat.attributes or {})["error.type"] == "ProviderError"
    assert [e.name for e in chat.events] == ["exception"]
    run = spans["invoke_agent agent"]
    assert run.status.status_code is StatusCode.ERROR


async def test_a_failed_run_records_its_partial_usage(
    tracer_provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    agent = Agent(
        NamedProvider([turn(tool_calls(tool_call("c1", "t")))]),
        tracer_provider=tracer_provider,
        max_steps=1,
    )
    agent.tool(lambda: "ok", name="t")
    with pytest.raises(MaxStepsError):
        await agent.run("go")
    run = next(s for s in exporter.get_finished_spans() if s.name.startswith("invoke_agent"))
    attributes = dict(run.attributes or {})
    assert attributes["error.type"] == "MaxStepsError"
    assert attributes["automata.stop_reason"] == "max_steps"
    assert attributes["gen_ai.usage.input_tokens"] == 11


async def test_logging_is_quiet_by_default_and_structured_when_enabled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    agent = Agent(ScriptedProvider([tool_calls(tool_call("c1", "t")), Message.assistant("ok")]))
    agent.tool(lambda: "ok", name="t")
    with caplog.at_level(logging.DEBUG, logger="automata"):
        result = await agent.run("go")
    records = [r for r in caplog.records if r.name == "automata"]
    assert [r.getMessage() for r in records] == [
        "run started",
        "model turn 1 ended: tool_use",
        "tool call c1 (t) finished",
        "model turn 2 ended: end_turn",
    ]
    assert {getattr(r, "invocation_id", None) for r in records} == {result.invocation_id}
    assert {r.levelno for r in records} == {logging.DEBUG}  # nothing shows unless asked
    handlers = logging.getLogger("automata").handlers
    assert any(isinstance(h, logging.NullHandler) for h in handlers)
