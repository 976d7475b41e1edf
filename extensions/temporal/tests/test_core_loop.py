"""TP12: the workflow runs the agent's own loop, so what the in-process loop does is done
on Temporal too: dynamic prompts with deps, typed output and its validators, guardrails,
handoffs, tool budgets, `ModelRetry`, hooks and usage totals. One behaviour per test,
each through a real dev server, worker and client."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError

from automata.core import (
    Agent,
    GuardrailResult,
    HandoffEvent,
    Message,
    ModelRequest,
    ModelResponse,
    ModelRetry,
    RunContext,
    StopReason,
    ToolContext,
    ToolPolicy,
    Usage,
    load_messages,
    pre_send,
    tool,
)
from automata.core.testing import FunctionProvider, ScriptedProvider, tool_call, tool_calls
from automata.core.testing import tool_results as results_of
from automata.temporal import (
    AgentRegistry,
    AgentRunResult,
    TemporalAgent,
    agent_worker,
    query_events,
    start_agent_run,
)


@dataclass
class Shop:
    name: str
    currency: str


async def run_once(
    client: Client,
    fresh: Callable[[str], str],
    entry: TemporalAgent | Callable[[], Agent[Any]],
    task: str = "go",
    deps: object = None,
) -> AgentRunResult:
    queue = fresh("q")
    async with agent_worker(client, AgentRegistry({"a": entry}), task_queue=queue):
        handle = await start_agent_run(
            client, "a", task, id=fresh("run"), task_queue=queue, deps=deps
        )
        return await handle.result()


async def failure_of(
    client: Client, fresh: Callable[[str], str], entry: Callable[[], Agent]
) -> ApplicationError:
    with pytest.raises(WorkflowFailureError) as failure:
        await run_once(client, fresh, entry)
    cause = failure.value.cause
    assert isinstance(cause, ApplicationError)
    return cause


async def test_a_dynamic_system_prompt_and_the_tools_see_the_runs_deps(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP12: deps given to `start_agent_run` travel as JSON and are validated as the
    agent's `deps_type`: a dynamic system prompt reads them in the workflow, a tool in
    its activity."""

    def prompt(context: RunContext[Shop]) -> str:
        return f"You sell for {context.deps.name}."

    @tool
    def price(ctx: ToolContext[Shop], sku: str) -> str:
        """A SKU's price."""
        return f"{sku}: 3 {ctx.deps.currency}"

    def factory() -> Agent[Shop]:
        replies: list[Message | str] = [tool_calls(tool_call("c1", "price", sku="A")), "ok"]
        return Agent(ScriptedProvider(replies), system_prompt=prompt, tools=[price], deps_type=Shop)

    result = await run_once(client, fresh, factory, deps=Shop("Tea Co", "EUR"))
    messages = load_messages(result.transcript)
    assert messages[0].text == "You sell for Tea Co."
    assert results_of(messages) == [("c1", "A: 3 EUR", False)]


async def test_deps_that_do_not_fit_the_deps_type_fail_the_run(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP8: deps that do not validate as the agent's `deps_type` fail the run as
    `InvalidDeps`, before any provider call."""

    def factory() -> Agent[Shop]:
        return Agent(ScriptedProvider(["never"]), deps_type=Shop)

    with pytest.raises(WorkflowFailureError) as failure:
        await run_once(client, fresh, factory, deps={"name": "Tea Co"})
    cause = failure.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == "InvalidDeps"
    assert "currency" in cause.message


class Verdict(BaseModel):
    answer: str
    score: int


async def test_typed_output_goes_through_its_validator_which_may_ask_again(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP12: an agent registered with an `output_type` answers through the hidden output
    tool; its output validator raising `ModelRetry` once gets a correction turn, and the
    result's output is the validated value as JSON (`output_as`)."""
    seen: list[int] = []

    def factory() -> Agent:
        replies: list[Message | str] = [
            tool_calls(tool_call("o1", "automata_structured_output", answer="no", score=0)),
            tool_calls(tool_call("o2", "automata_structured_output", answer="yes", score=9)),
        ]
        agent = Agent(ScriptedProvider(replies))

        @agent.output_validator
        def positive(context: RunContext[None], output: Verdict) -> Verdict:
            seen.append(output.score)
            if output.score < 1:
                raise ModelRetry("the score must be positive")
            return output

        return agent

    result = await run_once(client, fresh, TemporalAgent(factory, output_type=Verdict))
    assert result.output_as(Verdict) == Verdict(answer="yes", score=9)
    assert seen == [0, 9]
    assert "the score must be positive" in result.transcript


async def test_a_tripped_output_guardrail_fails_the_run_naming_it(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP12, TP8: the agent's output guardrails check the final output in the workflow;
    one that trips fails the run with the core's error type and message."""

    def no_secrets(context: RunContext[None], output: object) -> GuardrailResult:
        return GuardrailResult(tripped="secret" in str(output), info="leak")

    cause = await failure_of(
        client,
        fresh,
        lambda: Agent(ScriptedProvider(["the secret is 42"]), output_guardrails=[no_secrets]),
    )
    assert cause.type == "OutputGuardrailTripped"
    assert "no_secrets" in cause.message


async def test_a_handoff_goes_on_with_the_other_agents_provider_and_tools(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP12: a handoff runs as in process: the run goes on with the target agent, whose
    provider and tools are called as activities of that agent; the `events` query has
    the `HandoffEvent`."""

    @tool
    def refund(order: str) -> str:
        """Refund an order."""
        return f"refunded {order}"

    def factory() -> Agent:
        billing = Agent(
            ScriptedProvider([tool_calls(tool_call("b1", "refund", order="o-7")), "refund done"]),
            name="billing",
            tools=[refund],
        )
        triage = ScriptedProvider([tool_calls(tool_call("t1", "transfer_to_billing"))])
        return Agent(triage, name="triage", handoffs=[billing])

    queue = fresh("q")
    async with agent_worker(client, AgentRegistry({"a": factory}), task_queue=queue):
        handle = await start_agent_run(client, "a", "refund o-7", id=fresh("run"), task_queue=queue)
        result = await handle.result()
        events = await query_events(handle)
    assert result.output == "refund done"
    assert results_of(load_messages(result.transcript)) == [
        ("t1", "Transferred to billing", False),
        ("b1", "refunded o-7", False),
    ]
    handoffs = [(e.from_agent, e.to_agent) for e in events if isinstance(e, HandoffEvent)]
    assert handoffs == [("triage", "billing")]


async def test_the_result_sums_the_usage_of_every_provider_call(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP12: the result's `usage` is the run's usage totals, as `RunResult.usage`."""

    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    def reply(message: Message, stop: StopReason, tokens: int) -> ModelResponse:
        usage = Usage(input_tokens=tokens, output_tokens=1)
        return ModelResponse(message=message, stop_reason=stop, usage=usage)

    def factory() -> Agent:
        first = reply(tool_calls(tool_call("c1", "ping")), StopReason.TOOL_USE, 10)
        second = reply(Message.assistant("done"), StopReason.END_TURN, 20)
        return Agent(ScriptedProvider([first, second]), tools=[ping])

    result = await run_once(client, fresh, factory)
    assert result.usage["input_tokens"] == 30
    assert result.total_usage == Usage(input_tokens=30, output_tokens=2)


async def test_a_tool_raising_model_retry_counts_against_its_budget_across_activities(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP12: a tool's `ModelRetry` in its activity is raised again in the workflow, so the
    model sees it and the core counts it: `ToolContext.retries` grows from call to call,
    and one more than the tool's `retries` fails the run (`ToolRetriesExceededError`)."""
    seen: list[int] = []

    @tool(retries=1)
    def pick(ctx: ToolContext, n: int) -> str:
        """Pick a number."""
        seen.append(ctx.retries)
        raise ModelRetry("pick another number")

    def factory() -> Agent:
        return Agent(
            FunctionProvider(lambda r: tool_calls(tool_call(f"c{len(seen)}", "pick", n=1))),
            tools=[pick],
        )

    cause = await failure_of(client, fresh, factory)
    assert seen == [0, 1]
    assert cause.type == "ToolRetriesExceededError"
    assert "more than its 1 allowed retry" in cause.message


async def test_the_tool_policys_call_budget_holds_in_the_workflow(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP12: `max_calls` is kept by the loop in the workflow: a call over the budget is
    refused there, and its activity never runs."""
    ran: list[str] = []

    @tool
    def step(n: int) -> str:
        """One step."""
        ran.append(str(n))
        return "ok"

    def factory() -> Agent:
        calls = tool_calls(tool_call("c1", "step", n=1), tool_call("c2", "step", n=2))
        return Agent(
            ScriptedProvider([calls, "done"]), tools=[step], tool_policy=ToolPolicy(max_calls=1)
        )

    result = await run_once(client, fresh, factory)
    assert results_of(load_messages(result.transcript)) == [
        ("c1", "ok", False),
        ("c2", "denied: tool budget exhausted: max calls 1", True),
    ]
    assert ran == ["1"]


async def test_a_pre_send_hook_changes_what_the_provider_activity_is_sent(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP12: the agent's hooks run in the workflow around each provider call: a pre-send
    hook's request is the one the model-call activity sends."""

    async def shout(request: ModelRequest) -> ModelRequest:
        last = request.messages[-1]
        return ModelRequest(
            messages=(*request.messages[:-1], Message.user(last.text.upper())),
            tools=request.tools,
            options=request.options,
        )

    def factory() -> Agent:
        return Agent(FunctionProvider(lambda r: r.messages[-1].text), hooks=[pre_send(shout)])

    result = await run_once(client, fresh, factory, task="quiet please")
    assert result.output == "QUIET PLEASE"
    assert load_messages(result.transcript)[0].text == "quiet please"
