"""Elicitations on the agent's question path (`ask_elicitations`), against the asking
server (a real stdio process on the SDK): in a plain run a confirmation goes to the
approver and a form is declined; in a thread service's turn the elicitation is a
question of the call, journaled on SQLite, shown pending, answered through
`respond`, and handed to the call still open on the MCP session."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing, asynccontextmanager
from pathlib import Path
from typing import Any

from automata.core import Agent, Approval, ToolContext, ToolUseBlock
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results
from automata.mcp import Elicitation, ElicitationReply, MCPServer, ask_elicitations
from automata.threads import (
    CallQuestions,
    Host,
    MemoryStore,
    SQLiteStore,
    ThreadService,
    ThreadView,
)

ASKING = Path(__file__).resolve().parent / "servers" / "asking.py"


def asking(**options: Any) -> MCPServer:
    return MCPServer.stdio(sys.executable, [str(ASKING)], **options)


async def until(
    service: ThreadService, thread_id: str, done: Callable[[ThreadView], bool]
) -> ThreadView:
    async with aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if done(view):
                return view
    raise AssertionError("the host shut down")


def pending(view: ThreadView) -> bool:
    return any(item.kind == "interaction" and item.status == "pending" for item in view.items)


def settled(view: ThreadView) -> bool:
    return view.status not in ("running", "waiting")


@asynccontextmanager
async def thread_with(
    tool: str, db: Path
) -> AsyncIterator[tuple[ThreadService, str, Host, ScriptedProvider]]:
    """A thread on SQLite whose agent calls the asking server's `tool` once, its
    elicitations asked as the call's questions; the thread's turn has been sent."""
    host = await Host.open(SQLiteStore(db), poll_interval=0.05)
    provider = ScriptedProvider([tool_calls(tool_call("c1", tool)), "thanks"])
    try:
        async with asking(elicitation=ask_elicitations(CallQuestions(host))) as server:
            agent = Agent(provider, tools=await server.tools())
            service = host.thread_service(lambda request: agent)
            thread = await service.create(request_key="create")
            await service.send(thread.thread_id, f"use {tool}", request_key="send")
            yield service, thread.thread_id, host, provider
    finally:
        await host.shutdown()


def question_of(view: ThreadView) -> Any:
    (asked,) = [item for item in view.items if item.kind == "interaction"]
    return asked


async def journal_text(db: Path, thread_id: str) -> list[tuple[str, str]]:
    store = SQLiteStore(db)
    await store.open()
    try:
        return [(record.kind, record.data) for record in await store.read(thread_id)]
    finally:
        await store.close()


# -- in a plain run -------------------------------------------------------------------


async def test_an_elicitation_names_the_agents_call_in_flight() -> None:
    """P26"""
    seen: list[Elicitation] = []

    def handler(asked: Elicitation) -> ElicitationReply:
        seen.append(asked)
        return ElicitationReply.accept({"city": "Oslo"})

    async with asking(elicitation=handler) as server:
        provider = ScriptedProvider([tool_calls(tool_call("c7", "form")), "ok"])
        await Agent(provider, tools=await server.tools()).run("go")
        await server.call("form", {})  # no agent call: nothing to name
    first, direct = seen
    assert first.call is not None
    assert first.call.call.id == "c7"
    assert direct.call is None


async def test_in_a_plain_run_a_confirmation_goes_to_the_approver_and_a_form_is_declined() -> None:
    """P26"""
    decided: list[ToolUseBlock] = []

    def approver(call: ToolUseBlock, context: ToolContext[Any]) -> Approval:
        decided.append(call)
        return Approval.allow()

    host = await Host.open(MemoryStore())  # its questions are a thread's turn's only
    handler = ask_elicitations(CallQuestions(host), approver=approver)
    try:
        async with asking(elicitation=handler) as server:
            provider = ScriptedProvider(
                [tool_calls(tool_call("c1", "confirm"), tool_call("c2", "form")), "ok"]
            )
            result = await Agent(provider, tools=await server.tools()).run("go")
    finally:
        await host.shutdown()
    results = {call_id: json.loads(text) for call_id, text, _ in tool_results(result.messages)}
    assert results["c1"] == {"action": "accept", "content": {}}
    assert results["c2"] == {"action": "decline", "content": None}
    assert [call.input["message"] for call in decided] == ["confirm?"]

    async with asking(elicitation=ask_elicitations()) as server:
        text = (await server.call("confirm", {})).as_text()
    assert json.loads(text) == {"action": "decline", "content": None}


# -- in a thread service's turn --------------------------------------------------------


async def test_in_a_thread_a_form_is_a_pending_question_whose_answer_reaches_the_call(
    tmp_path: Path,
) -> None:
    """P27"""
    db = tmp_path / "threads.db"
    async with thread_with("form", db) as (service, thread_id, _, provider):
        waiting = await until(service, thread_id, pending)
        asked = question_of(waiting)
        assert waiting.status == "running"  # the call runs on, waiting for the answer
        assert asked.interaction_kind == "question"
        assert asked.text == "asking: form? (answer: city)"
        assert asked.call_id == "c1"
        await service.respond(thread_id, asked.interaction_id, "Oslo", request_key="answer")
        view = await until(service, thread_id, settled)
    assert view.status == "done"
    (call,) = [item for item in view.items if item.kind == "tool_call"]
    assert json.loads(call.result or "") == {"action": "accept", "content": {"city": "Oslo"}}
    answered = question_of(view)
    assert (answered.status, answered.result) == ("answered", "Oslo")
    kinds = [kind for kind, _ in await journal_text(db, thread_id)]
    assert kinds.index("interaction") < kinds.index("answer") < kinds.index("results")
    assert len(provider.requests) == 2


async def test_in_a_thread_a_confirmation_is_an_approval_of_the_call(tmp_path: Path) -> None:
    """P27"""
    replies: dict[bool, dict[str, Any]] = {
        True: {"action": "accept", "content": {}},
        False: {"action": "decline", "content": None},
    }
    for approved, reply in replies.items():
        db = tmp_path / f"confirm-{approved}.db"
        async with thread_with("confirm", db) as (service, thread_id, _, _):
            asked = question_of(await until(service, thread_id, pending))
            assert asked.interaction_kind == "approval"
            assert asked.text == "asking: confirm?"
            await service.respond(thread_id, asked.interaction_id, approved, request_key="a")
            view = await until(service, thread_id, settled)
        (call,) = [item for item in view.items if item.kind == "tool_call"]
        assert json.loads(call.result or "") == reply


async def test_a_secret_answer_reaches_the_server_and_is_journaled_redacted(
    tmp_path: Path,
) -> None:
    """P27"""
    db = tmp_path / "threads.db"
    async with thread_with("login", db) as (service, thread_id, _, _):
        asked = question_of(await until(service, thread_id, pending))
        await service.respond(thread_id, asked.interaction_id, "hunter2", request_key="pw")
        view = await until(service, thread_id, settled)
    (call,) = [item for item in view.items if item.kind == "tool_call"]
    # The server's own tool result echoes what it was given; the journal holds only
    # that result, the question's answer is redacted.
    assert json.loads(call.result or "")["content"] == {"password": "hunter2"}
    assert question_of(view).result == "[redacted]"
    answers = [data for kind, data in await journal_text(db, thread_id) if kind == "answer"]
    assert len(answers) == 1
    assert "hunter2" not in answers[0]
    assert "[redacted]" in answers[0]
