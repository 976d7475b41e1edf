"""The guard over real HTTP: a small app behind `WebGuard` runs under uvicorn on a
loopback port, and httpx sends what a browser, another site's page, a DNS-rebinding
page and a careless client would."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from automata_wire_testing import serving
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Message

from automata.web import (
    MAX_BODY_BYTES,
    GuardPolicy,
    RequestRefused,
    WebGuard,
    read_json_object,
    refusal,
    required_string,
)
from automata.web.testing import JSON_HEADERS, MALFORMED_BODIES, encoded, malformed_fields


class Recorder:
    """An app behind the guard whose `POST /notes` keeps a note and `GET /notes` lists
    them; `GET /start` stands for a GET that starts work (a guarded path)."""

    def __init__(self, policy: GuardPolicy | None = None) -> None:
        self.notes: list[str] = []
        self.started = 0
        self.app = Starlette(
            routes=[
                Route("/notes", self.add, methods=["POST"]),
                Route("/notes", self.list, methods=["GET"]),
                Route("/start", self.start, methods=["GET"]),
            ],
            middleware=[Middleware(WebGuard, policy=policy or GuardPolicy())],
        )

    async def add(self, request: Request) -> Response:
        try:
            body = await read_json_object(request)
            self.notes.append(required_string(body, "request_key"))
        except RequestRefused as refused:
            return refusal(refused)
        return JSONResponse({"notes": self.notes}, 201)

    async def list(self, request: Request) -> Response:
        return JSONResponse({"notes": self.notes})

    async def start(self, request: Request) -> Response:
        self.started += 1
        return JSONResponse({"started": self.started})


def refused(response: httpx.Response, status: int, error: str) -> str:
    """The refusal's message, once its status and type are the ones expected."""
    assert (response.status_code, response.json()["error"]) == (status, error), response.text
    message: str = response.json()["message"]
    assert message
    return message


async def chunks(data: bytes, size: int = 1 << 16) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


# -- the Host header -------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.2", "[::2]"])
async def test_a_host_that_is_not_the_servers_is_refused_before_the_app_reads(host: str) -> None:
    recorder = Recorder()
    async with serving(recorder.app) as client:
        await client.post("/notes", json={"request_key": "kept"})
        response = await client.get("/notes", headers={"host": host})
    assert "kept" not in response.text
    assert host in refused(response, 400, "HostNotAllowed")


@pytest.mark.parametrize("host", ["localhost:8000", "LOCALHOST", "127.0.0.1", "[::1]:9"])
async def test_the_loopback_names_are_the_default_hosts(host: str) -> None:
    async with serving(Recorder().app) as client:
        response = await client.get("/notes", headers={"host": host})
    assert response.status_code == 200


@pytest.mark.parametrize("hosts", [["127.0.0.1", "evil.example"], ["evil.example", "127.0.0.1"]])
async def test_a_request_with_two_host_headers_is_refused(hosts: list[str]) -> None:
    """No check reads the loopback copy while the app reads another site's. uvicorn's
    h11 parser refuses a repeated Host itself (and httpx will not send one), but other
    servers pass it on, so the guard is called as those servers call it."""
    recorder = Recorder()
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    headers = [(b"host", host.encode()) for host in hosts]
    scope = {"type": "http", "method": "GET", "path": "/notes", "headers": headers}
    await recorder.app({**scope, "query_string": b"", "app": recorder.app}, receive, send)
    start, body = sent[0], json.loads(sent[-1]["body"])
    assert (start["status"], body["error"]) == (400, "HostNotAllowed")
    assert "host" in body["message"]


def test_a_policy_for_a_bound_address_adds_it_and_the_allowed_names_but_no_wildcard() -> None:
    assert GuardPolicy.for_bind("0.0.0.0").hosts == {"127.0.0.1", "localhost", "::1"}
    lan = GuardPolicy.for_bind("192.168.1.5", allow_hosts=["Box.LAN"])
    assert lan.hosts == {"127.0.0.1", "localhost", "::1", "192.168.1.5", "box.lan"}
    assert lan.allows_host("box.lan:8000")
    assert not lan.allows_host("box.lan.evil.example")


# -- the origin of state-changing requests ---------------------------------------------------


async def test_a_post_from_another_origin_is_refused_and_changes_nothing() -> None:
    recorder = Recorder()
    async with serving(recorder.app) as client:
        for origin in ("http://evil.example", "null", "http://127.0.0.1:1"):
            response = await client.post(
                "/notes", json={"request_key": "k"}, headers={"origin": origin}
            )
            assert origin in refused(response, 403, "CrossOriginRefused")
    assert recorder.notes == []


async def test_a_request_repeating_a_header_the_guard_checks_is_refused() -> None:
    """No check reads one copy of Origin, Sec-Fetch-Site or Content-Type while the
    app reads another: own origin first and another site's second is refused."""
    recorder = Recorder()
    async with serving(recorder.app) as client:
        own = str(client.base_url).rstrip("/")
        body = b'{"request_key": "k"}'
        repeated = {
            "origin": [("origin", own), ("origin", "http://evil.example")],
            "sec-fetch-site": [("sec-fetch-site", "same-origin"), ("sec-fetch-site", "cross-site")],
        }
        for name, pairs in repeated.items():
            headers = [("content-type", "application/json"), *pairs]
            response = await client.post("/notes", content=body, headers=headers)
            assert name in refused(response, 403, "CrossOriginRefused")
        headers = [("content-type", "application/json"), ("content-type", "text/plain")]
        response = await client.post("/notes", content=body, headers=headers)
        assert "content-type" in refused(response, 415, "UnsupportedMediaType")
    assert recorder.notes == []


async def test_a_post_from_the_servers_own_origin_or_an_allowed_one_is_taken() -> None:
    recorder = Recorder(GuardPolicy(origins=frozenset({"https://app.example"})))
    async with serving(recorder.app) as client:
        own = str(client.base_url).rstrip("/")
        for key, origin in (("own", own), ("allowed", "https://app.example")):
            response = await client.post(
                "/notes", json={"request_key": key}, headers={"origin": origin}
            )
            assert response.status_code == 201
    assert recorder.notes == ["own", "allowed"]


@pytest.mark.parametrize(("site", "status"), [("cross-site", 403), ("same-site", 403)])
async def test_without_an_origin_a_cross_site_fetch_is_refused(site: str, status: int) -> None:
    recorder = Recorder()
    async with serving(recorder.app) as client:
        response = await client.post(
            "/notes", json={"request_key": "k"}, headers={"sec-fetch-site": site}
        )
    refused(response, status, "CrossOriginRefused")
    assert recorder.notes == []


async def test_a_same_origin_fetch_and_a_client_that_is_no_browser_pass() -> None:
    recorder = Recorder()
    async with serving(recorder.app) as client:
        for key, headers in (("fetch", {"sec-fetch-site": "same-origin"}), ("curl", {})):
            response = await client.post("/notes", json={"request_key": key}, headers=headers)
            assert response.status_code == 201
    assert recorder.notes == ["fetch", "curl"]


async def test_a_guarded_get_is_checked_for_its_origin_and_others_are_not() -> None:
    recorder = Recorder(GuardPolicy(guarded_paths=frozenset({"/start"})))
    async with serving(recorder.app) as client:
        cross = {"origin": "http://evil.example", "sec-fetch-site": "cross-site"}
        refused(await client.get("/start", headers=cross), 403, "CrossOriginRefused")
        assert (await client.get("/notes", headers=cross)).status_code == 200
    assert recorder.started == 0


# -- JSON only -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset=latin-1",
        None,
    ],
)
async def test_a_body_that_is_not_json_is_refused_by_its_type(content_type: str | None) -> None:
    recorder = Recorder()
    headers = {"content-type": content_type} if content_type else {}
    async with serving(recorder.app) as client:
        response = await client.post("/notes", content=b'{"request_key": "k"}', headers=headers)
    refused(response, 415, "UnsupportedMediaType")
    assert recorder.notes == []


@pytest.mark.parametrize("kind", MALFORMED_BODIES)
async def test_a_malformed_body_is_answered_400_with_the_reason(
    kind: str, capfd: pytest.CaptureFixture[str]
) -> None:
    recorder = Recorder()
    async with serving(recorder.app) as client:
        response = await client.post("/notes", content=MALFORMED_BODIES[kind], headers=JSON_HEADERS)
    refused(response, 400, "BadRequest")
    assert "Traceback" not in capfd.readouterr().err
    assert recorder.notes == []


@pytest.mark.parametrize(
    ("spoiled", "reason"),
    [
        (b'{"request_key": "k", "deep": ' + b"[" * 40 + b"]" * 40 + b"}", "nested deeper than 32"),
        (b'{"request_key": "k\\ud800"}', "lone surrogate"),
        (b"[1]", "JSON object, not array"),
        (b'{"request_key": "k", "n": NaN}', "NaN is not a JSON value"),
        (b'{"request_key": "\xff"}', "not UTF-8"),
    ],
)
async def test_the_reason_names_what_is_wrong(spoiled: bytes, reason: str) -> None:
    async with serving(Recorder().app) as client:
        response = await client.post("/notes", content=spoiled, headers=JSON_HEADERS)
    assert reason in refused(response, 400, "BadRequest")


SPOILED_KEYS = malformed_fields({"request_key": "k"}, "request_key")


@pytest.mark.parametrize("body", SPOILED_KEYS.values(), ids=SPOILED_KEYS.keys())
async def test_a_field_of_the_wrong_type_is_answered_400_naming_it(body: dict[str, Any]) -> None:
    async with serving(Recorder().app) as client:
        response = await client.post("/notes", content=encoded(body), headers=JSON_HEADERS)
    assert "request_key" in refused(response, 400, "BadRequest")


async def test_read_json_object_refuses_to_read_a_body_no_guard_bounds() -> None:
    async def unguarded(request: Request) -> Response:
        with pytest.raises(RuntimeError, match="WebGuard"):
            await read_json_object(request)
        return JSONResponse({})

    app = Starlette(routes=[Route("/", unguarded, methods=["POST"])])
    async with serving(app) as client:
        assert (await client.post("/", json={})).status_code == 200


# -- the body's size -------------------------------------------------------------------------


async def test_a_body_at_the_limit_is_read() -> None:
    recorder = Recorder()
    body = encoded({"request_key": "k", "pad": ""})
    exact = body[:-2] + b" " * (MAX_BODY_BYTES - len(body)) + body[-2:]
    assert len(exact) == MAX_BODY_BYTES
    async with serving(recorder.app) as client:
        response = await client.post("/notes", content=exact, headers=JSON_HEADERS)
    assert response.status_code == 201


async def test_a_body_over_the_limit_is_refused_413_by_its_length() -> None:
    recorder = Recorder()
    body = encoded({"request_key": "k" * MAX_BODY_BYTES})
    async with serving(recorder.app) as client:
        response = await client.post("/notes", content=body, headers=JSON_HEADERS)
        listed = await client.get("/notes")
    assert "1,048,576 bytes" in refused(response, 413, "BodyTooLarge")
    assert listed.json() == {"notes": []}


async def test_a_chunked_body_is_refused_413_once_it_passes_the_limit() -> None:
    """No `Content-Length`: the guard counts the bytes as they are read."""
    recorder = Recorder(GuardPolicy(max_body_bytes=1000))
    body = encoded({"request_key": "k" * 5000})
    async with serving(recorder.app) as client:
        response = await client.post("/notes", content=chunks(body, 300), headers=JSON_HEADERS)
    refused(response, 413, "BodyTooLarge")
    assert recorder.notes == []


async def test_every_answer_forbids_sniffing_and_framing() -> None:
    async with serving(Recorder().app) as client:
        for response in (
            await client.get("/notes"),
            await client.get("/notes", headers={"host": "evil.example"}),
        ):
            assert response.headers["x-content-type-options"] == "nosniff"
            assert response.headers["content-security-policy"] == "frame-ancestors 'none'"
