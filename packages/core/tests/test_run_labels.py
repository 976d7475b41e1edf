"""Run labels and the host map (docs/threads.md, RL rules): labels set per agent and
per run are immutable, shown on the run's span and to its tools and hooks; the host
map reaches tools, the approver and pre-send hooks unchanged and read-only."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from automata.core import (
    Agent,
    Approval,
    Hook,
    InvalidArgumentError,
    Message,
    ModelRequest,
    RunContext,
    RunLabels,
    StreamEvent,
    ToolContext,
    ToolUseBlock,
    as_tool,
    tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls

SECRET = object()


class Seen:
    def __init__(self) -> None:
        self.tool: list[tuple[dict[str, str], Any]] = []
        self.approver: list[Any] = []
        self.hook: list[tuple[dict[str, str], Any]] = []

    def agent(self, provider: ScriptedProvider, **options: Any) -> Agent[None]:
        seen = self

        def look(context: ToolContext) -> str:
            seen.tool.append((context.labels.as_dict(), context.host.get("token")))
            return "ok"

        def approve(call: ToolUseBlock, context: ToolContext) -> Approval:
            seen.approver.append(context.host.get("token"))
            return Approval.allow()

        class Watch(Hook):
            async def before_send(
                self, request: ModelRequest, *, context: RunContext[Any] | None = None
            ) -> ModelRequest:
                assert context is not None
                seen.hook.append((context.labels.as_dict(), context.host.get("token")))
                return request

        return Agent(
            provider, tools=[tool(look, name="look")], approver=approve, hooks=[Watch()], **options
        )


def script() -> ScriptedProvider:
    return ScriptedProvider([tool_calls(tool_call("c1", "look")), Message.assistant("done")])


async def test_labels_and_the_host_map_reach_tools_approvers_and_pre_send_hooks() -> None:
    """RL1, RL3"""
    seen = Seen()
    agent = seen.agent(script(), labels={"tenant": "acme"})
    await agent.run("go", labels={"request": "r-1"}, host={"token": SECRET})
    both = {"request": "r-1", "tenant": "acme"}
    assert seen.tool == [(both, SECRET)]
    assert seen.approver == [SECRET]
    assert seen.hook == [(both, SECRET), (both, SECRET)]


async def test_a_run_cannot_change_a_label_its_agent_set() -> None:
    """RL1: labels are added, never changed; bad ones are refused before the run."""
    agent = Seen().agent(script(), labels={"tenant": "acme"})
    with pytest.raises(InvalidArgumentError, match="tenant"):
        await agent.run("go", labels={"tenant": "other"})
    with pytest.raises(InvalidArgumentError, match="label key"):
        await agent.run("go", labels={"bad key": "x"})
    assert RunLabels.of({"b": "2", "a": "1"}).items == (("a", "1"), ("b", "2"))


async def test_the_host_map_is_read_only_for_the_tools() -> None:
    """RL3"""
    given = {"token": SECRET}
    hosts: list[Any] = []

    def grab(context: ToolContext) -> str:
        hosts.append(context.host)
        return "ok"

    agent = Agent(script(), tools=[tool(grab, name="look")])
    await agent.run("go", host=given)
    with pytest.raises(TypeError):
        hosts[0]["token"] = "changed"
    given["token"] = "later"
    assert hosts[0]["token"] is SECRET


async def test_labels_are_attributes_of_the_runs_span() -> None:
    """RL2"""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    agent = Agent(ScriptedProvider(["hi"]), labels={"tenant": "acme"}, tracer_provider=provider)
    await agent.run("go", labels={"request": "r-1"})
    (run,) = [span for span in exporter.get_finished_spans() if span.name.startswith("invoke")]
    assert run.attributes is not None
    assert run.attributes["automata.label.tenant"] == "acme"
    assert run.attributes["automata.label.request"] == "r-1"


async def test_every_event_of_a_labelled_run_carries_its_labels_and_a_sub_agents_add_its_own() -> (
    None
):
    """RL2: events name the run's labels; a sub-agent's events its own plus its parent's."""
    helper = Agent(ScriptedProvider(["inner"]), name="helper", labels={"role": "helper"})
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("c1", "helper", task="x")), "outer"]),
        tools=[as_tool(helper, "helper", "Help.")],
        labels={"tenant": "acme"},
    )
    events: list[StreamEvent] = []
    async with agent.stream("go", labels={"request": "r-1"}) as stream:
        async for event in stream:
            events.append(event)
    top = {e.labels for e in events if e.depth == 0}
    inner = {e.labels for e in events if e.depth == 1}
    assert top == {RunLabels.of({"request": "r-1", "tenant": "acme"})}
    assert inner == {RunLabels.of({"request": "r-1", "role": "helper", "tenant": "acme"})}
    plain = Agent(ScriptedProvider(["hi"]))
    async with plain.stream("go") as stream:
        plain_labels = [event.labels async for event in stream]
    assert plain_labels
    assert set(plain_labels) == {RunLabels()}


async def test_labels_set_on_the_agent_later_are_checked_when_the_next_run_starts() -> None:
    """RL1"""
    agent = Agent(ScriptedProvider(["hi", "again"]))
    agent.labels = RunLabels.of({"tenant": "acme"})
    assert (await agent.run("go")).output == "hi"
    agent.labels = {"bad key": "x"}  # type: ignore[assignment]
    with pytest.raises(InvalidArgumentError, match="label key"):
        await agent.run("go")
