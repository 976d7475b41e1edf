"""Text that is not valid Unicode (a lone surrogate, as a JSON `\\ud800` escape or a
careless decode makes) is refused at the call with `InvalidArgumentError`, by the
service on every backend and by the SQLite store itself, and nothing is committed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from automata.core import Agent, InvalidArgumentError, Message
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.threads import SQLiteStore, ThreadService, ThreadView, ask_user_tool
from automata.threads.store import NewRecord, RequestClaim, ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]

LONE = "bad \ud800 text"


def _agent(request: object) -> Agent[None]:
    return Agent(ScriptedProvider([]), instructions="unused")


async def _journal(store: ThreadStore, thread_id: str) -> list[tuple[str, str]]:
    return [(record.kind, record.data) for record in await store.read(thread_id)]


async def test_every_service_call_refuses_a_lone_surrogate_and_commits_nothing(
    service_for: ServiceFor, store: ThreadStore
) -> None:
    service = await service_for(_agent)
    thread = await service.create(request_key="create")
    thread_id = thread.thread_id
    before = await _journal(store, thread_id)
    refused: list[Callable[[], Awaitable[object]]] = [
        lambda: service.create(request_key="c2", title=LONE),
        lambda: service.create(request_key=LONE),
        lambda: service.set_title(thread_id, LONE, request_key="t"),
        lambda: service.send(thread_id, LONE, request_key="s1"),
        lambda: service.send(thread_id, Message.user(LONE), request_key="s2"),
        lambda: service.send(thread_id, "fine", request_key="s3", supplemental=LONE),
        lambda: service.import_transcript([Message.user(LONE)], request_key="i"),
        lambda: service.view(LONE),
        lambda: service.history(LONE),
        lambda: service.delete(LONE, request_key="d"),
        lambda: service.fork(LONE, "item", request_key="f"),
        lambda: service.retry(LONE, request_key="r"),
    ]
    for call in refused:
        with pytest.raises(InvalidArgumentError, match="surrogate"):
            await call()
    assert await _journal(store, thread_id) == before
    assert [summary.thread_id for summary in (await service.list()).threads] == [thread_id]


async def test_the_sqlite_store_refuses_a_lone_surrogate_as_an_invalid_argument(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "threads.db")
    await store.open()
    try:
        await store.create_thread("t", [NewRecord("note", "kept")])
        writes: list[Callable[[], Awaitable[object]]] = [
            lambda: store.create_thread(LONE, []),
            lambda: store.append("t", [NewRecord("note", LONE)]),
            lambda: store.append("t", [NewRecord("note", "x")], summary=LONE),
            lambda: store.append(
                "t", [NewRecord("note", "x")], request=RequestClaim(LONE, "f", "o")
            ),
            lambda: store.read(LONE),
            lambda: store.thread(LONE),
            lambda: store.claim("t", LONE, 10.0),
        ]
        for write in writes:
            with pytest.raises(InvalidArgumentError, match="surrogate"):
                await write()
        assert [record.data for record in await store.read("t")] == ["kept"]
        assert (await store.thread("t")) is not None
    finally:
        await store.close()


async def test_a_secret_answer_with_a_lone_surrogate_is_refused_and_the_question_stays_open(
    service_for: ServiceFor,
    store: ThreadStore,
    settle: Callable[..., Awaitable[ThreadView]],
) -> None:
    question = tool_call("q1", "ask_user", question="Your PIN?", secret=True)
    provider = ScriptedProvider([tool_calls(question), "thanks"])
    service = await service_for(lambda r: Agent(provider, tools=[ask_user_tool()]))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "log me in", request_key="s")
    parked = await settle(service, thread.thread_id)
    asked = next(item for item in parked.items if item.kind == "interaction")
    before = await _journal(store, thread.thread_id)
    with pytest.raises(InvalidArgumentError, match="surrogate"):
        await service.respond(thread.thread_id, asked.interaction_id or "", LONE, request_key="r")
    assert await _journal(store, thread.thread_id) == before
    assert (await service.view(thread.thread_id)).status == parked.status
