"""Running one run while holding its lease: activations, checkpoints, heartbeats.

A runner holds the run thread's lease (S4) from before it reads the journal until it
stops. Every write it makes is fenced by that lease (S5) and is one append: an
activation's start, its end together with the activations its output made ready (and
the run's end, for an exit), a failure, a guard's stop. When an activation's end leaves
nothing else pending or running and the run has no guards, the starts of the
activations it made ready go in the same append, after its end: the journal holds the
same records in the same order, each start committed before its node runs, one
transaction fewer per step (a guard must run before the start it could refuse, so with
guards every start is its own append). A heartbeat renews the lease
every third of its time to live, so a long node is not taken over while its runner is
alive; when a renewal or a fenced write finds the lease lost, the runner cancels its
nodes and raises `RunLeaseLostError` (or `RunCancelledError`, when a `cancel` revoked
it). Appends are serialized in this process and applied to the folded state in commit
order, so the in-memory state is always the journal's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from automata.threads import LeaseLostError
from automata.threads.store import Lease, ThreadStore
from automata.workflow._compile import Graph
from automata.workflow._errors import (
    HistoryLimitError,
    NodeFailedError,
    RunCancelledError,
    RunLeaseLostError,
    RunStalledError,
    RunStoppedError,
    StopReason,
    WorkflowError,
)
from automata.workflow._events import EventSink, RunEvent, deliver
from automata.workflow._hooks import Guard, Middleware, chain
from automata.workflow._journal import (
    Entry,
    RunState,
    RunStatus,
    decode,
    dumps,
    encode,
    entry,
    reread,
)
from automata.workflow._nodes import ActivationInfo, NodeContext, activation_scope

__all__ = ["RunOptions", "Runner", "load", "run_thread", "session_thread", "summary"]


def run_thread(run_id: str) -> str:
    """The store thread holding run `run_id`."""
    return f"wf:{run_id}"


def session_thread(session_id: str) -> str:
    """The store thread the runs of session `session_id` are children of."""
    return f"wfs:{session_id}"


def summary(state: RunState, status: RunStatus) -> str:
    """The run's thread summary (what session queries list without reading journals)."""
    return dumps(
        {
            "workflow": state.workflow,
            "run_id": state.run_id,
            "session_id": state.session_id,
            "status": status,
        }
    )


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How runs of a compiled workflow are run (see `Workflow.compile`)."""

    middleware: Sequence[Middleware]
    guards: Sequence[Guard]
    sinks: Sequence[EventSink]
    lease_ttl: float
    max_concurrency: int
    max_history: int


async def load(store: ThreadStore, run_id: str, bound: int) -> tuple[RunState, list[RunEvent]]:
    """The run's state folded from its whole journal, and its events. Raises
    `HistoryLimitError` past `bound` records."""
    state, events, after = RunState(), [], 0
    thread = run_thread(run_id)
    while True:
        page = await store.read(thread, after=after, limit=store.max_page)
        for record in page:
            if record.seq > bound:
                raise HistoryLimitError(
                    f"run {run_id!r} has more than {bound} records; archive or delete it"
                )
            data = decode(record)
            state.apply(record.seq, record.kind, data)
            events.append(RunEvent(run_id, record.seq, record.kind, data, record.at))
        if len(page) < store.max_page:
            return state, events
        after = page[-1].seq


class _Stop(Exception):
    """An activation ended the run (a failure, a guard's stop): the loop winds down."""


class Runner:
    """Drives one run to its end while holding `lease` (module docstring)."""

    def __init__(
        self,
        graph: Graph,
        store: ThreadStore,
        state: RunState,
        lease: Lease,
        options: RunOptions,
        new_activation_id: Callable[[], str],
    ) -> None:
        self._graph = graph
        self._store = store
        self.state = state
        self._lease = lease
        self._options = options
        self._new_id = new_activation_id
        self._lock = asyncio.Lock()
        self._failure: BaseException | None = None
        self._thread = run_thread(state.run_id)
        self._check_now = asyncio.Event()
        self._activations = state.started
        self._prestarted: dict[str, ActivationInfo] = {}

    def check_lease(self) -> None:
        """Renew the lease now rather than at the next heartbeat (a `cancel` in this
        process calls it, so the runner stops at once)."""
        self._check_now.set()

    async def commit(
        self,
        build: Callable[[], list[Entry]],
        status: RunStatus | None = None,
    ) -> int:
        """Append what `build` makes (built under the write lock, from the current
        state), fenced; fold it in and hand its events to the sinks. Returns the last
        sequence number written."""
        async with self._lock:
            if self.state.status != "running":
                raise _Stop  # the run ended meanwhile (an exit, a failure, a stop)
            entries = build()
            records = [item.record for item in entries]
            extra: dict[str, Any] = {}
            if status is not None:
                extra = {"active": status == "running", "summary": summary(self.state, status)}
            try:
                done = await self._store.append(self._thread, records, fence=self._lease, **extra)
            except LeaseLostError:
                raise await self._lost() from None
            at = time.time()
            events = []
            for seq, item in enumerate(entries, done.first_seq):
                kind, data = item.record.kind, item.data
                self.state.apply(seq, kind, data)
                events.append(RunEvent(self.state.run_id, seq, kind, data, at))
            await deliver(self._options.sinks, events)
            return done.last_seq

    async def _lost(self) -> WorkflowError:
        """The error for a lost lease: a cancel, or another runner."""
        try:
            state, _ = await load(self._store, self.state.run_id, self._options.max_history)
        except WorkflowError:
            state = self.state
        if state.status == "cancelled":
            return RunCancelledError(self.state.run_id, state.cancel_reason or "")
        return RunLeaseLostError(self.state.run_id, self._lease.owner)

    async def _heartbeat(self) -> None:
        interval = self._options.lease_ttl / 3
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._check_now.wait(), interval)
            self._check_now.clear()
            try:
                self._lease = await self._store.renew(self._lease, self._options.lease_ttl)
            except LeaseLostError:
                raise await self._lost() from None

    async def log(self, activation_id: str, message: str, data: Any) -> int:
        return await self.commit(
            lambda: [
                reread(encode("log", activation=activation_id, message=message, data=dict(data)))
            ]
        )

    async def run(self) -> str:
        """Run until the run ends; its output JSON, or the error that ended it."""
        heartbeat = asyncio.create_task(self._heartbeat())
        running: dict[str, asyncio.Task[None]] = {}
        ended: list[str] = []  # the activations whose tasks are done, in the order they ended
        changed = asyncio.Event()  # set when a task or the heartbeat is done
        heartbeat.add_done_callback(lambda _: changed.set())

        def on_end(activation_id: str) -> Callable[[object], None]:
            def end(_: object) -> None:
                ended.append(activation_id)
                changed.set()

            return end

        try:
            while self.state.status == "running":
                for activation_id in list(self.state.pending):
                    if len(running) >= self._options.max_concurrency:
                        break
                    if activation_id not in running:
                        task = asyncio.create_task(self._activate(activation_id))
                        task.add_done_callback(on_end(activation_id))
                        running[activation_id] = task
                if not running:
                    await self._stalled()
                    break
                await changed.wait()
                changed.clear()
                if heartbeat.done():
                    heartbeat.result()
                while ended:
                    with contextlib.suppress(_Stop):
                        running.pop(ended.pop(0)).result()
        finally:
            for task in (*running.values(), heartbeat):
                task.cancel()
            await asyncio.gather(*running.values(), heartbeat, return_exceptions=True)
        return self._outcome()

    async def _stalled(self) -> None:
        waiting = sorted(join for join, slots in self.state.buffers.items() if any(slots.values()))
        detail = f"; joins still waiting: {', '.join(waiting)}" if waiting else ""
        await self.commit(
            lambda: [
                entry(
                    "run_failed",
                    error=f"nothing left to run and no exit reached{detail}",
                    activation=None,
                )
            ],
            "failed",
        )

    def _outcome(self) -> str:
        state = self.state
        if state.status == "done" and state.output is not None:
            return state.output
        raise outcome_error(state, self._failure)

    async def _activate(self, activation_id: str) -> None:
        state = self.state
        activation = state.activations[activation_id]
        node = self._graph.nodes[activation.node]
        info = self._prestarted.pop(activation_id, None)
        if info is None:  # not started with the end that made it ready
            info = self._info(activation_id, node.name, activation.attempts + 1)
            for guard in self._options.guards:
                reason = await guard(info)
                if reason is not None:
                    await self._stop(info, reason)
            await self.commit(lambda: [_started(info)])
        context = NodeContext(info, self.log)

        async def call_node() -> Any:
            value = node.input_adapter.validate_json(state.input_of(activation))
            with activation_scope(context):
                return await (node.fn(value, context) if node.takes_context else node.fn(value))

        try:
            output = await chain(self._options.middleware, info, call_node)()
            output_json = json.loads(node.output_adapter.dump_json(output))
        except _Stop:
            raise
        except Exception as exc:
            self._failure = exc
            error = f"{type(exc).__name__}: {exc}"
            await self.commit(
                lambda: [
                    entry(
                        "activation_failed",
                        id=activation_id,
                        node=node.name,
                        attempt=info.attempt,
                        error=error,
                    )
                ],
                "failed",
            )
            raise _Stop from None
        finishing = node.name in self._graph.exits
        await self.commit(
            lambda: self._finished(activation_id, info.attempt, node.name, output, output_json),
            "done" if finishing else None,
        )

    async def _stop(self, info: ActivationInfo, reason: StopReason) -> None:
        await self.commit(
            lambda: [
                entry("run_stopped", node=info.node, code=reason.code, message=reason.message)
            ],
            "stopped",
        )
        raise _Stop

    def _finished(
        self, activation_id: str, attempt: int, name: str, output: Any, output_json: Any
    ) -> list[Entry]:
        """The records of an activation's end: where its output goes, joins it fires,
        and the starts that may go with it (module docstring)."""
        graph, state = self._graph, self.state
        routes = graph.targets(name, output)
        scheduled: list[dict[str, Any]] = [
            {"id": self._new_id(), "node": target, "source": {"from": activation_id}}
            for target in routes
        ]
        deliveries = []
        for join, slot in graph.feeds.get(name, ()):
            deliveries.append([join, slot])
            queues = state.buffers.get(join, {})
            parts = []
            for index in range(len(graph.joins[join])):
                queue = [*queues.get(index, []), *([activation_id] if index == slot else [])]
                if not queue:
                    break
                parts.append(queue[0])
            else:
                scheduled.append({"id": self._new_id(), "node": join, "source": {"join": parts}})
        finished = entry(
            "activation_finished",
            id=activation_id,
            node=name,
            attempt=attempt,
            output=output_json,
            routes=routes,
            deliveries=deliveries,
            scheduled=[] if name in graph.exits else scheduled,
        )
        if name in graph.exits:
            return [finished, entry("run_finished", node=name, output=output_json)]
        alone = state.pending.keys() <= {activation_id}
        if self._options.guards or not alone or len(scheduled) > self._options.max_concurrency:
            return [finished]
        # nothing else pending or running: the loop starts every one of them at once
        starts = [self._info(item["id"], item["node"], 1) for item in scheduled]
        self._prestarted.update((info.activation_id, info) for info in starts)
        return [finished, *map(_started, starts)]

    def _info(self, activation_id: str, node: str, attempt: int) -> ActivationInfo:
        """The info of the activation about to start, counted (before any await, so
        the count is unique under concurrency)."""
        state = self.state
        self._activations += 1
        return ActivationInfo(
            state.workflow,
            state.run_id,
            state.session_id,
            node,
            activation_id,
            attempt,
            self._activations,
        )


def _started(info: ActivationInfo) -> Entry:
    return entry("activation_started", id=info.activation_id, node=info.node, attempt=info.attempt)


def outcome_error(state: RunState, cause: BaseException | None = None) -> WorkflowError:
    """The error `invoke` raises for a run that ended other than `done`."""
    if state.status == "cancelled":
        return RunCancelledError(state.run_id, state.cancel_reason or "")
    if state.status == "stopped" and state.stop is not None:
        node, code, message = state.stop
        return RunStoppedError(state.run_id, node, StopReason(code, message))
    if state.status == "failed" and state.failed_activation is not None:
        failed = state.activations[state.failed_activation]
        error = NodeFailedError(state.run_id, failed.node, failed.id, state.error or "")
        error.__cause__ = cause
        return error
    if state.status == "failed":
        return RunStalledError(f"run {state.run_id!r} failed: {state.error}")
    return WorkflowError(f"run {state.run_id!r} is {state.status}")
