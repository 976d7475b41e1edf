"""Prompt content, the event -> update mapping beyond the editor session, and the
serving rules, all over the wire against `automata-acp` in a subprocess."""

from __future__ import annotations

import pytest
from acp import RequestError, image_block, resource_link_block, text_block
from acp.schema import AgentPlanUpdate, ToolCallProgress

from .editor import serving


async def test_resource_links_reach_the_model_as_text_with_their_uri() -> None:
    """A2"""
    async with serving("editor_agents:agent") as (conn, editor):
        session = (await conn.new_session(cwd="/tmp")).session_id
        link = resource_link_block(
            "main.py", "file:///src/main.py", title="Main module", mime_type="text/x-python"
        )
        await conn.prompt(session_id=session, prompt=[text_block("show "), link])
        assert editor.text() == (
            "echo: show [resource: Main module](file:///src/main.py) (text/x-python)"
        )


async def test_content_the_server_does_not_advertise_is_refused_before_anything_runs() -> None:
    """A2"""
    async with serving("editor_agents:agent") as (conn, editor):
        session = (await conn.new_session(cwd="/tmp")).session_id
        with pytest.raises(RequestError) as refused:
            await conn.prompt(session_id=session, prompt=[image_block("AAAA", "image/png")])
        assert refused.value.code == -32602
        assert editor.updates == []
        reply = await conn.prompt(session_id=session, prompt=[text_block("hello")])
        assert reply.stop_reason == "end_turn"


async def test_an_unknown_session_is_an_error() -> None:
    """A2"""
    async with serving("editor_agents:agent") as (conn, _editor):
        with pytest.raises(RequestError):
            await conn.prompt(session_id="sess_nope", prompt=[text_block("hello")])


async def test_sessions_are_separate_conversations() -> None:
    """A2"""
    async with serving("editor_agents:agent") as (conn, editor):
        first = (await conn.new_session(cwd="/tmp")).session_id
        second = (await conn.new_session(cwd="/tmp")).session_id
        assert first != second
        await conn.prompt(session_id=first, prompt=[text_block("read a.py")])
        before = len(editor.updates)
        await conn.prompt(session_id=second, prompt=[text_block("history")])
        assert editor.text(since=before) == "results: "
        assert {sid for sid, _ in editor.updates[before:]} == {second}


async def test_a_failing_tool_is_a_failed_call_carrying_the_error() -> None:
    """A4"""
    async with serving("editor_agents:agent") as (conn, editor):
        session = (await conn.new_session(cwd="/tmp")).session_id
        reply = await conn.prompt(session_id=session, prompt=[text_block("explode")])
        assert reply.stop_reason == "end_turn"
        [call] = editor.started_calls()
        assert editor.tool_statuses(call) == ["pending", "in_progress", "failed"]
        failed = editor.updates[-2][1]
        assert isinstance(failed, ToolCallProgress)
        assert "the tool broke" in str(failed.raw_output)


async def test_the_todo_tool_becomes_the_plan_not_a_tool_call() -> None:
    """A5"""
    async with serving("editor_agents:agent") as (conn, editor):
        session = (await conn.new_session(cwd="/tmp")).session_id
        reply = await conn.prompt(session_id=session, prompt=[text_block("plan")])
        assert reply.stop_reason == "end_turn"
        assert editor.kinds() == ["plan", "agent_message_chunk"]
        plan = editor.updates[0][1]
        assert isinstance(plan, AgentPlanUpdate)
        assert [(e.content, e.status, e.priority) for e in plan.entries] == [
            ("read the code", "completed", "medium"),
            ("fix the bug", "in_progress", "high"),
        ]
        assert editor.text() == "done: plan recorded: 2 items, 1 completed"


async def test_the_factory_target_makes_each_session_its_agent() -> None:
    """A8"""
    async with serving("editor_agents:make_agent") as (conn, editor):
        session = (await conn.new_session(cwd="/tmp")).session_id
        reply = await conn.prompt(session_id=session, prompt=[text_block("hello")])
        assert reply.stop_reason == "end_turn"
        assert editor.text() == "Hello, editor"


async def test_stop_reasons_end_turn_and_max_turn_requests() -> None:
    """A9"""
    async with serving("editor_agents:short") as (conn, editor):
        session = (await conn.new_session(cwd="/tmp")).session_id
        assert (await conn.prompt(session_id=session, prompt=[text_block("hi")])).stop_reason == (
            "end_turn"
        )
        out_of_steps = await conn.prompt(session_id=session, prompt=[text_block("read a.py")])
        assert out_of_steps.stop_reason == "max_turn_requests"
        [call] = editor.started_calls()
        assert editor.tool_statuses(call)[-1] == "completed"
