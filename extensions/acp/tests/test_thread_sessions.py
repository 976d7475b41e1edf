"""Sessions backed by a durable thread service: a session is a thread, and a second
server process loads it with `session/load`, replaying its history."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.schema import ToolCallProgress

from .editor import serving


async def test_a_thread_session_is_loaded_by_another_process_with_its_history(
    tmp_path: Path,
) -> None:
    """A10 A11 TD6"""
    env = {"ACP_TEST_THREADS_DB": str(tmp_path / "threads.db")}
    async with serving("editor_agents:durable", env=env) as (conn, editor):
        reply = await conn.initialize(protocol_version=PROTOCOL_VERSION)
        assert reply.agent_capabilities is not None
        assert reply.agent_capabilities.load_session is True
        session = (await conn.new_session(cwd="/tmp")).session_id
        greeting = await conn.prompt(session_id=session, prompt=[text_block("hello")])
        assert greeting.stop_reason == "end_turn"
        assert editor.text() == "Hello, editor"
        assert editor.text("agent_thought_chunk") == "a greeting"
        reading = await conn.prompt(session_id=session, prompt=[text_block("read a.py")])
        assert reading.stop_reason == "end_turn"
        [call] = editor.started_calls()
        assert editor.tool_statuses(call)[0] == "pending"
        assert editor.tool_statuses(call)[-1] == "completed"
        assert editor.text().endswith("done: contents of a.py")
        before = len(editor.updates)
        await conn.prompt(session_id=session, prompt=[text_block("plan")])
        assert editor.kinds(before) == ["plan", "agent_message_chunk"]

    async with serving("editor_agents:durable", env=env) as (conn, editor):
        await conn.load_session(cwd="/tmp", session_id=session)
        assert editor.text("user_message_chunk") == "helloread a.pyplan"
        assert editor.text() == (
            "Hello, editorReading.done: contents of a.pydone: plan recorded: 2 items, 1 completed"
        )
        assert editor.tool_statuses(call) == ["pending", "completed"]
        assert editor.kinds().count("plan") == 1
        [done] = [u for _, u in editor.updates if isinstance(u, ToolCallProgress)]
        assert done.raw_output == "contents of a.py"
        before = len(editor.updates)
        again = await conn.prompt(session_id=session, prompt=[text_block("history")])
        assert again.stop_reason == "end_turn"
        assert editor.text(since=before).startswith(f"results: {call}=contents of a.py | ")

        with pytest.raises(RequestError):
            await conn.load_session(cwd="/tmp", session_id="no-such-thread")


async def test_a_thread_approval_gate_asks_the_client_and_cancel_ends_the_turn(
    tmp_path: Path,
) -> None:
    """A12"""
    env = {"ACP_TEST_THREADS_DB": str(tmp_path / "threads.db")}
    async with serving("editor_agents:durable", env=env) as (conn, editor):
        session = (await conn.new_session(cwd="/tmp")).session_id
        editor.answers.extend(["allow_once", "reject_once"])
        await conn.prompt(session_id=session, prompt=[text_block("write a.txt")])
        assert editor.text().endswith("done: wrote 4 bytes to a.txt")
        before = len(editor.updates)
        await conn.prompt(session_id=session, prompt=[text_block("write b.txt")])
        assert len(editor.asked) == 2
        assert editor.text(since=before) == "done: denied: rejected by the user"

        calls = len(editor.started_calls())
        prompt = asyncio.create_task(conn.prompt(session_id=session, prompt=[text_block("block")]))
        await editor.wait_until(
            lambda: (
                len(editor.started_calls()) > calls
                and "in_progress" in editor.tool_statuses(editor.started_calls()[-1])
            )
        )
        await conn.cancel(session_id=session)
        assert (await asyncio.wait_for(prompt, 10)).stop_reason == "cancelled"
        blocked = editor.started_calls()[-1]
        assert editor.tool_statuses(blocked) == ["pending", "in_progress", "failed"]
        before = len(editor.updates)
        after = await conn.prompt(session_id=session, prompt=[text_block("history")])
        assert after.stop_reason == "end_turn"
        assert editor.text(since=before).endswith(f"{blocked}=cancelled")
