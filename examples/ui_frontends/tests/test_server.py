"""The example's server: both protocol endpoints answer on the demo agent behind the
web guard, and a front end that was not built says how to build it."""

from __future__ import annotations

from pathlib import Path

from automata_wire_testing import serving
from ui_frontends import APPROVAL_REQUIRED, create_app, demo_agent

CHAT = {
    "id": "c1",
    "messages": [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "email"}]}],
    "trigger": "submit-message",
}


async def test_a_front_end_not_built_yet_is_answered_503_with_the_build_command(
    tmp_path: Path,
) -> None:
    app = create_app(demo_agent(pace=0), example=tmp_path)
    async with serving(app) as client:
        page = await client.get("/ag-ui/")
    assert page.status_code == 503
    assert "python -m ui_frontends.build" in page.text


async def test_a_request_for_another_host_name_or_from_another_origin_is_refused() -> None:
    app = create_app(demo_agent(pace=0), approval_required=APPROVAL_REQUIRED)
    async with serving(app) as client:
        rebound = await client.post("/api/chat", json=CHAT, headers={"Host": "evil.example"})
        foreign = await client.post(
            "/api/agent", json={}, headers={"Origin": "https://evil.example"}
        )
    assert rebound.status_code == 400
    assert rebound.json()["error"] == "HostNotAllowed"
    assert foreign.status_code == 403


async def test_the_chat_endpoint_asks_before_sending_an_email() -> None:
    app = create_app(demo_agent(pace=0), approval_required=APPROVAL_REQUIRED)
    async with serving(app) as client:
        answer = await client.post("/api/chat", json=CHAT)
    assert answer.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert '"type":"tool-approval-request"' in answer.text.replace(" ", "")
    assert "sent to" not in answer.text


async def test_the_pages_are_served_with_the_page_policy() -> None:
    app = create_app(demo_agent(pace=0))
    async with serving(app) as client:
        index = await client.get("/")
    assert index.status_code == 200
    assert "script-src 'self'" in index.headers["content-security-policy"]
