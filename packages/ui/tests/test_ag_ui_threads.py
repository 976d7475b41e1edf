"""A durable thread served as AG-UI events, read by AG-UI's own client in node: the
front end's resume answers the thread's approval and resumes the durable turn."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.threads import ThreadService
from automata.ui import agui_thread_stream

from ._node import run_client
from ._threads import approving, sent, served_thread


def run(service: ThreadService, request: Request) -> Response:
    return agui_thread_stream(service, request, thread_id=request.path_params["thread_id"])


@asynccontextmanager
async def thread_agent(
    path: Path, provider: ScriptedProvider
) -> AsyncIterator[tuple[str, str, ThreadService]]:
    async with served_thread(path, approving(provider), "/threads/{thread_id}/agent", run) as got:
        yield got


async def test_a_thread_turn_reads_as_an_ag_ui_run(tmp_path: Path) -> None:
    """U11: the thread's reply, through HttpAgent's event verification."""
    async with thread_agent(tmp_path, ScriptedProvider(["From the journal."])) as (url, tid, _):
        read = await run_client("ag_ui_run.mjs", url, "hi", "", "", tid)
    assert read["error"] is None
    (run,) = read["runs"]
    kinds = [event["type"] for event in run["events"]]
    assert kinds[:2] == ["RUN_STARTED", "STATE_SNAPSHOT"]
    assert kinds[-2:] == ["STATE_DELTA", "RUN_FINISHED"]
    assert run["messages"][-1]["content"] == "From the journal."
    assert run["state"]["theme"] == "dark"


async def test_resuming_an_approval_interrupt_resumes_the_durable_turn(tmp_path: Path) -> None:
    """U11: the interrupt is the thread's interaction; resume approves it."""
    sent.clear()
    provider = ScriptedProvider([tool_calls(tool_call("c1", "send_email", to="bob")), "Sent."])
    async with thread_agent(tmp_path, provider) as (url, tid, service):
        read = await run_client("ag_ui_run.mjs", url, "email bob", "", "approve", tid)
        view = await service.view(tid)
    assert read["error"] is None
    first, second = read["runs"]
    (interrupt,) = first["events"][-1]["outcome"]["interrupts"]
    assert interrupt["toolCallId"] == "c1"
    assert interrupt["id"] == next(i.interaction_id for i in view.items if i.kind == "interaction")
    assert sent == ["bob"]
    assert [m["role"] for m in second["messages"]][-3:] == ["assistant", "tool", "assistant"]
    assert second["messages"][-1]["content"] == "Sent."
    assert view.status == "done"


async def test_a_thread_id_other_than_the_routes_is_refused(tmp_path: Path) -> None:
    """U11: a body naming another thread than the route is refused with 400."""
    async with thread_agent(tmp_path, ScriptedProvider(["never"])) as (url, _, _service):
        read = await run_client("ag_ui_run.mjs", url, "hi", "", "", "someone-elses-thread")
    assert read["error"] is not None
    assert "400" in read["error"]
