"""The agent conformance suite: what any runner of an agent's loop must keep.

A direct `Agent` and a `WorkflowAgent` both pass it. Each check builds a fresh agent on
the scripted conversation of `_scenario`, hands it to the factory under test, runs it
and compares what comes back with fixed expectations and with a direct `agent.run` of
the same conversation, the reference.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from automata.core import Agent, AutomataError, MaxStepsError, ProviderError, RunResult, Task
from automata.core.testing import tool_results
from automata.workflow.testing._scenario import (
    EXPECTED_OUTPUT,
    EXPECTED_RESULTS,
    EXPECTED_STEPS,
    EXPECTED_USAGE,
    TASK,
    Conversation,
)

__all__ = [
    "AGENT_CHECKS",
    "AgentConformance",
    "AgentFactory",
    "AgentUnderTest",
    "ConformanceError",
    "check_cancellation_propagates",
    "check_errors_are_the_agents",
    "check_max_steps",
    "check_result_and_transcript",
    "check_run_sync",
    "check_usage_totals",
    "run_agent_conformance",
]


class ConformanceError(AssertionError):
    """A runner under test broke the contract; the message says how."""


class AgentUnderTest(Protocol):
    """What the suite calls: the run surface users call on an agent."""

    async def run(self, task: Task) -> RunResult[str]: ...

    def run_sync(self, task: Task) -> RunResult[str]: ...


AgentFactory = Callable[[Agent[Any]], AgentUnderTest | Awaitable[AgentUnderTest]]
"""Wraps a fresh agent (built by the check) into the runner under test: for a direct
agent, the agent itself; for a workflow-backed one, `workflow_agent(agent, store)`."""


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise ConformanceError(message)


async def _make(factory: AgentFactory, agent: Agent[Any]) -> AgentUnderTest:
    made = factory(agent)
    if inspect.isawaitable(made):
        return await made
    return made


def _check_result(result: RunResult[str], reference: RunResult[str], how: str) -> None:
    _expect(result.output == EXPECTED_OUTPUT, f"{how}: output {result.output!r}")
    _expect(
        tool_results(result.messages) == EXPECTED_RESULTS,
        f"{how}: tool results {tool_results(result.messages)}",
    )
    _expect(
        result.messages == reference.messages,
        f"{how}: the transcript differs from a direct agent's for the same conversation",
    )
    _expect(
        result.final_message == reference.final_message,
        f"{how}: final message {result.final_message!r}",
    )
    _expect(result.steps == EXPECTED_STEPS, f"{how}: {result.steps} steps, not {EXPECTED_STEPS}")
    _expect(result.usage == EXPECTED_USAGE, f"{how}: usage {result.usage}, not {EXPECTED_USAGE}")
    _expect(
        result.stop_reason == reference.stop_reason,
        f"{how}: stop reason {result.stop_reason}, not {reference.stop_reason}",
    )


async def _reference() -> RunResult[str]:
    return await Conversation().agent().run(TASK)


async def check_result_and_transcript(factory: AgentFactory) -> None:
    """The scripted conversation (two tool batches, one with a failing tool, then an
    answer) ends with the expected output, and the same transcript, final message and
    stop reason as a direct `agent.run`; a failing tool's error reached the model."""
    conversation = Conversation()
    runner = await _make(factory, conversation.agent())
    _check_result(await runner.run(TASK), await _reference(), "run")
    _expect(
        conversation.model_calls == EXPECTED_STEPS,
        f"the model was called {conversation.model_calls} times, not {EXPECTED_STEPS}",
    )
    _expect(
        [name for name, _ in conversation.tool_calls].count("add") == 2,
        f"each tool call runs once: {conversation.tool_calls}",
    )


async def check_usage_totals(factory: AgentFactory) -> None:
    """`usage` sums every provider call of the run and `steps` counts them (L7)."""
    runner = await _make(factory, Conversation().agent())
    result = await runner.run(TASK)
    _expect(result.usage == EXPECTED_USAGE, f"usage {result.usage}, not {EXPECTED_USAGE}")
    _expect(result.steps == EXPECTED_STEPS, f"{result.steps} steps, not {EXPECTED_STEPS}")


async def _failure(run: Awaitable[RunResult[str]]) -> AutomataError:
    try:
        await run
    except AutomataError as error:
        return error
    raise ConformanceError("the run succeeded; it should have failed")


def _same_failure(error: AutomataError, reference: AutomataError, how: str) -> None:
    _expect(
        type(error) is type(reference),
        f"{how}: raised {type(error).__name__}, a direct agent {type(reference).__name__}",
    )
    _expect(str(error) == str(reference), f"{how}: message {str(error)!r}, not {reference!r}")
    got, want = getattr(error, "result", None), getattr(reference, "result", None)
    _expect(got is not None and want is not None, f"{how}: the error carries no partial result")
    assert got is not None
    assert want is not None
    _expect(got.messages == want.messages, f"{how}: the partial transcript differs")
    _expect(got.steps == want.steps, f"{how}: partial steps {got.steps}, not {want.steps}")
    _expect(got.usage == want.usage, f"{how}: partial usage {got.usage}, not {want.usage}")
    _expect(
        got.stop_reason == want.stop_reason,
        f"{how}: partial stop reason {got.stop_reason}, not {want.stop_reason}",
    )


async def check_errors_are_the_agents(factory: AgentFactory) -> None:
    """A provider that fails mid-run surfaces as the same typed error a direct agent
    raises (`ProviderError`), with the same message and partial result (L9)."""

    def failing() -> Conversation:
        return Conversation(fail_at_turn=1)

    reference = await _failure(failing().agent().run(TASK))
    _expect(isinstance(reference, ProviderError), f"reference raised {reference!r}")
    runner = await _make(factory, failing().agent())
    _same_failure(await _failure(runner.run(TASK)), reference, "a failing provider")


async def check_max_steps(factory: AgentFactory) -> None:
    """A model still calling tools after `max_steps` calls ends the run with
    `MaxStepsError` and its partial result, as a direct agent does (L8)."""

    def looping() -> Conversation:
        return Conversation(max_steps=2, loop_turns=True)

    reference = await _failure(looping().agent().run(TASK))
    _expect(isinstance(reference, MaxStepsError), f"reference raised {reference!r}")
    conversation = looping()
    runner = await _make(factory, conversation.agent())
    _same_failure(await _failure(runner.run(TASK)), reference, "max_steps")
    _expect(conversation.model_calls == 2, f"{conversation.model_calls} model calls, not 2")


async def check_cancellation_propagates(factory: AgentFactory) -> None:
    """Cancelling a run while a tool runs cancels the tool and raises `CancelledError`
    from the run (L21), not an error of the runner's own."""
    conversation = Conversation(block_on="c3")
    runner = await _make(factory, conversation.agent())
    task = asyncio.ensure_future(runner.run(TASK))
    await asyncio.wait_for(conversation.blocked.wait(), 10)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:
        raise ConformanceError("the cancelled run returned a result")
    _expect(conversation.cancelled == ["c3"], f"the blocked tool saw {conversation.cancelled}")


async def check_run_sync(factory: AgentFactory) -> None:
    """`run_sync`, from a thread without an event loop, gives the same result (L3)."""
    reference = await _reference()

    def in_thread() -> RunResult[str]:
        async def make() -> AgentUnderTest:
            return await _make(factory, Conversation().agent())

        runner = asyncio.run(make())
        return runner.run_sync(TASK)

    _check_result(await asyncio.to_thread(in_thread), reference, "run_sync")


AGENT_CHECKS: Sequence[Callable[[AgentFactory], Awaitable[None]]] = (
    check_result_and_transcript,
    check_usage_totals,
    check_errors_are_the_agents,
    check_max_steps,
    check_cancellation_propagates,
    check_run_sync,
)


async def run_agent_conformance(
    factory: AgentFactory,
    *,
    checks: Sequence[Callable[[AgentFactory], Awaitable[None]]] = (),
) -> None:
    """Run the checks (all of them by default); raise on the first failure."""
    for check in checks or AGENT_CHECKS:
        try:
            await check(factory)
        except ConformanceError as error:
            raise ConformanceError(f"{check.__name__}: {error}") from error


class AgentConformance:
    """The suite as test methods: subclass it as `class TestMyRunner(AgentConformance)`
    and override `wrap(agent)`; pytest (with async tests enabled) runs one test per
    check."""

    def wrap(self, agent: Agent[Any]) -> AgentUnderTest | Awaitable[AgentUnderTest]:
        raise NotImplementedError("override wrap() to return the runner under test")

    async def test_result_and_transcript(self) -> None:
        await check_result_and_transcript(self.wrap)

    async def test_usage_totals(self) -> None:
        await check_usage_totals(self.wrap)

    async def test_errors_are_the_agents(self) -> None:
        await check_errors_are_the_agents(self.wrap)

    async def test_max_steps(self) -> None:
        await check_max_steps(self.wrap)

    async def test_cancellation_propagates(self) -> None:
        await check_cancellation_propagates(self.wrap)

    async def test_run_sync(self) -> None:
        await check_run_sync(self.wrap)
