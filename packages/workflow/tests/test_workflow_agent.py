"""The workflow-backed agent beyond its suites: the activation seen from code a node
calls, errors after a restart, hooks, and the task check (W15, W16)."""

from __future__ import annotations

from typing import Any

import pytest

from automata.core import Agent, Hook, InvalidArgumentError, ProviderError, RunResult
from automata.core.testing import FunctionProvider
from automata.threads import MemoryStore
from automata.workflow import (
    NodeContext,
    NodeFailedError,
    Workflow,
    current_activation,
    workflow_agent,
)
from automata.workflow.testing import Conversation

TASK = "What is (2 + 3) + (4 * 5)?"


async def test_code_a_node_calls_reads_its_activation() -> None:
    """W16: `current_activation()` is the running node's context, None outside."""
    seen: list[tuple[str, str] | None] = []

    def deep_inside() -> None:
        activation = current_activation()
        seen.append(None if activation is None else (activation.node, activation.idempotency_key))

    wf = Workflow[int, int]("probe")

    @wf.node
    async def first(x: int, context: NodeContext) -> int:
        deep_inside()
        return x + 1

    @wf.node
    async def second(x: int, context: NodeContext) -> int:
        deep_inside()
        assert current_activation() is context
        return x * 2

    wf.entry(first)
    wf.edge(first, second)
    wf.exit(second)
    flow = wf.compile()
    assert await flow.invoke(1, run_id="p") == 4
    deep_inside()
    page = await flow.history("p")
    started = [e.activation_id for e in page.entries if e.kind == "activation_started"]
    assert seen == [("first", f"p/{started[0]}"), ("second", f"p/{started[1]}"), None]


async def test_tool_calls_in_a_batch_share_the_activation_key_and_differ_by_call_id() -> None:
    """W16: one batch is one activation: its calls' keys are `<activation key>/<call id>`."""
    conversation = Conversation()
    await workflow_agent(conversation.agent()).run(TASK, run_id="k")
    keys = [key for _, key in conversation.tool_calls]
    assert [key.rsplit("/", 1)[1] for key in keys] == ["c1", "c2", "c3", "c4"]
    activations = [key.rsplit("/", 1)[0] for key in keys]
    assert activations[0] == activations[1] != activations[2] == activations[3]
    assert all(activation.startswith("k/") for activation in activations)


async def test_a_run_that_failed_earlier_raises_node_failed_after_a_restart() -> None:
    """W15: in the failing process the agent's own error; from the journal later,
    `NodeFailedError` naming the node and the error."""
    store = MemoryStore()
    await store.open()
    with pytest.raises(ProviderError):
        await workflow_agent(Conversation(fail_at_turn=1).agent(), store).run(TASK, run_id="f")
    restarted = workflow_agent(Conversation().agent(), store)
    with pytest.raises(NodeFailedError, match="the model is down") as raised:
        await restarted.resume("f")
    assert raised.value.node == "model"


async def test_post_run_hooks_run_once_per_activation() -> None:
    """W15: each activation is an inner run, so an after-run hook runs at the end of
    each, stop reason `cancelled` for all but the answering one."""
    ends: list[str] = []

    class Record(Hook):
        async def after_run(self, result: RunResult[Any], error: BaseException | None) -> None:
            ends.append(result.stop_reason.value)

    conversation = Conversation()
    agent: Agent[Any] = Agent(
        FunctionProvider(conversation.answer),
        system_prompt="You add and multiply with tools.",
        tools=conversation.tools(),
        hooks=[Record()],
    )
    await workflow_agent(agent).run(TASK)
    assert ends == ["cancelled"] * 4 + ["end_turn"]


async def test_a_task_is_checked_before_anything_is_journaled() -> None:
    """W15: an empty task is refused as `Agent.run` refuses it; no run is made."""
    clerk = workflow_agent(Conversation().agent())
    with pytest.raises(InvalidArgumentError):
        await clerk.run("   ", run_id="empty")
    assert (await clerk.runs("any")).runs == ()
