"""What another site's page, a DNS-rebinding page and a careless client send to the
threads server (real HTTP, uvicorn on a loopback port, a SQLite file): refused with a
typed answer and its reason, nothing created, no server error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from automata_wire_testing import serving
from threads_server import create_app

from automata.core import Agent
from automata.core.testing import ScriptedProvider
from automata.threads import AgentRequest, Host, SQLiteStore
from automata.web.testing import JSON_HEADERS, MALFORMED_BODIES, encoded, malformed_fields

EVIL = "http://evil.example"


def app_on(path: Path) -> Any:
    def agent(request: AgentRequest) -> Agent:
        return Agent(ScriptedProvider(["Hello."]))

    return create_app(lambda: Host.open(SQLiteStore(path), poll_interval=0.05), agent)


def refused(response: httpx.Response, status: int, error: str) -> str:
    assert (response.status_code, response.json()["error"]) == (status, error), response.text
    message: str = response.json()["message"]
    assert message
    return message


async def new_thread(client: httpx.AsyncClient) -> str:
    created = await client.post("/threads", json={"request_key": "c1", "title": "Mine"})
    thread_id: str = created.json()["thread_id"]
    return thread_id


async def test_a_cross_origin_text_plain_post_creates_no_thread(tmp_path: Path) -> None:
    """What a form or a `no-cors` fetch on another site sends."""
    async with serving(app_on(tmp_path / "t.db"), lifespan="on") as client:
        body = json.dumps({"request_key": "evil", "title": "From elsewhere"})
        for headers in (
            {"content-type": "text/plain;charset=UTF-8", "origin": EVIL},
            {"content-type": "text/plain;charset=UTF-8", "sec-fetch-site": "cross-site"},
            {"content-type": "application/json", "origin": EVIL},
        ):
            refused(
                await client.post("/threads", content=body, headers=headers),
                403,
                "CrossOriginRefused",
            )
        plain = await client.post("/threads", content=body, headers={"content-type": "text/plain"})
        refused(plain, 415, "UnsupportedMediaType")
        listed = (await client.get("/threads")).json()
    assert listed["threads"] == []


async def test_a_dns_rebinding_page_reads_no_thread(tmp_path: Path) -> None:
    """The page's own name resolves to 127.0.0.1: its requests carry that name as Host."""
    async with serving(app_on(tmp_path / "t.db"), lifespan="on") as client:
        thread_id = await new_thread(client)
        rebound = {"host": f"evil.example:{client.base_url.port}"}
        for path in ("/threads", f"/threads/{thread_id}", f"/threads/{thread_id}/events"):
            response = await client.get(path, headers=rebound)
            refused(response, 400, "HostNotAllowed")
            assert "Mine" not in response.text


async def test_every_malformed_body_on_every_route_is_answered_400_with_a_reason(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    async with serving(app_on(tmp_path / "t.db"), lifespan="on") as client:
        thread_id = await new_thread(client)
        routes = [
            "/threads",
            *(f"/threads/{thread_id}/{r}" for r in ("messages", "cancel", "respond")),
        ]
        answers = {
            (path, kind): await client.post(path, content=body, headers=JSON_HEADERS)
            for path in routes
            for kind, body in MALFORMED_BODIES.items()
        }
    for (path, kind), response in answers.items():
        assert response.status_code == 400, (path, kind, response.text)
        assert response.json()["error"] == "BadRequest", (path, kind)
        assert response.json()["message"], (path, kind)
    assert "Traceback" not in capfd.readouterr().err


async def test_every_malformed_field_is_answered_400_naming_it(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    spoiled: dict[str, tuple[str, dict[str, Any]]] = {}
    async with serving(app_on(tmp_path / "t.db"), lifespan="on") as client:
        thread_id = await new_thread(client)
        path = f"/threads/{thread_id}"
        key = {"request_key": "k"}
        cases: list[tuple[str, dict[str, Any], str]] = [
            *(
                ("/threads", b, "request_key")
                for b in malformed_fields(key, "request_key").values()
            ),
            ("/threads", {**key, "title": 7}, "title"),
            ("/threads", {**key, "title": "t" * 501}, "title"),
            ("/threads", {**key, "title": "x\udc80"}, "title"),
            *(
                (f"{path}/messages", b, field)
                for field in ("request_key", "text")
                for b in malformed_fields({**key, "text": "hi"}, field).values()
            ),
            (f"{path}/messages", {**key, "text": "   "}, "empty message"),
            *(
                (f"{path}/respond", b, field)
                for field in ("request_key", "interaction_id")
                for b in malformed_fields(
                    {**key, "interaction_id": "i", "answer": True}, field
                ).values()
            ),
            (f"{path}/respond", {**key, "interaction_id": "i", "answer": 1}, "answer"),
            (f"{path}/respond", {**key, "interaction_id": "i"}, "answer"),
            (
                f"{path}/respond",
                {**key, "interaction_id": "i", "answer": True, "reason": 1},
                "reason",
            ),
            *(
                (f"{path}/cancel", b, "request_key")
                for b in malformed_fields(key, "request_key").values()
            ),
        ]
        for route, body, named in cases:
            response = await client.post(route, content=encoded(body), headers=JSON_HEADERS)
            spoiled[f"{route} {body!r:.60}"] = (
                named,
                response.json() | {"status": response.status_code},
            )
        view = (await client.get(path)).json()
    for case, (named, answer) in spoiled.items():
        assert answer["status"] == 400, (case, answer)
        assert named in answer["message"], (case, answer)
    assert view["items"] == []
    assert "Traceback" not in capfd.readouterr().err


async def test_a_40_mb_message_is_refused_413_and_not_kept(tmp_path: Path) -> None:
    async with serving(app_on(tmp_path / "t.db"), lifespan="on") as client:
        thread_id = await new_thread(client)
        body = encoded({"request_key": "s1", "text": "x" * (40 << 20)})
        response = await client.post(
            f"/threads/{thread_id}/messages", content=body, headers=JSON_HEADERS
        )
        view = (await client.get(f"/threads/{thread_id}")).json()
    assert "1,048,576 bytes" in refused(response, 413, "BodyTooLarge")
    assert view["items"] == []
