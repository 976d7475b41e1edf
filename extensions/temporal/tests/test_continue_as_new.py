"""TP13: a long run continues as new at a step boundary once its history is large, and
finishes as one run would: the whole transcript, every provider call counted, every
tool run once."""

from __future__ import annotations

from collections.abc import Callable

from temporalio.client import Client, WorkflowExecutionStatus

from automata.core import (
    Agent,
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    Usage,
    load_messages,
    tool,
)
from automata.core.testing import FunctionProvider, tool_call, tool_calls
from automata.core.testing import tool_results as results_of
from automata.temporal import AgentRegistry, TemporalAgent, agent_worker, start_agent_run


async def test_a_long_run_continues_as_new_and_completes_with_its_whole_transcript(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP13: with `continue_as_new_after=20` history events, a run of five tool turns
    continues as new (its first execution ends `CONTINUED_AS_NEW`); the result, followed
    across the runs, has the whole transcript, the provider calls and usage of all of
    them, and each call ran once."""
    ran: list[int] = []

    @tool
    def count(n: int) -> str:
        """Count."""
        ran.append(n)
        return f"counted {n}"

    def reply(request: ModelRequest) -> ModelResponse:
        turns = sum(1 for m in request.messages if m.role == "tool")
        usage = Usage(input_tokens=1, output_tokens=1)
        if turns < 3:
            calls = tool_calls(tool_call(f"c{turns}", "count", n=turns))
            return ModelResponse(message=calls, stop_reason=StopReason.TOOL_USE, usage=usage)
        return ModelResponse(
            message=Message.assistant("done"), stop_reason=StopReason.END_TURN, usage=usage
        )

    entry = TemporalAgent(
        lambda: Agent(FunctionProvider(reply), tools=[count]), continue_as_new_after=20
    )
    queue, run_id = fresh("q"), fresh("run")
    async with agent_worker(client, AgentRegistry({"long": entry}), task_queue=queue):
        handle = await start_agent_run(client, "long", "count", id=run_id, task_queue=queue)
        result = await handle.result()
        first = await client.get_workflow_handle(
            run_id, run_id=handle.first_execution_run_id
        ).describe()
        latest = await client.get_workflow_handle(run_id).describe()
    assert first.status == WorkflowExecutionStatus.CONTINUED_AS_NEW
    assert latest.run_id != handle.first_execution_run_id
    assert ran == [0, 1, 2]
    assert results_of(load_messages(result.transcript)) == [
        (f"c{n}", f"counted {n}", False) for n in range(3)
    ]
    assert (result.output, result.steps, result.usage["input_tokens"]) == ("done", 4, 4)
