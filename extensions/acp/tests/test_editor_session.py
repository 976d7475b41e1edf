"""An editor-style session over ACP: the SDK's client drives `automata-acp` in a
subprocess through prompts, streamed updates, permission requests and a cancel."""

from __future__ import annotations

import asyncio

from acp import PROTOCOL_VERSION, text_block
from acp.schema import ToolCallProgress, ToolCallStart

from .editor import CLI, HOLD, serving


async def test_a_prompt_streams_thoughts_message_chunks_and_a_tool_call_with_its_result() -> None:
    """A2 A3 A4"""
    async with serving("editor_agents:agent") as (conn, editor):
        session = await conn.new_session(cwd="/tmp")

        greeting = await conn.prompt(session_id=session.session_id, prompt=[text_block("hello")])
        assert greeting.stop_reason == "end_turn"
        assert editor.kinds() == [
            "agent_thought_chunk",
            "agent_message_chunk",
            "agent_message_chunk",
        ]
        assert editor.text("agent_thought_chunk") == "a greeting"
        assert editor.text() == "Hello, editor"

        before = len(editor.updates)
        reading = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("read main.py")]
        )
        assert reading.stop_reason == "end_turn"
        assert editor.kinds(before) == [
            "agent_message_chunk",
            "tool_call",
            "tool_call_update",
            "tool_call_update",
            "agent_message_chunk",
        ]
        start = editor.updates[before + 1][1]
        assert isinstance(start, ToolCallStart)
        assert (start.title, start.kind, start.status) == ("read_file", "other", "pending")
        assert start.raw_input == {"path": "main.py"}
        assert editor.tool_statuses(start.tool_call_id) == ["pending", "in_progress", "completed"]
        done = editor.updates[before + 3][1]
        assert isinstance(done, ToolCallProgress)
        assert done.raw_output == "contents of main.py"
        assert done.content is not None
        assert done.content[0].content.text == "contents of main.py"
        assert editor.text(since=before + 4) == "done: contents of main.py"
        assert {sid for sid, _ in editor.updates} == {session.session_id}


async def test_initialize_reports_only_what_is_served() -> None:
    """A1"""
    async with serving("editor_agents:agent", "--name", "my-editor-agent") as (conn, _editor):
        reply = await conn.initialize(protocol_version=PROTOCOL_VERSION)
        assert reply.protocol_version == PROTOCOL_VERSION
        capabilities = reply.agent_capabilities
        assert capabilities is not None
        assert capabilities.load_session is False
        prompts = capabilities.prompt_capabilities
        assert prompts is not None
        assert (prompts.image, prompts.audio, prompts.embedded_context) == (False, False, False)
        assert reply.auth_methods == []
        assert reply.agent_info is not None
        assert reply.agent_info.name == "my-editor-agent"


async def test_a_gated_tool_asks_permission_allow_once_then_reject_then_always() -> None:
    """A6"""
    async with serving("editor_agents:gated") as (conn, editor):
        session = (await conn.new_session(cwd="/tmp")).session_id

        editor.answers.append("allow_once")
        first = await conn.prompt(session_id=session, prompt=[text_block("write a.txt")])
        assert first.stop_reason == "end_turn"
        assert len(editor.asked) == 1
        asked = editor.asked[0]
        assert [o.option_id for o in asked.options] == ["allow_once", "allow_always", "reject_once"]
        assert [o.kind for o in asked.options] == ["allow_once", "allow_always", "reject_once"]
        assert asked.tool_call.title == "write_file"
        assert asked.tool_call.raw_input == {"path": "a.txt", "text": "data"}
        call = asked.tool_call.tool_call_id
        assert editor.tool_statuses(call) == ["pending", "in_progress", "completed"]
        assert editor.text().endswith("done: wrote 4 bytes to a.txt")

        before = len(editor.updates)
        editor.answers.append("reject_once")
        second = await conn.prompt(session_id=session, prompt=[text_block("write b.txt")])
        assert second.stop_reason == "end_turn"
        assert len(editor.asked) == 2, "allow once is not remembered"
        rejected = editor.asked[1].tool_call.tool_call_id
        assert editor.tool_statuses(rejected) == ["pending", "failed"]
        assert editor.text(since=before) == "done: denied: rejected by the user"

        editor.answers.append("allow_always")
        await conn.prompt(session_id=session, prompt=[text_block("write c.txt")])
        await conn.prompt(session_id=session, prompt=[text_block("write d.txt")])
        assert len(editor.asked) == 3, "allow always is remembered for the tool"
        read = await conn.prompt(session_id=session, prompt=[text_block("read e.txt")])
        assert read.stop_reason == "end_turn"
        assert len(editor.asked) == 3, "tools outside the rule never ask"

        other = (await conn.new_session(cwd="/tmp")).session_id
        editor.answers.append("allow_once")
        await conn.prompt(session_id=other, prompt=[text_block("write f.txt")])
        assert len(editor.asked) == 4, "always is per session"


async def test_cancel_mid_tool_stops_the_prompt_and_the_session_continues() -> None:
    """A7"""
    async with serving("editor_agents:agent") as (conn, editor):
        session = (await conn.new_session(cwd="/tmp")).session_id

        prompt = asyncio.create_task(conn.prompt(session_id=session, prompt=[text_block("block")]))
        await editor.wait_until(
            lambda: any("in_progress" in editor.tool_statuses(c) for c in editor.started_calls())
        )
        [call] = editor.started_calls()
        await conn.cancel(session_id=session)
        response = await asyncio.wait_for(prompt, 10)

        assert response.stop_reason == "cancelled"
        assert editor.tool_statuses(call) == ["pending", "in_progress", "failed"]

        after = await conn.prompt(session_id=session, prompt=[text_block("history")])
        assert after.stop_reason == "end_turn"
        assert editor.text().endswith(
            f"results: {call}=canceled: tool batch aborted: run cancelled"
        )


async def test_cancel_while_a_permission_request_is_open_is_a_cancelled_prompt() -> None:
    """A7"""
    async with serving("editor_agents:agent", "--ask", "wait_forever") as (conn, editor):
        session = (await conn.new_session(cwd="/tmp")).session_id
        editor.answers.append(HOLD)
        prompt = asyncio.create_task(conn.prompt(session_id=session, prompt=[text_block("block")]))
        await editor.wait_until(lambda: len(editor.asked) == 1)
        await conn.cancel(session_id=session)
        editor.release()
        assert (await asyncio.wait_for(prompt, 10)).stop_reason == "cancelled"
        [call] = editor.started_calls()
        assert editor.tool_statuses(call) == ["pending", "failed"], "it never ran"
        reply = await conn.prompt(session_id=session, prompt=[text_block("hello")])
        assert reply.stop_reason == "end_turn"


def test_the_cli_is_installed_next_to_the_interpreter() -> None:
    """A8"""
    assert CLI.exists()
