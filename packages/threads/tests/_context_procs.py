"""A host killed around a compaction, and the processes that come back
(packages/threads/tests/test_service_context_processes.py).

    python _context_procs.py run KIND STORE...   # SIGKILL at the first write holding KIND
    python _context_procs.py reopen STORE...     # a fresh host: the record now, then settled

STORE is `sqlite PATH` or `postgres DSN SCHEMA` (see `_crash_points.py`); KIND is a
record kind, or `none` for a run no kill interrupts.

`run` creates a thread (key `create`), sends "u0" (key `s0`), waits for it to settle
and sends "u1" (key `s1`), whose request the agent's compactor compacts. With KIND
`compaction_started` the summarizer never answers, so the kill comes while it is
being asked. Each write is printed as `{"write": n, "kinds": [...]}`; without a kill
it prints `{"context": ...}` once the turn settled. `reopen` opens a fresh host whose
summarizer answers, prints `{"context": ...}` as its first read shows it, lets
recovery finish the turn and prints `{"settled": ...}`. A context is `[policy, usage,
operations]`, each operation `[id, turn, state, covered, has_error]`.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Sequence

from _crash_points import open_store, say, settled  # type: ignore[import-not-found]

from automata.core import Agent, Compactor, Message, ModelRequest, ModelResponse, StopReason, Usage
from automata.core.testing import FunctionProvider
from automata.threads import Host, ThreadContext
from automata.threads.testing import StoreWrite, WriteTap


def model(request: ModelRequest) -> ModelResponse:
    asked = len(request.messages)
    return ModelResponse(
        message=Message.assistant(f"re {request.messages[-1].text}"),
        stop_reason=StopReason.END_TURN,
        usage=Usage(input_tokens=asked, output_tokens=2, cache_read_tokens=3, cache_write_tokens=1),
    )


def agent(summarizes: bool) -> Agent[None]:
    async def summarize(request: ModelRequest) -> str:
        if not summarizes:
            await asyncio.Event().wait()
        return "the user said u0"

    compactor = Compactor(FunctionProvider(summarize), max_tokens=1, keep_recent=2)
    return Agent(FunctionProvider(model), system_prompt="sys", hooks=[compactor])


def shown(context: ThreadContext) -> list[object]:
    policy = None
    if context.policy is not None:
        policy = [[p.max_tokens, p.keep_recent, p.summarizer] for p in context.policy.compaction]
    usage = context.usage
    totals = [
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
    ]
    operations = [
        [op.operation_id, op.turn_id, op.state, op.covered, op.error is not None]
        for op in context.compactions
    ]
    return [policy, totals, operations]


async def run(kind: str, spec: Sequence[str]) -> None:
    async def tapped(write: StoreWrite) -> None:
        say(write=write.number, kinds=list(write.kinds))
        if kind in write.kinds:
            os.kill(os.getpid(), signal.SIGKILL)

    host = await Host.open(WriteTap(open_store(spec), tapped), lease_ttl=1.0, poll_interval=0.05)
    try:
        summarizes = kind != "compaction_started"
        service = host.thread_service(lambda request: agent(summarizes))
        thread_id = (await service.create(request_key="create")).thread_id
        await service.send(thread_id, "u0", request_key="s0")
        await settled(service, thread_id)
        await service.send(thread_id, "u1", request_key="s1")
        await settled(service, thread_id)
        say(context=shown(await service.context(thread_id)))
    finally:
        await host.shutdown()


async def reopen(spec: Sequence[str]) -> None:
    host = await Host.open(open_store(spec), lease_ttl=1.0, poll_interval=0.05)
    try:
        service = host.thread_service(lambda request: agent(True))
        thread_id = (await service.create(request_key="create")).thread_id
        say(context=shown(await service.context(thread_id)))
        view = await settled(service, thread_id)
        say(settled=shown(await service.context(thread_id)), status=view.status)
    finally:
        await host.shutdown()


if __name__ == "__main__":
    if sys.argv[1] == "run":
        asyncio.run(run(sys.argv[2], sys.argv[3:]))
    else:
        asyncio.run(reopen(sys.argv[2:]))
