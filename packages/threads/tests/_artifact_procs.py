"""A host in its own process, on a SQLite file, for the artifact crash test.

    python _artifact_procs.py start  DB   # create, send, fetch; hang in the next model call
    python _artifact_procs.py resume DB   # recover, let the model read on, report, exit

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


def agent(service: ThreadService, *, hang_after_fetch: bool) -> Agent[None]:
    async def model(request: ModelRequest) -> Reply:
        seen = results(request)
        if not seen:
            return tool_calls(tool_call("c1", "fetch_page"))
        if len(seen) == 1:
            artifact_id = artifact_of(seen[0].content[0])
            if hang_after_fetch:
                view = (await service.list()).threads[0]
                shown = await service.view(view.thread_id)
                say(artifacts=[asdict(a) for a in shown.artifacts], seen=artifact_id)
                await hang()
            return tool_calls(tool_call("c2", "read_artifact", id=artifact_id, offset=2000))
        return seen[-1].text.split("\n")[0]

    return Agent(FunctionProvider(model), tools=[fetch_page, read_artifact_tool(service)])


async def start(db: Path) -> None:
    host = await Host.open(SQLiteStore(db), lease_ttl=LEASE_TTL)
    service = host.thread_service(lambda request: agent(service, hang_after_fetch=True))
    thread = await service.create(request_key="create")
    say(thread_id=thread.thread_id)
    await service.send(thread.thread_id, "read the page", request_key="send")
    await hang()


async def resume(db: Path) -> None:
    host = await Host.open(SQLiteStore(db), lease_ttl=LEASE_TTL, poll_interval=0.05)
    try:
        service = host.thread_service(lambda request: agent(service, hang_after_fetch=False))
        thread_id = (await service.list()).threads[0].thread_id
        async with asyncio.timeout(20), aclosing(service.subscribe(thread_id)) as views:
            async for view in views:
                if view.status not in ("running", "waiting"):
                    break
        (info,) = view.artifacts
        pieces: list[str] = []
        offset: int | None = 0
        while offset is not None:
            page = await service.artifact(thread_id, info.id, offset=offset, limit=5000)
            assert isinstance(page.content, str)
            pieces.append(page.content)
            offset = page.next_offset
        say(
            status=view.status,
            artifacts=[asdict(a) for a in view.artifacts],
            answer=view.items[-1].text,
            content="".join(pieces),
        )
    finally:
        await host.shutdown()


def main() -> None:
    mode, db = sys.argv[1], Path(sys.argv[2])
    asyncio.run(resume(db) if mode == "resume" else start(db))


if __name__ == "__main__":
    main()
