"""Durable threads over real HTTP: the app runs under uvicorn on a loopback port, on a
SQLite file, and httpx plays the browser (JSON requests, the event stream read line by
line)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from automata_wire_testing import serving
from threads_server import create_app

from automata.core import Agent, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.threads import AgentRequest, Host, SQLiteStore, require_approval

View = dict[str, Any]


class Agents:
    """A factory giving every turn an agent on one scripted model (a resumed turn goes
    on with the next reply); counts how often it was asked."""

    def __init__(self, *replies: Any, approve: bool = False) -> None:
        self.model = ScriptedProvider(replies)
        self.turns = 0
        self.approve = approve
        self.charges: list[int] = []

    def __call__(self, request: AgentRequest) -> Agent:
        self.turns += 1

        def charge(amount: int) -> str:
            """Charge the card."""
            self.charges.append(amount)
            return f"charged {amount}"

        return Agent(
            self.model,
            tools=[tool(charge)],
            approver=require_approval("charge") if self.approve else None,
        )


def app_on(path: Path, agents: Agents) -> Any:
    return create_app(lambda: Host.open(SQLiteStore(path), poll_interval=0.05), agents)


async def follow(
    client: httpx.AsyncClient, thread_id: str, until: Callable[[View], bool]
) -> list[View]:
    """The views the event stream delivers, up to the first one `until` accepts."""
    seen: list[View] = []
    async with client.stream("GET", f"/threads/{thread_id}/events") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        event = None
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
            elif line.startswith("data: "):
                assert event == "view"
                seen.append(json.loads(line.removeprefix("data: ")))
                if until(seen[-1]):
                    return seen
    raise AssertionError("the event stream ended early")


def settled(view: View) -> bool:
    """The last turn ended (not running, not waiting for a person)."""
    return view["status"] not in ("running", "waiting")


async def test_a_message_is_answered_and_followed_over_server_sent_events(
    tmp_path: Path,
) -> None:
    agents = Agents("Hello there.")
    async with serving(app_on(tmp_path / "t.db", agents), lifespan="on") as client:
        created = await client.post("/threads", json={"request_key": "c1", "title": "Hi"})
        assert created.status_code == 201
        thread_id = created.json()["thread_id"]
        sent = await client.post(
            f"/threads/{thread_id}/messages", json={"request_key": "s1", "text": "hello"}
        )
        assert sent.status_code == 202
        assert sent.json()["items"][0]["text"] == "hello"  # committed before the model ran
        views = await follow(client, thread_id, settled)
        final = views[-1]
        assert final["status"] == "done"
        assert [(i["kind"], i["text"]) for i in final["items"]] == [
            ("user", "hello"),
            ("assistant", "Hello there."),
        ]
        listed = (await client.get("/threads")).json()
        assert listed["threads"] == [{"thread_id": thread_id, "title": "Hi", "active": False}]


async def test_a_retried_request_changes_nothing_and_a_reused_key_conflicts(
    tmp_path: Path,
) -> None:
    agents = Agents("Once.")
    async with serving(app_on(tmp_path / "t.db", agents), lifespan="on") as client:
        thread_id = (await client.post("/threads", json={"request_key": "c1"})).json()["thread_id"]
        body = {"request_key": "s1", "text": "hello"}
        await client.post(f"/threads/{thread_id}/messages", json=body)
        await follow(client, thread_id, settled)
        again = await client.post(f"/threads/{thread_id}/messages", json=body)
        assert again.status_code == 202
        assert agents.turns == 1  # the retry ran no second turn
        other = await client.post(
            f"/threads/{thread_id}/messages", json={"request_key": "s1", "text": "bye"}
        )
        assert other.status_code == 409
        assert other.json()["error"] == "RequestConflictError"
        view = (await client.get(f"/threads/{thread_id}")).json()
        assert [i["text"] for i in view["items"] if i["kind"] == "user"] == ["hello"]


async def test_an_approval_parks_the_turn_until_the_client_responds(tmp_path: Path) -> None:
    agents = Agents(tool_calls(tool_call("c1", "charge", amount=5)), "Paid.", approve=True)
    async with serving(app_on(tmp_path / "t.db", agents), lifespan="on") as client:
        thread_id = (await client.post("/threads", json={"request_key": "c1"})).json()["thread_id"]
        await client.post(
            f"/threads/{thread_id}/messages", json={"request_key": "s1", "text": "pay 5"}
        )
        waiting = (await follow(client, thread_id, lambda v: v["status"] == "waiting"))[-1]
        (asked,) = [i for i in waiting["items"] if i["kind"] == "interaction"]
        assert agents.charges == []
        answer = {"request_key": "r1", "interaction_id": asked["interaction_id"], "answer": True}
        for _ in range(2):  # answering twice is harmless
            response = await client.post(f"/threads/{thread_id}/respond", json=answer)
            assert response.status_code == 200
        final = (await follow(client, thread_id, settled))[-1]
        assert final["status"] == "done"
        assert agents.charges == [5]
        assert [i["text"] for i in final["items"] if i["kind"] == "assistant"] == ["Paid."]


async def test_bad_requests_get_typed_errors(tmp_path: Path) -> None:
    async with serving(app_on(tmp_path / "t.db", Agents()), lifespan="on") as client:
        missing = await client.get("/threads/th_nope")
        assert (missing.status_code, missing.json()["error"]) == (404, "ThreadNotFoundError")
        assert (await client.get("/threads/th_nope/events")).status_code == 404
        no_key = await client.post("/threads", json={"title": "x"})
        assert (no_key.status_code, no_key.json()["error"]) == (400, "BadRequest")
        not_json = await client.post(
            "/threads", content=b"{", headers={"content-type": "application/json"}
        )
        assert (not_json.status_code, not_json.json()["error"]) == (400, "BadRequest")
        untyped = await client.post("/threads", content=b"{", headers={"content-type": "x"})
        assert (untyped.status_code, untyped.json()["error"]) == (415, "UnsupportedMediaType")
        too_many = await client.get("/threads", params={"limit": 100_000})
        assert (too_many.status_code, too_many.json()["error"]) == (400, "PageBoundError")
