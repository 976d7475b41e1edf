"""The SSE example over real HTTP: the app runs under uvicorn on a free loopback port
and httpx plays the browser, reading the event stream frame by frame."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

import httpx
from automata_wire_testing import serving
from sse_server import create_app, demo_agent

from automata.core import Agent, RunResult, StopReason, post_run, tool
from automata.core.testing import (
    BrokenStream,
    ScriptedProvider,
    tool_call,
    tool_calls,
    tool_results,
)

TASK = "Plan a spring weekend in Lisbon"


@dataclass(frozen=True)
class Frame:
    event: str
    data: dict[str, Any]


async def frames(response: httpx.Response) -> AsyncGenerator[Frame, None]:
    """Parse a `text/event-stream` body the way a browser's EventSource does."""
    event = "message"
    data: list[str] = []
    async for line in response.aiter_lines():
        if line == "":
            if data:
                yield Frame(event, json.loads("\n".join(data)))
            event, data = "message", []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)


async def run_over_http(client: httpx.AsyncClient, task: str = TASK) -> list[Frame]:
    async with client.stream("GET", "/runs", params={"task": task}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        return [frame async for frame in frames(response)]


def lanes(views: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    return [(v["agent"], v["invocation_id"], v["depth"]) for v in views]


# -- the page --------------------------------------------------------------------------------


async def test_the_page_is_served_and_listens_for_the_runs_events() -> None:
    async with serving(create_app()) as client:
        response = await client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    for needed in ("new EventSource", '"view"', '"done"', '"error"'):
        assert needed in response.text


async def test_a_request_without_a_task_is_refused() -> None:
    async with serving(create_app()) as client:
        response = await client.get("/runs", params={"task": "  "})
    assert response.status_code == 400
    assert response.json()["error"] == "BadRequest"
    assert "task" in response.json()["message"]


# -- a run -----------------------------------------------------------------------------------


async def test_a_run_streams_lane_views_and_ends_with_the_result() -> None:
    async with serving(create_app(demo_agent)) as client:
        received = await run_over_http(client)
    assert {f.event for f in received[:-1]} == {"view"}
    done = received[-1]
    assert done.event == "done"
    assert done.data["output"] == (
        "Go to Lisbon in May: it is warm and dry, and you can eat pastéis de nata in Belém "
        "and grilled sardines in Alfama."
    )
    assert done.data["stop_reason"] == "end_turn"
    top, *subs = done.data["views"]
    assert (top["agent"], top["depth"]) == ("planner", 0)
    assert sorted(lanes(subs)) == [
        ("researcher", "call_food", 1),
        ("researcher", "call_weather", 1),
    ]


async def test_the_sub_agents_research_arrives_in_their_own_lanes() -> None:
    async with serving(create_app(demo_agent)) as client:
        received = await run_over_http(client)
    views = {v["invocation_id"]: v for v in received[-1].data["views"]}
    weather = views["call_weather"]
    assert weather["text"] == (
        "Searching weather. On weather: Lisbon in May: 22°C by day, little rain, long evenings."
    )
    [search] = weather["tool_calls"]
    assert (search["name"], search["input"], search["done"]) == (
        "search",
        {"query": "weather"},
        True,
    )
    planner_calls = received[-1].data["views"][0]["tool_calls"]
    assert [(c["id"], c["done"], c["is_error"]) for c in planner_calls] == [
        ("call_weather", True, False),
        ("call_food", True, False),
    ]


async def test_usage_is_per_lane_and_the_totals_cover_every_lane() -> None:
    """M4 over the wire: the run's own usage excludes its sub-agents; totals do not."""
    async with serving(create_app(demo_agent)) as client:
        done = (await run_over_http(client))[-1].data
    per_lane = {v["invocation_id"]: v["usage"]["output_tokens"] for v in done["views"][1:]}
    assert per_lane == {"call_weather": 37, "call_food": 37}
    assert done["usage"]["output_tokens"] == done["views"][0]["usage"]["output_tokens"] == 58
    assert done["totals"]["output_tokens"] == 58 + 37 + 37


async def test_every_view_frame_is_the_whole_lane_so_far() -> None:
    """A client keeps only the latest view of each lane: each one extends the last,
    and the final ones are the views the run ends with."""
    async with serving(create_app(demo_agent)) as client:
        received = await run_over_http(client)
    latest: dict[str, dict[str, Any]] = {}
    for frame in received[:-1]:
        lane = frame.data["lane"]
        if lane in latest:
            assert frame.data["text"].startswith(latest[lane]["text"])
            assert len(frame.data["tool_calls"]) >= len(latest[lane]["tool_calls"])
        latest[lane] = frame.data
    assert sorted(latest.values(), key=lambda v: v["lane"]) == sorted(
        received[-1].data["views"], key=lambda v: v["lane"]
    )


async def test_two_browsers_get_two_independent_runs() -> None:
    async with serving(create_app(demo_agent)) as client:
        first, second = await asyncio.gather(run_over_http(client), run_over_http(client))
    assert first[-1].data["output"] == second[-1].data["output"]
    assert (
        first[-1].data["views"][0]["invocation_id"] != second[-1].data["views"][0]["invocation_id"]
    )


async def test_a_failed_run_ends_with_an_error_frame_carrying_the_partial_output() -> None:
    """B1 and R2 over the wire: the partial text streams, then the error frame."""

    def broken() -> Agent:
        return Agent(ScriptedProvider([BrokenStream("Lisbon is", ConnectionError("reset"))]))

    async with serving(create_app(broken)) as client:
        received = await run_over_http(client)
    assert [f.event for f in received] == ["view", "error"]
    assert received[0].data["text"] == "Lisbon is"
    error = received[1].data
    assert (error["type"], error["output"], error["stop_reason"]) == (
        "IncompleteResponseError",
        "Lisbon is",
        "incomplete",
    )
    assert "reset" in error["message"]


# -- a browser that goes away ----------------------------------------------------------------


@dataclass
class Watched:
    """An agent whose only tool runs until cancelled, and what became of its run."""

    started: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    result: RunResult[Any] | None = None

    def agent(self) -> Agent:
        @tool
        async def book_hotel() -> str:
            """Book a room (takes forever)."""
            self.started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
            return "booked"

        async def record(result: RunResult[Any], error: BaseException | None) -> None:
            self.result = result
            self.ended.set()

        return Agent(
            ScriptedProvider([tool_calls(tool_call("call_1", "book_hotel"), text="Booking. ")]),
            tools=[book_hotel],
            hooks=[post_run(record)],
        )


async def test_a_browser_that_goes_away_cancels_the_run_and_its_tools() -> None:
    """C5 over the wire: closing the connection cancels the run; its transcript is
    left valid."""
    watched = Watched()
    async with serving(create_app(watched.agent)) as client:
        async with client.stream("GET", "/runs", params={"task": TASK}) as response:
            async for frame in frames(response):
                if frame.event == "view" and frame.data["tool_calls"]:
                    await asyncio.wait_for(watched.started.wait(), 5)
                    break  # leaving the block closes the connection mid-run
        await asyncio.wait_for(watched.ended.wait(), 5)
    assert watched.cancelled.is_set()
    assert watched.result is not None
    assert watched.result.stop_reason is StopReason.CANCELLED
    assert tool_results(watched.result.messages) == [
        ("call_1", "canceled: tool batch aborted: run cancelled", True)
    ]


# -- bounds: who may start a run, and how many run at once -----------------------------------


class Counted:
    """A factory of demo agents that counts the runs it was asked for."""

    def __init__(self) -> None:
        self.made = 0

    def __call__(self) -> Agent:
        self.made += 1
        return demo_agent()


async def test_a_page_of_another_origin_starts_no_run() -> None:
    """An `EventSource` on another site sends its `Origin` (and `Sec-Fetch-Site`)."""
    counted = Counted()
    async with serving(create_app(counted)) as client:
        for headers in (
            {"origin": "http://evil.example", "sec-fetch-site": "cross-site"},
            {"sec-fetch-site": "cross-site"},
            {"origin": "http://localhost:1"},
        ):
            response = await client.get("/runs", params={"task": TASK}, headers=headers)
            assert response.status_code == 403
            assert response.json()["error"] == "CrossOriginRefused"
        own = {"origin": str(client.base_url).rstrip("/"), "sec-fetch-site": "same-origin"}
        async with client.stream("GET", "/runs", params={"task": TASK}, headers=own) as ok:
            assert ok.status_code == 200
            assert [f async for f in frames(ok)][-1].event == "done"
    assert counted.made == 1


async def test_a_host_that_is_not_the_servers_is_refused() -> None:
    counted = Counted()
    async with serving(create_app(counted)) as client:
        for path in ("/", "/runs"):
            response = await client.get(
                path, params={"task": TASK}, headers={"host": "evil.example"}
            )
            assert (response.status_code, response.json()["error"]) == (400, "HostNotAllowed")
    assert counted.made == 0


async def test_a_task_longer_than_the_bound_is_refused() -> None:
    counted = Counted()
    async with serving(create_app(counted, max_task_chars=100)) as client:
        response = await client.get("/runs", params={"task": "x" * 101})
    assert (response.status_code, response.json()["error"]) == (400, "BadRequest")
    assert "100 characters" in response.json()["message"]
    assert counted.made == 0


async def test_runs_beyond_the_bound_are_refused_503_until_one_ends() -> None:
    held = [Watched(), Watched()]
    agents = iter([held[0].agent, held[1].agent, demo_agent])
    async with serving(create_app(lambda: next(agents)(), max_runs=2)) as client:
        async with contextlib.AsyncExitStack() as streams:
            for watched in held:
                response = await streams.enter_async_context(
                    client.stream("GET", "/runs", params={"task": TASK})
                )
                assert response.status_code == 200
                reading = frames(response)  # kept open: a reader dropped closes the stream
                streams.push_async_callback(reading.aclose)
                async for frame in reading:
                    if frame.data["tool_calls"]:
                        break
                await asyncio.wait_for(watched.started.wait(), 5)
            busy = await client.get("/runs", params={"task": TASK})
            assert (busy.status_code, busy.json()["error"]) == (503, "ServerBusy")
            assert busy.headers["retry-after"] == "1"
        # both browsers went away: their runs are cancelled and their slots freed
        for watched in held:
            await asyncio.wait_for(watched.ended.wait(), 5)
        received = await run_over_http(client)
    assert received[-1].event == "done"
