"""A host killed right after each write of a turn, then recovered by a fresh process:
the worker (run as a script) and the checks the crash-point tests of every backend
share (packages/threads/tests/test_service_crash_points.py for SQLite,
extensions/postgres/tests/test_host_crash_points.py for PostgreSQL).

    python _crash_points.py run N EFFECTS STORE...      # write N kills the host (0: none)
    python _crash_points.py recover EFFECTS STORE...    # a client and host coming back
    python _crash_points.py cancel EFFECTS STORE...     # killed as its cancel commits
    python _crash_points.py after-cancel EFFECTS STORE... # the client repeats the cancel

STORE is `sqlite PATH` or `postgres DSN SCHEMA`.

`run` opens a host on the store through a `WriteTap`, creates a thread (request key
`create`) and sends "pay 5" (key `send`). The agent's model asks for one `charge` call
(not idempotent), then answers "paid". Each write the host commits is printed as
`{"write": n, "call": ..., "kinds": [...]}`; when n is N the process SIGKILLs itself
right there, before the writer is answered. `{"thread_id": ...}` and `{"sent": ...}`
are printed when create and send return (acknowledged). Without a crash it prints
`{"status": ..., "items": [...]}` once the turn settled and its lease is released.

`recover` is the client coming back with a fresh host: it repeats its requests with
the same keys (create, then send, as a client that got no answer would), waits until
the turn settles, retries it once if it failed, and prints one line: `inputs_before`
(the thread's `input` records before the send was repeated), `first` (how the turn
settled), `status`, `items` and `inputs` (after everything).

`cancel` sends "tell me" to a model that streams "partial answer" and then never
ends its reply; once the host shows that text live, the client cancels (key
`cancel`), and the host is killed right after the cancel's first write, before the
client is answered. `after-cancel` is that client coming
back to a fresh host: it repeats create and cancel with their keys and prints
`status`, `items` and the thread's record `kinds`.

Each model call appends the process id to `<EFFECTS>.calls`; each `charge` call
appends its idempotency key to EFFECTS.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import aclosing
from pathlib import Path

from automata.core import (
    Agent,
    ModelRequest,
    ModelResponse,
    ProviderStreamItem,
    TextDelta,
    ToolContext,
    tool,
)
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import Host, SQLiteStore, ThreadService, ThreadView, idempotency_key
from automata.threads.store import ThreadStore
from automata.threads.testing import StoreWrite, WriteTap

LEASE_TTL = 1.0

TURN_WRITES = [
    ("create_thread", ["created"]),
    ("append", ["input"]),
    ("claim", []),
    ("append", ["turn_started"]),
    ("append", ["step", "dispatched"]),
    ("append", ["results"]),
    ("append", ["step"]),
    ("append", ["turn_ended"]),
    ("release", []),
]
"""The writes of the turn `run` makes, in order: the thread, the send, the runner's
lease, the turn's start, the model's call (with its dispatch), the tool's result, the
answer, the turn's end, the lease given back."""

ANSWERED = [
    ["user", None, "pay 5"],
    ["tool_call", "done", "charged 5"],
    ["assistant", None, "paid"],
]


# -- the worker --------------------------------------------------------------------


def say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def report(view: ThreadView) -> list[list[object]]:
    return [[item.kind, item.status, item.text or item.result] for item in view.items]


def open_store(spec: Sequence[str]) -> ThreadStore:
    if spec[0] == "sqlite":
        return SQLiteStore(Path(spec[1]))
    from automata.postgres import PostgresStore

    return PostgresStore(spec[1], schema=spec[2], max_size=4)


def payment_agent(effects: Path) -> Agent[None]:
    async def charge(amount: int, context: ToolContext) -> str:
        with effects.open("a", encoding="utf-8") as file:
            file.write(idempotency_key(context) + "\n")
        return f"charged {amount}"

    async def model(request: ModelRequest) -> Reply:
        with effects.with_suffix(".calls").open("a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")
        answered = any(
            block.type == "tool_result" for message in request.messages for block in message.content
        )
        return "paid" if answered else tool_calls(tool_call("c1", "charge", amount=5))

    return Agent(
        FunctionProvider(model),
        system_prompt="You take payments.",
        tools=[tool(charge, name="charge")],
    )


async def settled(service: ThreadService, thread_id: str) -> ThreadView:
    async with asyncio.timeout(20), aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if view.status not in ("running", "waiting"):
                return view
    raise AssertionError("the subscription ended before the thread settled")


async def run(crash_after: int, effects: Path, spec: Sequence[str]) -> None:
    released = asyncio.Event()

    async def tapped(write: StoreWrite) -> None:
        say(write=write.number, call=write.call, kinds=list(write.kinds))
        if write.number == crash_after:
            os.kill(os.getpid(), signal.SIGKILL)
        if write.call == "release":
            released.set()

    agent = payment_agent(effects)
    store = WriteTap(open_store(spec), tapped)
    host = await Host.open(store, lease_ttl=LEASE_TTL, poll_interval=0.05)
    try:
        service = host.thread_service(lambda request: agent)
        thread = await service.create(request_key="create")
        say(thread_id=thread.thread_id)
        await service.send(thread.thread_id, "pay 5", request_key="send")
        say(sent=thread.thread_id)
        view = await settled(service, thread.thread_id)
        await asyncio.wait_for(released.wait(), 20)
        say(status=view.status, items=report(view))
    finally:
        await host.shutdown()


async def recover(effects: Path, spec: Sequence[str]) -> None:
    store = open_store(spec)
    host = await Host.open(store, lease_ttl=LEASE_TTL, poll_interval=0.05)

    async def inputs(thread_id: str) -> int:
        return sum(record.kind == "input" for record in await store.read(thread_id))

    try:
        service = host.thread_service(lambda request: payment_agent(effects))
        thread_id = (await service.create(request_key="create")).thread_id
        before = await inputs(thread_id)
        await service.send(thread_id, "pay 5", request_key="send")
        first = await settled(service, thread_id)
        view = first
        if first.status in ("failed", "effect_outcome_unknown"):
            await service.retry(thread_id, request_key="retry")
            view = await settled(service, thread_id)
        say(
            inputs_before=before,
            first=first.status,
            status=view.status,
            items=report(view),
            inputs=await inputs(thread_id),
        )
    finally:
        await host.shutdown()


class StreamsThenHangs:
    """Streams "partial answer", then never ends the reply (a cancel stops it)."""

    provider_name = "hangs"
    model = None
    supports_streaming = True
    supports_native_output = False

    def __init__(self, effects: Path) -> None:
        self.effects = effects

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise AssertionError("the runner streams")

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        with self.effects.with_suffix(".calls").open("a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")
        yield TextDelta("partial ")
        yield TextDelta("answer")
        await asyncio.Event().wait()


async def cancel_and_crash(effects: Path, spec: Sequence[str]) -> None:
    cancelling = asyncio.Event()

    async def tapped(write: StoreWrite) -> None:
        say(write=write.number, call=write.call, kinds=list(write.kinds))
        if cancelling.is_set():  # the cancel's first write
            os.kill(os.getpid(), signal.SIGKILL)

    store = WriteTap(open_store(spec), tapped)
    host = await Host.open(store, lease_ttl=LEASE_TTL, poll_interval=0.05)
    try:
        service = host.thread_service(lambda request: Agent(StreamsThenHangs(effects)))
        thread_id = (await service.create(request_key="create")).thread_id
        await service.send(thread_id, "tell me", request_key="send")
        async with asyncio.timeout(20), aclosing(service.subscribe(thread_id)) as views:
            async for view in views:
                if any(item.live and item.text == "partial answer" for item in view.items):
                    break
        say(streamed=thread_id)
        cancelling.set()
        await service.cancel(thread_id, request_key="cancel")
        say(cancelled=thread_id)  # never: the host dies as the cancel commits
    finally:
        await host.shutdown()


async def after_cancel(effects: Path, spec: Sequence[str]) -> None:
    store = open_store(spec)
    host = await Host.open(store, lease_ttl=LEASE_TTL, poll_interval=0.05)
    try:
        service = host.thread_service(lambda request: Agent(StreamsThenHangs(effects)))
        thread_id = (await service.create(request_key="create")).thread_id
        await service.cancel(thread_id, request_key="cancel")
        view = await settled(service, thread_id)
        kinds = [record.kind for record in await store.read(thread_id)]
        say(status=view.status, items=report(view), kinds=kinds)
    finally:
        await host.shutdown()


def main(argv: Sequence[str]) -> None:
    if argv[0] == "run":
        asyncio.run(run(int(argv[1]), Path(argv[2]), argv[3:]))
    elif argv[0] == "cancel":
        asyncio.run(cancel_and_crash(Path(argv[1]), argv[2:]))
    elif argv[0] == "after-cancel":
        asyncio.run(after_cancel(Path(argv[1]), argv[2:]))
    else:
        asyncio.run(recover(Path(argv[1]), argv[2:]))


# -- the checks --------------------------------------------------------------------

StoreSpec = Callable[[int], list[str]]
"""The STORE arguments of a fresh, empty store for the crash at write N (0: none)."""


def _worker(*args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, __file__, *map(str, args)], stdout=subprocess.PIPE, text=True
    )


def _lines(process: subprocess.Popen[str]) -> list[dict[str, object]]:
    try:
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    return [json.loads(line) for line in out.splitlines()]


def writes_of_a_turn(store: StoreSpec, tmp_path: Path) -> list[tuple[object, object]]:
    """The writes of a turn no crash interrupts, after checking it ends `done`."""
    worker = _worker("run", 0, tmp_path / "effects-0.txt", *store(0))
    lines = _lines(worker)
    assert worker.returncode == 0, lines
    assert lines[-1] == {"status": "done", "items": ANSWERED}
    return [(line["call"], line["kinds"]) for line in lines if "write" in line]


def check_a_crash_at_every_write(store: StoreSpec, tmp_path: Path) -> None:
    """Kill a host (SIGKILL) right after write N of a turn, for every N, each on its
    own store; recover each with a fresh process (a client repeating its requests
    with their keys); check that the turn ends `done` with its answer (by `retry`
    when recovery ended it `effect_outcome_unknown`), that an acknowledged send was
    never lost nor a repeated one taken twice, that the tool (not idempotent) never
    ran twice, and that the model was called again only for replies not committed."""
    assert writes_of_a_turn(store, tmp_path) == TURN_WRITES
    points = range(1, len(TURN_WRITES) + 1)
    effects = {n: tmp_path / f"effects-{n}.txt" for n in points}
    crashing = {n: _worker("run", n, effects[n], *store(n)) for n in points}
    crashed = {n: _lines(worker) for n, worker in crashing.items()}
    recovering = {n: _worker("recover", effects[n], *store(n)) for n in points}
    recovered = {n: _lines(worker) for n, worker in recovering.items()}
    failures = []
    for n in points:
        try:
            _check_recovered(n, crashing[n], crashed[n], recovering[n], recovered[n], effects[n])
        except AssertionError as failure:
            failures.append(
                f"crash after write {n} {TURN_WRITES[n - 1]}: {failure!r}; the crashed host "
                f"said {crashed[n]}, the recovering one {recovered[n]}"
            )
    assert not failures, "\n".join(failures)


def _check_recovered(
    n: int,
    crashing: subprocess.Popen[str],
    crashed: list[dict[str, object]],
    recovering: subprocess.Popen[str],
    recovered: list[dict[str, object]],
    effects: Path,
) -> None:
    call, kinds = TURN_WRITES[n - 1]
    assert crashing.returncode == -signal.SIGKILL
    assert crashed[-1] == {"write": n, "call": call, "kinds": kinds}
    assert recovering.returncode == 0
    (result,) = recovered
    if any("sent" in line for line in crashed):  # the send was acknowledged
        assert result["inputs_before"] == 1
    assert result["inputs"] == 1
    assert (result["status"], result["first"]) == (
        "done",
        "effect_outcome_unknown" if kinds == ["step", "dispatched"] else "done",
    )
    keys = effects.read_text().splitlines() if effects.exists() else []
    replies_committed = sum("step" in kind for _, kind in TURN_WRITES[:n])
    model_calls = effects.with_suffix(".calls").read_text().splitlines()
    assert model_calls.count(str(recovering.pid)) == 2 - replies_committed
    if kinds == ["step", "dispatched"]:  # the tool never ran: its outcome is unknown
        assert keys == []
        items = result["items"]
        assert isinstance(items, list)
        assert items[1][:2] == ["tool_call", "error"]
        assert str(items[1][2]).startswith("outcome unknown")
        assert items[2] == ANSWERED[2]
    else:
        assert len(keys) == 1
        assert result["items"] == ANSWERED


def check_a_crash_as_a_cancel_commits(store: StoreSpec, tmp_path: Path) -> None:
    """Kill a host (SIGKILL) right after the commit of a cancel that keeps a streamed
    draft, before the client is answered; the client repeats its cancel with its key
    on a fresh host. The turn is cancelled with the stopped reply, once: the cancel
    committed all of it (one stopped reply, one end), the repeated one nothing, and
    no model was called again."""
    effects = tmp_path / "effects-cancel.txt"
    crashing = _worker("cancel", effects, *store(0))
    crashed = _lines(crashing)
    assert crashing.returncode == -signal.SIGKILL, crashed
    assert crashed[-1]["kinds"] == ["stopped", "turn_ended"], crashed
    assert any("streamed" in line for line in crashed), crashed
    recovering = _worker("after-cancel", effects, *store(0))
    (result,) = _lines(recovering)
    assert recovering.returncode == 0
    assert result["status"] == "cancelled"
    stopped = [["user", None, "tell me"], ["assistant", "stopped", "partial answer"]]
    assert result["items"] == stopped
    kinds = result["kinds"]
    assert isinstance(kinds, list)
    assert (kinds.count("stopped"), kinds.count("turn_ended"), kinds[-1]) == (1, 1, "turn_ended")
    calls = effects.with_suffix(".calls").read_text().splitlines()
    assert calls == [str(crashing.pid)]


if __name__ == "__main__":
    main(sys.argv[1:])
