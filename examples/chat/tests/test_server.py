"""The chat server over plain HTTP (no browser): the command on PostgreSQL, and the
routes the page uses besides those of threads_server (the app under uvicorn, httpx
playing the page)."""

from __future__ import annotations

import json
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from automata_pg_testing import PostgresUnavailable, require_postgres, throwaway_postgres
from automata_wire_testing import serving
from chat import create_chat_app, demo_factory
from chat.process import ChatProcess

from automata.threads import Host, SQLiteStore


@pytest.fixture(scope="module")
def pg_dsn() -> Iterator[str]:
    try:
        with throwaway_postgres() as dsn:
            yield dsn
    except PostgresUnavailable as error:
        require_postgres(error)


def settled(client: httpx.Client, thread_id: str) -> dict[str, Any]:
    """The thread's view once its last turn has ended."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        view: dict[str, Any] = client.get(f"/threads/{thread_id}").json()
        if view["status"] not in ("running", "waiting"):
            return view
        time.sleep(0.1)
    raise AssertionError(f"still {view['status']}")


def test_given_a_postgresql_url_the_chats_live_in_postgresql(pg_dsn: str, tmp_path: Path) -> None:
    schema = f"chat_{uuid.uuid4().hex[:8]}"
    server = ChatProcess(pg_dsn, tmp_path / "server.log", pace=0.0, schema=schema)
    server.start()
    try:
        with httpx.Client(base_url=server.url) as client:
            thread = client.post("/threads", json={"request_key": "c1", "title": "PG"}).json()
            client.post(
                f"/threads/{thread['thread_id']}/messages",
                json={"request_key": "s1", "text": "Weather in Tokyo?"},
            )
            answered = settled(client, thread["thread_id"])
        server.stop(signal.SIGTERM)
        server.start()
        with httpx.Client(base_url=server.url) as client:
            again = client.get(f"/threads/{thread['thread_id']}").json()
    finally:
        server.stop(signal.SIGTERM)
    assert answered["items"][-1]["text"] == "In Tokyo it is clear, 24°C today."
    assert again["items"] == answered["items"]


def chat_app(path: Path) -> Any:
    return create_chat_app(
        lambda: Host.open(SQLiteStore(path), poll_interval=0.05), demo_factory(pace=0.0)
    )


async def events(client: httpx.AsyncClient, path: str, count: int) -> list[tuple[str, Any]]:
    """The first `count` events of the stream at `path` (fewer if it ends)."""
    seen: list[tuple[str, Any]] = []
    async with client.stream("GET", path) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        event = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
            elif line.startswith("data: "):
                seen.append((event, json.loads(line.removeprefix("data: "))))
                if len(seen) == count:
                    break
    return seen


async def test_a_fork_sent_twice_with_one_key_makes_one_chat(tmp_path: Path) -> None:
    async with serving(chat_app(tmp_path / "c.db"), lifespan="on") as client:
        thread = (await client.post("/threads", json={"request_key": "c1"})).json()
        path = f"/threads/{thread['thread_id']}"
        await client.post(f"{path}/messages", json={"request_key": "s1", "text": "Hi"})
        view = (await client.get(path)).json()
        while view["status"] == "running":
            view = (await client.get(path)).json()
        fork = {"request_key": "f1", "item_id": view["items"][-1]["id"]}
        first = await client.post(f"{path}/fork", json=fork)
        second = await client.post(f"{path}/fork", json=fork)
        listed = (await client.get("/threads")).json()["threads"]
    assert first.status_code == second.status_code == 201
    assert first.json()["thread_id"] == second.json()["thread_id"]
    assert len(listed) == 2


async def test_a_key_reused_for_another_title_is_refused(tmp_path: Path) -> None:
    async with serving(chat_app(tmp_path / "c.db"), lifespan="on") as client:
        thread = (await client.post("/threads", json={"request_key": "c1"})).json()
        path = f"/threads/{thread['thread_id']}/title"
        renamed = await client.post(path, json={"request_key": "t1", "title": "One"})
        refused = await client.post(path, json={"request_key": "t1", "title": "Two"})
    assert renamed.json()["title"] == "One"
    assert refused.status_code == 409
    assert refused.json()["error"] == "RequestConflictError"


async def test_a_deleted_chat_s_stream_says_it_is_gone(tmp_path: Path) -> None:
    async with serving(chat_app(tmp_path / "c.db"), lifespan="on") as client:
        thread = (await client.post("/threads", json={"request_key": "c1"})).json()
        path = f"/threads/{thread['thread_id']}"
        await client.post(f"{path}/delete", json={"request_key": "d1"})
        seen = await events(client, f"{path}/events", 1)
    assert seen == [("gone", {"thread_id": thread["thread_id"]})]


async def test_the_thread_list_stream_starts_with_the_list(tmp_path: Path) -> None:
    async with serving(chat_app(tmp_path / "c.db"), lifespan="on") as client:
        await client.post("/threads", json={"request_key": "c1", "title": "Listed"})
        seen = await events(client, "/events/threads", 1)
    assert [(event, [t["title"] for t in page["threads"]]) for event, page in seen] == [
        ("threads", ["Listed"])
    ]


async def test_the_page_forbids_inline_and_foreign_scripts_and_remote_images(
    tmp_path: Path,
) -> None:
    async with serving(chat_app(tmp_path / "c.db"), lifespan="on") as client:
        page = await client.get("/")
        settings = (await client.get("/settings")).json()
    policy = dict(
        part.strip().split(" ", 1) for part in page.headers["content-security-policy"].split(";")
    )
    assert policy["script-src"] == "'self'"
    assert policy["img-src"] == "'self' data:"
    assert policy["default-src"] == "'none'"
    assert policy["frame-ancestors"] == "'none'"
    assert "<script>" not in page.text  # no inline script for the policy to allow
    assert isinstance(settings["lease_ttl"], float)
