"""A compiled workflow: invoking runs, resuming them, and same-run control.

A run is the store thread `wf:<run id>`, a child of its session's thread
`wfs:<session id>`; its journal is its checkpoints and history (`_journal`). `invoke`
with the id of an existing run resumes it from its journal instead of starting it:
finished activations are never run again, an activation that had started and not
finished runs again with the same id (at-least-once). `retry`, `jump` and `cancel`
write a `control` record to the run's journal, so history shows them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from automata.threads import MemoryStore, ThreadExistsError
from automata.threads.store import Lease, ThreadStore
from automata.workflow._compile import Graph
from automata.workflow._errors import (
    RunBusyError,
    RunConflictError,
    RunNotFoundError,
    RunStateError,
)
from automata.workflow._events import EventSink, deliver
from automata.workflow._history import HistoryPage, RunsPage, read_history, read_session
from automata.workflow._hooks import Guard, Middleware
from automata.workflow._ids import IdKind, Ids, check_ids, make_id
from automata.workflow._journal import RunState, dumps, encode, entry
from automata.workflow._nodes import Node
from automata.workflow._runner import (
    Runner,
    RunOptions,
    load,
    outcome_error,
    run_thread,
    session_thread,
    summary,
)

__all__ = ["CompiledWorkflow"]

In = TypeVar("In")
Out = TypeVar("Out")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class _Claimed:
    state: RunState
    lease: Lease
    history: list[Any]


class CompiledWorkflow(Generic[In, Out]):
    """A checked workflow bound to a store: runs it, resumes it, controls it.

    Options: `middleware` wraps every activation (first outermost); `guards` may stop a
    run before an activation; `sinks` receive run events (at-least-once); `ids` are
    the workflow's id generators; `lease_ttl` is how long a run's lease lasts without a
    heartbeat (renewed every third of it); `max_concurrency` bounds the activations
    one run runs at once; `max_history` bounds the records a runner reads of one run.
    """

    def __init__(
        self,
        graph: Graph,
        store: ThreadStore | None,
        *,
        middleware: Sequence[Middleware],
        guards: Sequence[Guard],
        sinks: Sequence[EventSink],
        ids: Ids | None,
        lease_ttl: float,
        max_concurrency: int,
        max_history: int,
    ) -> None:
        if lease_ttl <= 0 or max_concurrency < 1 or max_history < 1:
            raise ValueError("lease_ttl, max_concurrency and max_history must be positive")
        self.graph = graph
        self._own_store = store is None
        self._store: ThreadStore = store if store is not None else MemoryStore()
        self._opened = asyncio.Lock()
        self._is_open = store is not None
        self._ids = check_ids(ids)
        self._runners: dict[str, Runner] = {}
        self._options = RunOptions(
            tuple(middleware), tuple(guards), tuple(sinks), lease_ttl, max_concurrency, max_history
        )

    @property
    def name(self) -> str:
        return self.graph.name

    def new_id(self, kind: IdKind = "run") -> str:
        """A new id of `kind` from the workflow's generator (a random UUID without one),
        validated (W14): for a caller that must know a run's id before invoking it."""
        return make_id(kind, workflow=self._ids)

    async def _ready(self) -> ThreadStore:
        if not self._is_open:
            async with self._opened:
                if not self._is_open:
                    await self._store.open()
                    self._is_open = True
        return self._store

    async def invoke(
        self,
        input: In,
        *,
        run_id: str | None = None,
        session_id: str | None = None,
        ids: Ids | None = None,
    ) -> Out:
        """Run the workflow on `input` to its end and return the exit's output.

        With the id of an existing run, resume that run instead (its input must be
        `input`, else `RunConflictError`); a run that already ended answers from its
        journal (its output, or the error it ended with). Raises `RunBusyError` while
        another live runner holds the run, `NodeFailedError`, `RunStoppedError`,
        `RunCancelledError`, `RunStalledError`, or `RunLeaseLostError`."""
        store = await self._ready()
        invocation = check_ids(ids)
        run = make_id("run", explicit=run_id, invocation=invocation, workflow=self._ids)
        entry = self.graph.nodes[self.graph.entry]
        input_json = dumps(entry.input_adapter.dump_python(input, mode="json"))
        if await store.thread(run_thread(run)) is None:
            session = make_id(
                "session", explicit=session_id, invocation=invocation, workflow=self._ids
            )
            await self._create(store, run, session, input_json, invocation)
        claimed = await self._claim(store, run, invocation)
        if claimed.state.input != input_json:
            await store.release(claimed.lease)
            raise RunConflictError(f"run {run!r} was started with another input")
        return await self._drive(store, claimed, invocation)

    async def resume(self, run_id: str, *, ids: Ids | None = None) -> Out:
        """Resume the run `run_id` from its journal (as `invoke` would), without
        repeating its input. Raises `RunNotFoundError` for an unknown run."""
        store = await self._ready()
        invocation = check_ids(ids)
        claimed = await self._claim(store, run_id, invocation)
        return await self._drive(store, claimed, invocation)

    async def _create(
        self, store: ThreadStore, run: str, session: str, input_json: str, invocation: Ids
    ) -> None:
        with contextlib.suppress(ThreadExistsError):
            await store.create_thread(
                session_thread(session), [encode("session", session_id=session)]
            )
        started = RunState(run_id=run, session_id=session, workflow=self.name)
        first = make_id("activation", invocation=invocation, workflow=self._ids)
        record = encode(
            "run_started",
            workflow=self.name,
            run_id=run,
            session_id=session,
            input=_parse(input_json),
            scheduled=[
                {"id": first, "node": self.graph.entry, "source": {"value": _parse(input_json)}}
            ],
        )
        # another invocation may have created it first: then it is resumed like any other
        with contextlib.suppress(ThreadExistsError):
            await store.create_thread(
                run_thread(run),
                [record],
                parent_id=session_thread(session),
                active=True,
                summary=summary(started, "running"),
            )

    async def _claim(self, store: ThreadStore, run: str, invocation: Ids) -> _Claimed:
        thread = run_thread(run)
        if await store.thread(thread) is None:
            raise RunNotFoundError(run)
        owner = make_id("lease_owner", invocation=invocation, workflow=self._ids)
        lease = await store.claim(thread, owner, self._options.lease_ttl)
        if lease is None:
            raise RunBusyError(run)
        try:
            state, history = await load(store, run, self._options.max_history)
            if state.workflow != self.name:
                raise RunConflictError(
                    f"run {run!r} belongs to workflow {state.workflow!r}, not {self.name!r}"
                )
            unknown = {a.node for a in state.activations.values()} - set(self.graph.nodes)
            if unknown:
                raise RunConflictError(
                    f"run {run!r} has activations of nodes this workflow lacks: {sorted(unknown)}"
                )
        except BaseException:
            await store.release(lease)
            raise
        return _Claimed(state, lease, history)

    async def _drive(self, store: ThreadStore, claimed: _Claimed, invocation: Ids) -> Out:
        state, lease = claimed.state, claimed.lease
        runner: Runner | None = None
        try:
            await deliver(self._options.sinks, claimed.history)
            if state.status == "done" and state.output is not None:
                return self._output(state, state.output)
            if state.status != "running":
                raise outcome_error(state)
            runner = Runner(
                self.graph,
                store,
                state,
                lease,
                self._options,
                lambda: make_id("activation", invocation=invocation, workflow=self._ids),
            )
            await runner.commit(
                lambda: [entry("runner", owner=lease.owner, generation=lease.generation)]
            )
            self._runners[state.run_id] = runner
            output = await runner.run()
        finally:
            if runner is not None and self._runners.get(state.run_id) is runner:
                del self._runners[state.run_id]
            with contextlib.suppress(Exception):  # a lost lease needs no release
                await store.release(lease)
        return self._output(state, output)

    def _output(self, state: RunState, output: str) -> Out:
        exit_node = self.graph.entry
        for activation in reversed(state.activations.values()):
            if activation.state == "finished" and activation.node in self.graph.exits:
                exit_node = activation.node
                break
        value: Out = self.graph.nodes[exit_node].output_adapter.validate_json(output)
        return value

    async def _control(self, run_id: str, ids: Ids | None) -> tuple[ThreadStore, _Claimed, Ids]:
        store = await self._ready()
        invocation = check_ids(ids)
        return store, await self._claim(store, run_id, invocation), invocation

    async def retry(self, run_id: str, *, ids: Ids | None = None) -> Out:
        """Run the failed activation of a failed run again (same activation id, next
        attempt), then go on to the run's end. Journals `control` `retry`. Raises
        `RunStateError` when the run did not fail in a node."""
        store, claimed, invocation = await self._control(run_id, ids)
        state = claimed.state
        if state.status != "failed" or state.failed_activation is None:
            await store.release(claimed.lease)
            raise RunStateError(f"run {run_id!r} is {state.status}, not failed in a node")
        record = encode("control", op="retry", activation=state.failed_activation)
        await self._fenced(store, claimed, record)
        return await self._drive(store, claimed, invocation)

    async def jump(
        self,
        run_id: str,
        to: Node[T, Any],
        *,
        input: T | None = None,
        ids: Ids | None = None,
    ) -> Out:
        """Move the run back to node `to`: drop every pending activation and waiting
        join input, run `to` on `input` (by default the input of its latest activation)
        in a new activation, and go on to the run's end. Journals `control` `jump`.
        Works on a run in any state but cancelled (and not while another runner holds
        it)."""
        store, claimed, invocation = await self._control(run_id, ids)
        state = claimed.state
        node = self.graph.nodes.get(to.name)
        if node is not to or state.status == "cancelled":
            await store.release(claimed.lease)
            if state.status == "cancelled":
                raise RunStateError(f"run {run_id!r} is cancelled; a cancel is final")
            raise RunStateError(f"{to!r} is not a node of workflow {self.name!r}")
        if input is not None:
            value = _parse(dumps(node.input_adapter.dump_python(input, mode="json")))
        else:
            earlier = [a for a in state.activations.values() if a.node == to.name]
            if not earlier:
                await store.release(claimed.lease)
                raise RunStateError(f"node {to.name!r} never ran in run {run_id!r}; give input")
            value = _parse(state.input_of(earlier[-1]))
        new_id = make_id("activation", invocation=invocation, workflow=self._ids)
        record = encode(
            "control",
            op="jump",
            node=to.name,
            dropped=list(state.pending),
            scheduled=[{"id": new_id, "node": to.name, "source": {"value": value}}],
        )
        await self._fenced(store, claimed, record)
        return await self._drive(store, claimed, invocation)

    async def _fenced(self, store: ThreadStore, claimed: _Claimed, record: Any) -> None:
        state = claimed.state
        try:
            done = await store.append(
                run_thread(state.run_id),
                [record],
                fence=claimed.lease,
                active=True,
                summary=summary(state, "running"),
            )
        except BaseException:
            await store.release(claimed.lease)
            raise
        state.apply(done.last_seq, record.kind, _parse(record.data))

    async def cancel(self, run_id: str, reason: str = "cancelled") -> None:
        """Cancel the run: journal `control` `cancel` and revoke its lease, so a runner
        running it stops at its next heartbeat or write (raising `RunCancelledError`).
        Raises `RunStateError` for a run already done or cancelled."""
        store = await self._ready()
        if await store.thread(run_thread(run_id)) is None:
            raise RunNotFoundError(run_id)
        state, _ = await load(store, run_id, self._options.max_history)
        if state.status in ("done", "cancelled"):
            raise RunStateError(f"run {run_id!r} is already {state.status}")
        await store.append(
            run_thread(run_id),
            [encode("control", op="cancel", reason=reason)],
            active=False,
            summary=summary(state, "cancelled"),
            revoke_lease=True,
        )
        running = self._runners.get(run_id)
        if running is not None:
            running.check_lease()

    async def history(self, run_id: str, *, after: int = 0, limit: int = 100) -> HistoryPage:
        """The run's history (its journal as events), `limit` (1..1000) entries after
        sequence number `after`. Raises `PageBoundError`, `RunNotFoundError`."""
        return await read_history(await self._ready(), run_id, after=after, limit=limit)

    async def session_runs(
        self, session_id: str, *, before: int | None = None, limit: int = 100
    ) -> RunsPage:
        """The runs of a session, newest first, `limit` (1..1000) of them, those
        created before the `before` cursor of an earlier page when given. Raises
        `PageBoundError`."""
        return await read_session(await self._ready(), session_id, before=before, limit=limit)

    async def close(self) -> None:
        """Close the store when the workflow opened its own (the default memory store);
        a store given to `compile` is the caller's to close."""
        if self._own_store and self._is_open:
            await self._store.close()
            self._is_open = False


def _parse(text: str) -> Any:
    return json.loads(text)
