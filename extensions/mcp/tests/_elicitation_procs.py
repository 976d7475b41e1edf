"""A thread host whose turn's MCP call waits on an elicitation, in its own process on a
SQLite file, for the crash test (extensions/mcp/tests/test_elicitation_crash.py).

    python _elicitation_procs.py start DB CALLS   # create, send, wait in the elicitation
    python _elicitation_procs.py resume DB CALLS  # recover, report, answer late, exit

The agent's model calls the asking server's `form` tool once, then answers "thanks";
the server appends each tool call's name to CALLS. `start` prints
`{"thread_id": ...}`, then `{"asked": <interaction id>}` once the thread's view shows
the call's question pending, and waits until it is killed. `resume` opens a host on
the same file with an agent of the same surface, waits for the thread to settle and
prints `{"status": ..., "items": [...], "question": [status, result]}`, then
answers the question and prints `{"after_answer": ..., "question": [...]}`. The
helpers are the threads crash tests' (`packages/threads/tests/_crash_points.py`).
"""

from __future__ import annotations

import asyncio
import sys
from contextlib import aclosing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "packages" / "threads" / "tests"))

from _crash_points import LEASE_TTL, report, say, settled  # type: ignore[import-not-found]

from automata.core import Agent
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.mcp import MCPServer, ask_elicitations
from automata.threads import CallQuestions, Host, SQLiteStore

ASKING = Path(__file__).resolve().parent / "servers" / "asking.py"


async def main(mode: str, db: Path, calls: Path) -> None:
    host = await Host.open(SQLiteStore(db), lease_ttl=LEASE_TTL, poll_interval=0.05)
    server = MCPServer.stdio(
        sys.executable,
        [str(ASKING)],
        env={"ASKING_CALLS": str(calls)},
        elicitation=ask_elicitations(CallQuestions(host)),
    )
    try:
        async with server:
            provider = ScriptedProvider([tool_calls(tool_call("c1", "form")), "thanks"])
            agent = Agent(provider, tools=await server.tools())
            service = host.thread_service(lambda request: agent)
            if mode == "start":
                thread = await service.create(request_key="create")
                say(thread_id=thread.thread_id)
                await service.send(thread.thread_id, "use form", request_key="send")
                async with aclosing(service.subscribe(thread.thread_id)) as views:
                    async for view in views:
                        asked = [i for i in view.items if i.kind == "interaction"]
                        if asked and asked[0].status == "pending":
                            say(asked=asked[0].interaction_id)
                            await asyncio.Event().wait()  # killed here
            thread_id = (await service.list()).threads[0].thread_id
            view = await settled(service, thread_id)
            (asked,) = [i for i in view.items if i.kind == "interaction"]
            say(status=view.status, items=report(view), question=[asked.status, asked.result])
            assert asked.interaction_id is not None
            late = await service.respond(thread_id, asked.interaction_id, "Oslo", request_key="r")
            (closed,) = [i for i in late.items if i.kind == "interaction"]
            say(after_answer=late.status, question=[closed.status, closed.result])
    finally:
        await host.shutdown()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])))
