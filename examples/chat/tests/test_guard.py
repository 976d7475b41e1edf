"""What another site, a DNS-rebinding page and a careless client send to the chat
server in its own process (`python -m chat`, demo model, a SQLite file): a page on
another site in a real headless Chromium creates no chat, and every refusal is a typed
answer with its reason, with no traceback in the server's log."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
from automata_browser_testing import serve_directory
from chat.process import ChatProcess
from playwright.sync_api import BrowserContext

from automata.web.testing import JSON_HEADERS, MALFORMED_BODIES, encoded, malformed_fields

ATTACK_PAGE = """<!doctype html>
<title>another site</title>
<form id="form" method="POST" enctype="text/plain" action="{chat}/threads">
  <input name='{{"request_key": "form", "title": "Made by a form", "pad": "' value='"}}'>
</form>
<script>
  fetch("{chat}/threads", {{
    method: "POST",
    mode: "no-cors",
    headers: {{"Content-Type": "text/plain"}},
    body: JSON.stringify({{request_key: "fetch", title: "Made by a fetch"}}),
  }}).then(() => {{ document.title = "sent"; }}, () => {{ document.title = "sent"; }});
</script>
"""


def titles(server: ChatProcess) -> list[str]:
    with httpx.Client(base_url=server.url, trust_env=False) as client:
        return [t["title"] for t in client.get("/threads").json()["threads"]]


def peak_rss_mib(pid: int) -> float:
    """A process's peak resident set size (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc/PID/status")


def test_a_page_on_another_site_creates_no_chat(
    browser: BrowserContext, server: ChatProcess, tmp_path: Path
) -> None:
    """A `no-cors` fetch and a `text/plain` form, the two POSTs a page on another site
    can send without asking the server first."""
    (tmp_path / "attack.html").write_text(ATTACK_PAGE.format(chat=server.url))
    page = browser.new_page()
    try:
        with serve_directory(tmp_path) as elsewhere:
            other_site = elsewhere.replace("127.0.0.1", "localhost")
            page.goto(f"{other_site}/attack.html")
            page.wait_for_function("document.title === 'sent'", timeout=10_000)
            with page.expect_navigation():
                page.evaluate("document.getElementById('form').submit()")
            refusal = page.inner_text("body")
    finally:
        page.close()
    assert "CrossOriginRefused" in refusal
    assert not {"Made by a fetch", "Made by a form"} & set(titles(server))


def test_a_dns_rebinding_page_reads_no_chat(server: ChatProcess) -> None:
    with httpx.Client(base_url=server.url, trust_env=False) as client:
        client.post("/threads", json={"request_key": "mine", "title": "Private"})
        rebound = {"host": f"evil.example:{server.port}"}
        for path in ("/", "/threads", "/events/threads", "/static/app.js"):
            response = client.get(path, headers=rebound)
            assert (response.status_code, response.json()["error"]) == (400, "HostNotAllowed")
            assert "Private" not in response.text


def test_every_malformed_body_on_every_route_is_answered_400_with_a_reason(
    server: ChatProcess,
) -> None:
    with httpx.Client(base_url=server.url, trust_env=False) as client:
        thread_id = client.post("/threads", json={"request_key": "m1"}).json()["thread_id"]
        path = f"/threads/{thread_id}"
        routes: dict[str, dict[str, object]] = {
            "/threads": {},
            f"{path}/messages": {"text": "hi"},
            f"{path}/title": {"title": "t"},
            f"{path}/fork": {"item_id": "it"},
            f"{path}/delete": {},
            f"{path}/retry": {},
            f"{path}/queue/cancel": {"turn_id": "tu"},
            f"{path}/cancel": {},
            f"{path}/respond": {"interaction_id": "i", "answer": True},
        }
        bodies: list[tuple[str, bytes, str]] = [
            (route, body, kind) for route in routes for kind, body in MALFORMED_BODIES.items()
        ]
        for route, valid in routes.items():
            strings = [n for n, v in valid.items() if isinstance(v, str) and n != "title"]
            for kind, spoiled in malformed_fields(
                {"request_key": "k", **valid}, "request_key", *strings
            ).items():
                bodies.append((route, encoded(spoiled), kind))
        for kind, title in (("not a string", 7), ("501 characters", "t" * 501)):
            body = encoded({"request_key": "k", "title": title})
            bodies.append((f"{path}/title", body, f"title {kind}"))
        answers: list[tuple[str, str, Any]] = []
        for route, body, kind in bodies:
            response = client.post(route, content=body, headers=JSON_HEADERS)
            answers.append((route, kind, (response.status_code, response.json())))
        view = client.get(path).json()
    for route, kind, (status, answer) in answers:
        assert status == 400, (route, kind, answer)
        assert answer["error"] in ("BadRequest", "InvalidArgumentError"), (route, kind)
        assert answer["message"], (route, kind)
    assert view["items"] == []
    assert view["title"] == ""
    assert "Traceback" not in server.tail(10_000)


def test_a_40_mb_message_is_refused_413_without_the_server_holding_it(
    server: ChatProcess,
) -> None:
    with httpx.Client(base_url=server.url, timeout=60, trust_env=False) as client:
        thread_id = client.post("/threads", json={"request_key": "b1"}).json()["thread_id"]
        messages = f"/threads/{thread_id}/messages"
        client.post(messages, json={"request_key": "b2", "text": "warm up"})
        time.sleep(0.5)
        before = peak_rss_mib(server.pid)
        body = encoded({"request_key": "b3", "text": "x" * (40 << 20)})
        response = client.post(messages, content=body, headers=JSON_HEADERS)
        after = peak_rss_mib(server.pid)
        view = client.get(f"/threads/{thread_id}").json()
    assert (response.status_code, response.json()["error"]) == (413, "BodyTooLarge")
    assert after - before < 16, f"the server's peak grew from {before:.0f} to {after:.0f} MiB"
    assert [i["text"] for i in view["items"] if i["kind"] == "user"] == ["warm up"]
