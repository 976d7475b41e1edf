"""A host in its own process, on a SQLite file, for the artifact crash test.

    python _artifact_procs.py start  DB   # create, send, fetch; hang in the next model call
    python _artifact_procs.py resume DB   # recover, let the model read on, report, exit

With a third argument `sub`, the page is fetched by a sub-agent (`as_tool`) the
thread's model calls, the model reads on from the id the sub-agent names, and
`resume` also forks the thread at its end and reports the fork's artifacts
(`forked`) and the artifact read back whole from the fork (`forked_content`).

The model asks for one `fetch_page` call (a 23,000-character artifact), then, once
it sees the preview, for `read_artifact` from the preview's offset, then answers
with the first line it read. `start` prints `{"thread_id": ...}`, then, in the model
call after the fetch, `{"artifacts": [...], "seen": <id in the preview>}` and hangs
until it is killed. `resume` prints `{"status", "artifacts", "answer", "content"}`
(`content`: the artifact read back whole through `ThreadService.artifact`).
"""

from __future__ import annotations

import asyncio
import sys
from contextlib import aclosing
from dataclasses import asdict
from pathlib import Path

from _host_procs import LEASE_TTL, hang, say  # type: ignore[import-not-found]

from automata.core import (
    Agent,
    Artifact,
    ModelRequest,
    ToolResult,
    ToolResultBlock,
    artifact_of,
    as_tool,
    tool,
)
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import Host, SQLiteStore, ThreadService, read_artifact_tool

PAGE = "".join(f"line {n:05d} of the page\n" for n in range(1000))


@tool
def fetch_page() -> ToolResult:
    """Fetch the page."""
    return ToolResult.of_artifact(Artifact(PAGE, "text/markdown", name="page.md"))


def results(request: ModelRequest) -> list[ToolResultBlock]:
    return [
        b
        for m in request.messages
        if m.role == "tool"
        for b in m.content
        if isinstance(b, ToolResultBlock)
    ]


def researcher() -> Agent[None]:
    """A sub-agent that fetches the page and names the artifact it got."""

    def model(request: ModelRequest) -> Reply:
        seen = results(request)
        if not seen:
            return tool_calls(tool_call("sub-c1", "fetch_page"))
        return f"found {artifact_of(seen[0].content[0])}"

    return Agent(FunctionProvider(model), tools=[fetch_page])


def agent(service: ThreadService, *, hang_after_fetch: bool, sub: bool = False) -> Agent[None]:
    async def model(request: ModelRequest) -> Reply:
        seen = results(request)
        if not seen:
            first = (
                tool_call("c1", "researcher", task="x") if sub else tool_call("c1", "fetch_page")
            )
            return tool_calls(first)
        if len(seen) == 1:
            artifact_id = (
                seen[0].text.removeprefix("found ") if sub else artifact_of(seen[0].content[0])
            )
            if hang_after_fetch:
                view = (await service.list()).threads[0]
                shown = await service.view(view.thread_id)
                say(artifacts=[asdict(a) for a in shown.artifacts], seen=artifact_id)
                await hang()
            return tool_calls(tool_call("c2", "read_artifact", id=artifact_id, offset=2000))
        return seen[-1].text.split("\n")[0]

    fetching = as_tool(researcher(), "researcher", "Fetch the page.") if sub else fetch_page
    return Agent(FunctionProvider(model), tools=[fetching, read_artifact_tool(service)])


async def start(db: Path, sub: bool) -> None:
    host = await Host.open(SQLiteStore(db), lease_ttl=LEASE_TTL)
    service = host.thread_service(lambda request: agent(service, hang_after_fetch=True, sub=sub))
    thread = await service.create(request_key="create")
    say(thread_id=thread.thread_id)
    await service.send(thread.thread_id, "read the page", request_key="send")
    await hang()


async def whole(service: ThreadService, thread_id: str, artifact_id: str) -> str:
    pieces: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = await service.artifact(thread_id, artifact_id, offset=offset, limit=5000)
        assert isinstance(page.content, str)
        pieces.append(page.content)
        offset = page.next_offset
    return "".join(pieces)


async def resume(db: Path, sub: bool) -> None:
    host = await Host.open(SQLiteStore(db), lease_ttl=LEASE_TTL, poll_interval=0.05)
    try:
        service = host.thread_service(
            lambda request: agent(service, hang_after_fetch=False, sub=sub)
        )
        thread_id = (await service.list()).threads[0].thread_id
        async with asyncio.timeout(20), aclosing(service.subscribe(thread_id)) as views:
            async for view in views:
                if view.status not in ("running", "waiting"):
                    break
        (info,) = view.artifacts
        content = await whole(service, thread_id, info.id)
        if not sub:
            say(
                status=view.status,
                artifacts=[asdict(a) for a in view.artifacts],
                answer=view.items[-1].text,
                content=content,
            )
            return
        fork = await service.fork(thread_id, view.items[-1].id, request_key="fork")
        say(
            status=view.status,
            artifacts=[asdict(a) for a in view.artifacts],
            answer=view.items[-1].text,
            content=content,
            forked=[asdict(a) for a in fork.artifacts],
            forked_content=await whole(service, fork.thread_id, info.id),
        )
    finally:
        await host.shutdown()


def main() -> None:
    mode, db = sys.argv[1], Path(sys.argv[2])
    sub = sys.argv[3:] == ["sub"]
    asyncio.run(resume(db, sub) if mode == "resume" else start(db, sub))


if __name__ == "__main__":
    main()
