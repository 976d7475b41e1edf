"""What an editor (or anything else on the other end of stdin) may write that a careful
client would not: a cancel in the same write as its prompt, lines that are not JSON-RPC
objects, and sessions without end. `automata-acp` runs as a subprocess; the SDK's client
drives it, and raw bytes go to its stdin beside the SDK's own writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block

from .editor import Editor, serving

TARGETS = ["editor_agents:agent", "editor_agents:durable"]


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _prompt_and_cancel(request_id: str, session_id: str, text: str) -> bytes:
    prompt = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "session/prompt",
        "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
    }
    cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}}
    return _line(prompt) + _line(cancel)


def _env(tmp_path: Path) -> dict[str, str]:
    return {"ACP_TEST_THREADS_DB": str(tmp_path / "threads.db")}


@pytest.mark.parametrize("target", TARGETS)
async def test_a_cancel_in_the_same_write_as_its_prompt_answers_cancelled(
    target: str, tmp_path: Path
) -> None:
    """A7 A10 A12"""
    async with serving(target, env=_env(tmp_path)) as (conn, editor):
        session = (await conn.new_session(cwd="/tmp")).session_id
        for attempt in range(5):
            request_id = f"raw-prompt-{attempt}"
            await editor.write_raw(_prompt_and_cancel(request_id, session, "block"))
            answer = await editor.answer_to(request_id)
            assert answer.get("result") == {"stopReason": "cancelled"}, answer
        after = await conn.prompt(session_id=session, prompt=[text_block("hello")])
        assert after.stop_reason == "end_turn"
        assert editor.text().endswith("Hello, editor")


def _errors_for(editor: Editor, request_id: object) -> list[dict[str, Any]]:
    return [m["error"] for m in editor.received if "error" in m and m.get("id") == request_id]


NOT_OBJECTS = [b"[]", b"null", b"1", b'"session/new"', b"true", b"[1, 2]"]


@pytest.mark.parametrize("line", NOT_OBJECTS, ids=[line.decode() for line in NOT_OBJECTS])
async def test_a_line_that_is_not_an_object_is_an_invalid_request_and_serving_goes_on(
    line: bytes,
) -> None:
    """A13"""
    async with serving("editor_agents:agent") as (conn, editor):
        await editor.write_raw(line + b"\n")
        await editor.wait_until(lambda: bool(_errors_for(editor, None)))
        [error] = _errors_for(editor, None)
        assert error["code"] == -32600
        session = (await conn.new_session(cwd="/tmp")).session_id
        reply = await conn.prompt(session_id=session, prompt=[text_block("hello")])
        assert reply.stop_reason == "end_turn"


async def test_a_batch_is_refused_per_request_and_a_bad_id_or_bad_json_is_answered() -> None:
    """A13"""
    batch = [
        {"jsonrpc": "2.0", "id": "b1", "method": "session/new", "params": {"cwd": "/tmp"}},
        {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": "/tmp"}},
    ]
    async with serving("editor_agents:agent") as (conn, editor):
        await editor.write_raw(json.dumps(batch).encode() + b"\n")
        for request_id in ("b1", 2):
            answer = await editor.answer_to(request_id)
            assert answer["error"]["code"] == -32600
            assert "batch" in answer["error"]["data"]["reason"]
        await editor.write_raw(b'{"jsonrpc": "2.0", "id": [1], "result": null}\n')
        await editor.wait_until(lambda: len(_errors_for(editor, None)) == 1)
        await editor.write_raw(b'{"jsonrpc": "2.0", "id": 9, "method": 9}\n')
        assert (await editor.answer_to(9))["error"]["code"] == -32600
        await editor.write_raw(b'{"jsonrpc": "2.0", "id": 3, "method": "session/ne\n')
        await editor.wait_until(lambda: len(_errors_for(editor, None)) == 2)
        assert [e["code"] for e in _errors_for(editor, None)] == [-32600, -32700]
        session = (await conn.new_session(cwd="/tmp")).session_id
        reply = await conn.prompt(session_id=session, prompt=[text_block("hello")])
        assert reply.stop_reason == "end_turn"


async def test_a_line_nested_too_deeply_to_decode_is_a_parse_error_and_serving_goes_on() -> None:
    """A13"""
    deep = b"[" * 100_000 + b"]" * 100_000
    async with serving("editor_agents:agent") as (conn, editor):
        await editor.write_raw(deep + b"\n")
        await editor.wait_until(lambda: bool(_errors_for(editor, None)))
        [error] = _errors_for(editor, None)
        assert error["code"] == -32700
        assert "nested too deeply" in error["data"]["reason"]
        session = (await conn.new_session(cwd="/tmp")).session_id
        reply = await conn.prompt(session_id=session, prompt=[text_block("hello")])
        assert reply.stop_reason == "end_turn"


async def test_past_max_sessions_the_least_recently_used_idle_session_is_dropped() -> None:
    """A14"""
    async with serving("editor_agents:agent", "--max-sessions", "2") as (conn, _editor):
        first = (await conn.new_session(cwd="/tmp")).session_id
        second = (await conn.new_session(cwd="/tmp")).session_id
        await conn.prompt(session_id=first, prompt=[text_block("hello")])
        third = (await conn.new_session(cwd="/tmp")).session_id
        with pytest.raises(RequestError) as dropped:
            await conn.prompt(session_id=second, prompt=[text_block("hello")])
        assert dropped.value.code == -32002
        for session in (first, third):
            reply = await conn.prompt(session_id=session, prompt=[text_block("history")])
            assert reply.stop_reason == "end_turn"


async def test_when_every_session_is_answering_a_prompt_a_new_one_is_refused() -> None:
    """A14"""
    async with serving("editor_agents:agent", "--max-sessions", "2") as (conn, editor):
        sessions = [(await conn.new_session(cwd="/tmp")).session_id for _ in range(2)]
        for number, session in enumerate(sessions):
            await editor.write_raw(
                _line(
                    {
                        "jsonrpc": "2.0",
                        "id": f"busy-{number}",
                        "method": "session/prompt",
                        "params": {
                            "sessionId": session,
                            "prompt": [{"type": "text", "text": "block"}],
                        },
                    }
                )
            )
        await editor.wait_until(lambda: len(editor.started_calls()) == 2)
        with pytest.raises(RequestError) as refused:
            await conn.new_session(cwd="/tmp")
        assert refused.value.code == -32600
        assert "all 2 sessions" in str(refused.value.data)
        await conn.cancel(session_id=sessions[0])
        assert (await editor.answer_to("busy-0"))["result"] == {"stopReason": "cancelled"}
        fresh = (await conn.new_session(cwd="/tmp")).session_id
        with pytest.raises(RequestError):
            await conn.prompt(session_id=sessions[0], prompt=[text_block("hello")])
        await conn.cancel(session_id=sessions[1])
        assert (await editor.answer_to("busy-1"))["result"] == {"stopReason": "cancelled"}
        reply = await conn.prompt(session_id=fresh, prompt=[text_block("hello")])
        assert reply.stop_reason == "end_turn"


async def test_a_dropped_thread_session_is_loaded_again_with_its_history(tmp_path: Path) -> None:
    """A14 A11"""
    async with serving("editor_agents:durable_pair", env=_env(tmp_path)) as (conn, editor):
        first = (await conn.new_session(cwd="/tmp")).session_id
        await conn.prompt(session_id=first, prompt=[text_block("hello")])
        for _ in range(2):
            await conn.new_session(cwd="/tmp")
        with pytest.raises(RequestError):
            await conn.prompt(session_id=first, prompt=[text_block("hello")])
        before = len(editor.updates)
        await conn.load_session(cwd="/tmp", session_id=first)
        assert editor.text("user_message_chunk", since=before) == "hello"
        reply = await conn.prompt(session_id=first, prompt=[text_block("echo again")])
        assert reply.stop_reason == "end_turn"
