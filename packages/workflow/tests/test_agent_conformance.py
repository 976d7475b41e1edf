"""The agent conformance suite, passed by a direct `Agent` and by a workflow-backed one,
and the workflow-agent suite on every store backend (docs/workflows.md, W15-W17)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from automata.core import Agent
from automata.threads.store import ThreadStore
from automata.workflow import WorkflowAgent, workflow_agent
from automata.workflow.testing import (
    AgentConformance,
    AgentUnderTest,
    ConformanceError,
    WorkflowAgentConformance,
    check_result_and_transcript,
)

from .conftest import Backend


class TestDirectAgent(AgentConformance):
    """The reference passes its own suite (W17)."""

    def wrap(self, agent: Agent[Any]) -> AgentUnderTest:
        return agent


class TestWorkflowBackedAgent(AgentConformance):
    """The loop as a workflow keeps the agent's contract (W15, W17)."""

    def wrap(self, agent: Agent[Any]) -> AgentUnderTest:
        return workflow_agent(agent)


class TestWorkflowAgentLifecycle(WorkflowAgentConformance):
    """Lifecycle and lineage, on memory, SQLite and PostgreSQL (W16, W17)."""

    @pytest.fixture(autouse=True)
    async def _backend(self, backend: Backend) -> AsyncIterator[None]:
        self._opened: list[ThreadStore] = []
        self._backend_factory = backend
        yield
        for store in self._opened:
            await store.close()

    async def make_store(self) -> ThreadStore:
        store = self._backend_factory()
        await store.open()
        self._opened.append(store)
        return store


async def test_a_runner_that_changes_the_transcript_fails_the_suite() -> None:
    """W17: the suite can fail: a runner whose transcript differs is caught."""

    class Forgetful:
        def __init__(self, agent: Agent[Any]) -> None:
            self.agent = agent

        async def run(self, task: Any) -> Any:
            result = await self.agent.run(task)
            from dataclasses import replace

            return replace(result, messages=result.messages[1:])

        def run_sync(self, task: Any) -> Any:
            raise NotImplementedError

    with pytest.raises(ConformanceError, match="transcript differs"):
        await check_result_and_transcript(Forgetful)


def test_workflow_agent_is_named_after_its_agent() -> None:
    """W15: the workflow is `agent:<name>`, its agent the one given."""
    agent: Agent[Any] = Agent(_NoProvider(), name="clerk")
    wrapped: WorkflowAgent[Any] = workflow_agent(agent)
    assert wrapped.name == "clerk"
    assert wrapped.workflow.name == "agent:clerk"


class _NoProvider:
    provider_name = "none"
    model = None
    supports_streaming = False
    supports_native_output = False

    async def complete(self, request: Any) -> Any:
        raise AssertionError("not called")
