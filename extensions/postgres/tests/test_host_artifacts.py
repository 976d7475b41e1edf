"""Artifacts on PostgreSQL, through the thread service (docs/threads.md, AR rules): a
large artifact a tool returned on host A is listed and served in pages by host B on
the same schema, a fork copies it, and a purge of the source leaves the fork's copy."""

from __future__ import annotations

import asyncio
from contextlib import aclosing

from automata.core import (
    Agent,
    Artifact,
    ModelRequest,
    ToolResult,
    ToolResultBlock,
    as_tool,
    tool,
)
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.postgres import PostgresStore
from automata.threads import AgentRequest, Host, ThreadService, ThreadView

PAGE = "".join(f"ligne {n:06d} « é » 🙂\n" for n in range(20_000))  # 420,000 characters


@tool
def fetch() -> ToolResult:
    """Fetch the page."""
    return ToolResult.of_artifact(Artifact(PAGE, "text/plain", name="page.txt"))


def answered(request: ModelRequest) -> bool:
    return any(isinstance(block, ToolResultBlock) for m in request.messages for block in m.content)


def factory(request: AgentRequest) -> Agent[None]:
    """The thread's agent asks its researcher, which fetches the page."""
    researcher = Agent(
        FunctionProvider(
            lambda r: "found it" if answered(r) else tool_calls(tool_call("s1", "fetch"))
        ),
        tools=[fetch],
    )

    def model(r: ModelRequest) -> Reply:
        return "done" if answered(r) else tool_calls(tool_call("c1", "researcher", task="go"))

    return Agent(
        FunctionProvider(model), tools=[as_tool(researcher, "researcher", "Fetch the page.")]
    )


async def settled(service: ThreadService, thread_id: str) -> ThreadView:
    async with asyncio.timeout(20), aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if view.status not in ("running", "waiting"):
                return view
    raise AssertionError("the subscription ended before the thread settled")


async def whole(service: ThreadService, thread_id: str, artifact_id: str) -> str:
    pieces: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = await service.artifact(thread_id, artifact_id, offset=offset)
        assert isinstance(page.content, str)
        pieces.append(page.content)
        offset = page.next_offset
    return "".join(pieces)


async def test_a_large_artifact_is_served_by_another_host_copied_by_a_fork_and_kept_by_it(
    pg_server: str, schema: str
) -> None:
    a = await Host.open(PostgresStore(pg_server, schema=schema), poll_interval=0.05)
    b = await Host.open(PostgresStore(pg_server, schema=schema), poll_interval=0.05)
    try:
        on_a, on_b = a.thread_service(factory), b.thread_service(factory)
        thread = (await on_a.create(request_key="create")).thread_id
        await on_a.send(thread, "fetch", request_key="send")
        view = await settled(on_a, thread)
        assert view.status == "done", view.error
        (info,) = view.artifacts
        assert (info.id, info.agent, info.length) == (
            Artifact(PAGE, "text/plain").id,
            "researcher",
            len(PAGE),
        )
        assert (await on_b.view(thread)).artifacts == view.artifacts
        assert await whole(on_b, thread, info.id) == PAGE  # five pages of 100,000
        fork = await on_b.fork(thread, view.items[-1].id, request_key="fork")
        assert [a.id for a in fork.artifacts] == [info.id]
        report = await on_b.purge(keep_last=1)
        assert report.thread_ids == (thread,)
        assert await whole(on_a, fork.thread_id, info.id) == PAGE
    finally:
        await a.shutdown()
        await b.shutdown()
