"""The workflow-agent suite: lifecycle and lineage of a workflow-backed agent's runs.

Checks run the scripted conversation of `_scenario` through `WorkflowAgent`s made by
the factory under test on one store (a second agent on the same store stands for a
second process): run ids name runs, the run's history holds one activation per model
turn and per tool batch, a run interrupted mid-batch resumes to the result of an
uninterrupted one without repeating a finished step, and a finished run answers from
its journal without calling the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from automata.core import Agent
from automata.threads.store import ThreadStore
from automata.workflow._agent import WorkflowAgent, workflow_agent
from automata.workflow._errors import RunConflictError
from automata.workflow.testing._agent_suite import ConformanceError
from automata.workflow.testing._scenario import (
    EXPECTED_OUTPUT,
    EXPECTED_STEPS,
    EXPECTED_USAGE,
    TASK,
    Conversation,
)

__all__ = [
    "EXPECTED_NODES",
    "WORKFLOW_AGENT_CHECKS",
    "StoreFactory",
    "WorkflowAgentConformance",
    "WorkflowAgentFactory",
    "check_finished_run_answers_from_its_journal",
    "check_history_has_one_activation_per_step",
    "check_resume_after_interruption",
    "check_run_ids",
    "run_workflow_agent_conformance",
]

WorkflowAgentFactory = Callable[[Agent[Any], ThreadStore], WorkflowAgent[Any]]
"""Makes the workflow-backed agent under test for `agent` on the open `store`."""

StoreFactory = Callable[[], ThreadStore | Awaitable[ThreadStore]]
"""Makes an open store for one check (the check does not close it)."""

EXPECTED_NODES = ["model", "tools", "model", "tools", "model", "answer"]
"""The activations of the scripted conversation, in order: a turn, a batch, a turn, a
batch, the answering turn, and the exit that hands the answer back."""


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise ConformanceError(message)


async def _store(stores: StoreFactory) -> ThreadStore:
    made = stores()
    if inspect.isawaitable(made):
        return await made
    return made


async def _finished_nodes(agent: WorkflowAgent[Any], run_id: str) -> list[str]:
    page = await agent.workflow.history(run_id, limit=1000)
    return [str(entry.node) for entry in page.entries if entry.kind == "activation_finished"]


async def check_run_ids(factory: WorkflowAgentFactory, stores: StoreFactory) -> None:
    """A run given an id is that run: the result's `invocation_id` is it, and its
    session lists it as done. A run given none gets a fresh id. A run id reused with
    another task raises `RunConflictError`."""
    store = await _store(stores)
    agent = factory(Conversation().agent(), store)
    result = await agent.run(TASK, run_id="sum-1", session_id="class-7")
    _expect(result.invocation_id == "sum-1", f"invocation id {result.invocation_id!r}")
    page = await agent.runs("class-7")
    listed = [(run.run_id, run.status) for run in page.runs]
    _expect(listed == [("sum-1", "done")], f"the session lists {listed}")
    other = factory(Conversation().agent(), store)
    fresh = await other.run(TASK)
    _expect(fresh.invocation_id not in ("", "sum-1"), f"a new run got {fresh.invocation_id!r}")
    try:
        await factory(Conversation().agent(), store).run("another task", run_id="sum-1")
    except RunConflictError:
        pass
    else:
        raise ConformanceError("a run id reused with another task did not raise")


async def check_history_has_one_activation_per_step(
    factory: WorkflowAgentFactory, stores: StoreFactory
) -> None:
    """The run's history holds one finished activation per model turn and per tool
    batch, in the loop's order, then the exit's."""
    agent = factory(Conversation().agent(), await _store(stores))
    await agent.run(TASK, run_id="steps-1")
    nodes = await _finished_nodes(agent, "steps-1")
    _expect(nodes == EXPECTED_NODES, f"finished activations {nodes}, not {EXPECTED_NODES}")


async def check_resume_after_interruption(
    factory: WorkflowAgentFactory, stores: StoreFactory
) -> None:
    """A run interrupted in its second tool batch (its task cancelled, as a crash would
    stop it) resumes with `resume(run_id)` on another agent over the same store, to the
    result an uninterrupted run gives. No finished step ran again: the model was called
    once per turn in all, the first batch ran once, and the interrupted batch ran again
    with the same idempotency key."""
    store = await _store(stores)
    uninterrupted = await factory(Conversation().agent(), store).run(TASK, run_id="whole")
    conversation = Conversation(block_on="c3")
    first = factory(conversation.agent(), store)
    running = asyncio.ensure_future(first.run(TASK, run_id="cut"))
    await asyncio.wait_for(conversation.blocked.wait(), 10)
    running.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await running
    _expect(conversation.model_calls == 2, f"{conversation.model_calls} calls before the cut")
    conversation.release.set()
    result = await factory(conversation.agent(), store).resume("cut")
    _expect(result.output == EXPECTED_OUTPUT, f"resumed output {result.output!r}")
    _expect(result.messages == uninterrupted.messages, "the resumed transcript differs")
    _expect(result.steps == EXPECTED_STEPS, f"resumed steps {result.steps}")
    _expect(result.usage == EXPECTED_USAGE, f"resumed usage {result.usage}")
    _expect(
        conversation.model_calls == EXPECTED_STEPS,
        f"the model was called {conversation.model_calls} times in all, not {EXPECTED_STEPS}",
    )
    calls = conversation.tool_calls
    firsts = [key for _, key in calls if key.endswith(("/c1", "/c2"))]
    _expect(len(firsts) == 2, f"the first batch ran {len(firsts)} calls, not 2: {calls}")
    cut = [key for _, key in calls if key.endswith("/c3")]
    _expect(
        len(cut) == 2 and cut[0] == cut[1],
        f"the interrupted call ran {len(cut)} times with keys {cut}; twice with one key",
    )
    nodes = await _finished_nodes(first, "cut")
    _expect(nodes == EXPECTED_NODES, f"finished activations {nodes}")


async def check_finished_run_answers_from_its_journal(
    factory: WorkflowAgentFactory, stores: StoreFactory
) -> None:
    """`resume` of a finished run, and `run` with its id, return its result from the
    journal without calling the model or any tool."""
    store = await _store(stores)
    done = await factory(Conversation().agent(), store).run(TASK, run_id="done-1")
    idle = Conversation(fail_at_turn=0)
    again = factory(idle.agent(), store)
    for how, result in (
        ("resume", await again.resume("done-1")),
        ("run", await again.run(TASK, run_id="done-1")),
    ):
        _expect(result.output == done.output, f"{how}: output {result.output!r}")
        _expect(result.messages == done.messages, f"{how}: the transcript differs")
        _expect(result.usage == done.usage, f"{how}: usage {result.usage}")
        _expect(result.steps == done.steps, f"{how}: steps {result.steps}")
    _expect(idle.model_calls == 0, f"the model was called {idle.model_calls} times")
    _expect(idle.tool_calls == [], f"tools ran: {idle.tool_calls}")


WORKFLOW_AGENT_CHECKS: Sequence[Callable[[WorkflowAgentFactory, StoreFactory], Awaitable[None]]] = (
    check_run_ids,
    check_history_has_one_activation_per_step,
    check_resume_after_interruption,
    check_finished_run_answers_from_its_journal,
)


async def run_workflow_agent_conformance(
    factory: WorkflowAgentFactory,
    stores: StoreFactory,
    *,
    checks: Sequence[Callable[[WorkflowAgentFactory, StoreFactory], Awaitable[None]]] = (),
) -> None:
    """Run the checks (all of them by default); raise on the first failure."""
    for check in checks or WORKFLOW_AGENT_CHECKS:
        try:
            await check(factory, stores)
        except ConformanceError as error:
            raise ConformanceError(f"{check.__name__}: {error}") from error


class WorkflowAgentConformance:
    """The suite as test methods: subclass it as `class TestMine(WorkflowAgentConformance)`
    and override `make_store` (an open store; close it in a fixture if it needs
    closing) and, to test something other than `workflow_agent`, `make_agent`."""

    def make_store(self) -> ThreadStore | Awaitable[ThreadStore]:
        raise NotImplementedError("override make_store() to return an open store")

    def make_agent(self, agent: Agent[Any], store: ThreadStore) -> WorkflowAgent[Any]:
        return workflow_agent(agent, store)

    async def test_run_ids(self) -> None:
        await check_run_ids(self.make_agent, self.make_store)

    async def test_history_has_one_activation_per_step(self) -> None:
        await check_history_has_one_activation_per_step(self.make_agent, self.make_store)

    async def test_resume_after_interruption(self) -> None:
        await check_resume_after_interruption(self.make_agent, self.make_store)

    async def test_finished_run_answers_from_its_journal(self) -> None:
        await check_finished_run_answers_from_its_journal(self.make_agent, self.make_store)
