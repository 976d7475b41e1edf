"""One thread's runner: it holds the thread's lease and runs its turns, one step at a
time, committing each step to the journal before the next one runs.

The runner claims the lease, renews it every third of its time to live in a task of
its own, and writes every record fenced by it. A write refused for a lost lease stops
the runner (`LeaseLostError`, logged); nothing it did after that reaches the journal.
A write that fails because the store is unreachable (`StoreUnavailableError`: not
committed, or its outcome unknown) stops the runner too, without writing anything more
(the turn is not failed for it): the host's recovery resumes the turn from what the
journal holds once the store answers again. A failed renewal is tried again at the
next third of the ttl (a lease that expires meanwhile fences the runner's later writes).
When no turn is left it releases the lease only if the journal still ends where it
last looked (`if_last_seq`), so an input that arrived meanwhile is never stranded.

Per step (see docs/threads.md):
- a `ModelStep` commits the assistant message and its usage, and, when it calls
  tools, one `dispatched` record per call, before the run is let go on (the tools run
  then);
- a `ToolStep` commits the batch's results.
A crash during a provider call therefore re-sends that call on recovery (model calls
are at least once); a crash during a batch leaves dispatched calls without outcome,
settled by `_recovery`; a crash after the answer step, before the turn's end, leaves
nothing to run: the resumed turn (or its retry) ends `done` with that answer, asking
no agent and no model.

Compaction (T25): the run's `CompactionEvent`s (its own, depth 0) are journaled as
`compaction` records with the next committed step (before the turn ends when the call
they preceded failed), and every turn, when it starts or resumes, hands the thread's
journaled summaries to each `Compactor` among its agent's hooks, so a restart never
asks the summarizer again for a summary the journal holds. Each summarizer call is a
compaction operation (CX3, `_context`): its start is committed before the call, its
end with the summary (or before a failed turn ends); a resumed turn ends the
operations a stopped runner left open as interrupted. Each step carries the thread's
usage totals after it (CX2).

While a step is made, the run's stream events grow the thread's draft in the host's
memory (`LiveDrafts`), never in the journal; the draft is replaced when its step
commits and dropped when the run stops, whatever the reason (a cancel on this host
commits what it held first, in the cancel's own transaction: T26).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from automata.core import (
    ActivityEvent,
    Agent,
    Approver,
    CompactionEvent,
    CompactionSummary,
    Compactor,
    Message,
    ModelStep,
    RunError,
    Step,
    StreamEvent,
    TextBlock,
    ToolResultBlock,
    ToolResultEvent,
    ToolStep,
    ToolUseBlock,
)
from automata.threads._activity import PendingActivity
from automata.threads._agents import (
    AgentFactory,
    AgentRequest,
    make_agent,
    supplemental_hook,
    surface_of,
    turn_invocation_id,
)
from automata.threads._artifacts import artifact_record
from automata.threads._call_questions import stranded_questions, unanswerable_records
from automata.threads._context import (
    TurnCompactions,
    UsageTotals,
    interrupted_records,
    policy_records,
)
from automata.threads._draft import LiveDrafts
from automata.threads._errors import (
    LeaseLostError,
    StoreError,
    StoreUnavailableError,
    ThreadNotFoundError,
)
from automata.threads._fold import ThreadFold, TurnState
from automata.threads._interactions import RecordedDecisions, asks_for
from automata.threads._labels import HostMaps
from automata.threads._records import compaction_record, cost_field, encode, message_data
from automata.threads._recovery import (
    CANCELLED,
    OUTCOME_UNKNOWN,
    error_results,
    is_idempotent,
    rerun_calls,
)
from automata.threads._todos import todo_records
from automata.threads.store import Commit, Lease, NewRecord, ThreadStore

__all__ = ["ThreadRunner"]

log = logging.getLogger("automata.threads")


class Loader(Protocol):
    """`Host.load`: the thread's fold, read up to the journal's end (or to `known`)."""

    def __call__(self, thread_id: str, *, known: int | None = None) -> Awaitable[ThreadFold]: ...


class ThreadRunner:
    """Runs a thread's pending turns under its lease; `run` returns when none is left,
    the lease is lost, or another owner holds the thread."""

    def __init__(
        self,
        *,
        store: ThreadStore,
        thread_id: str,
        owner: str,
        ttl: float,
        factory: AgentFactory,
        load: Loader,
        notify: Callable[[str], None],
        drafts: LiveDrafts,
        supplemental: Callable[[str], str | None],
        secret: Callable[[str], str | None],
        woken: Callable[[], int],
        host_maps: HostMaps | None = None,
        committed: Callable[[str, Sequence[NewRecord], Commit], None] | None = None,
    ) -> None:
        self.host_maps = host_maps or HostMaps()
        self.committed = committed
        self.store = store
        self.thread_id = thread_id
        self.owner = owner
        self.ttl = ttl
        self.factory = factory
        self.load = load
        self.notify = notify
        self.drafts = drafts
        self.supplemental = supplemental
        self.secret = secret
        self.woken = woken
        self.lease: Lease | None = None
        self.lost: LeaseLostError | None = None
        self.last_commit: Commit | None = None

    async def run(self) -> None:
        """Claim the thread and run its turns until none is left."""
        try:
            lease = await self.store.claim(self.thread_id, self.owner, self.ttl)
        except ThreadNotFoundError:
            return
        if lease is None:
            return  # another runner holds it; it will see what was added
        self.lease = lease
        main = asyncio.current_task()
        assert main is not None
        renewer = asyncio.create_task(self._renew(main))
        released = False
        ran: Commit | None = None  # this runner's last commit, when a turn ran since the claim
        try:
            while True:
                wake = self.woken()
                # after a turn, the journal as this runner left it (its commits folded in
                # without a read): what came since is another's, and the fenced release
                # below refuses to let go then, so the loop reads it (once: ran is reset)
                known, ran = (None if ran is None else ran.last_seq), None
                fold = await self.load(self.thread_id, known=known)
                turn = fold.current
                if turn is not None and turn.phase != "waiting":
                    self.last_commit = None
                    await self._run_turn(fold, turn)
                    ran = self.last_commit
                    continue
                if await self.store.release(self.lease, if_last_seq=fold.last_seq):
                    released = True
                    if self.woken() == wake:
                        return
                    claimed = await self.store.claim(self.thread_id, self.owner, self.ttl)
                    if claimed is None:
                        return
                    self.lease, released = claimed, False
        except asyncio.CancelledError:
            if self.lost is None:
                raise
            log.warning("%s", self.lost)
        except LeaseLostError as lost:
            self.lost = lost
            log.warning("%s", lost)
        except ThreadNotFoundError:
            pass  # deleted while it ran
        except StoreUnavailableError as unavailable:  # recovery resumes from the journal
            log.warning("the runner of %s stopped: %s", self.thread_id, unavailable)
        finally:
            renewer.cancel()
            if not released and self.lost is None:
                try:
                    await self.store.release(self.lease)
                except Exception:  # the store may be closing; the lease expires anyway
                    log.debug("could not release the lease on %s", self.thread_id)

    async def _renew(self, main: asyncio.Task[Any]) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            assert self.lease is not None
            try:
                self.lease = await self.store.renew(self.lease, self.ttl)
            except LeaseLostError as lost:
                self.lost = lost
                main.cancel()
                return
            except StoreError as error:  # tried again next time; expiry fences the rest
                log.warning("renewing the lease on %s failed: %s", self.thread_id, error)

    async def _append(self, records: Sequence[NewRecord], *, active: bool | None = None) -> Commit:
        """Commit `records` fenced by the lease; a commit holding `dispatched` records
        (a tool may act on the world once it returns) is made durable (power-loss
        safe), so recovery never takes a call that ran for one that never started."""
        assert self.lease is not None
        durable = any(record.kind == "dispatched" for record in records)
        commit: Commit = await self.store.append(
            self.thread_id, records, fence=self.lease, active=active, durable=durable
        )
        self.last_commit = commit
        if self.committed is not None:  # the host's fold takes them without a read
            self.committed(self.thread_id, records, commit)
        self.notify(self.thread_id)
        return commit

    async def _end(self, fold: ThreadFold, turn: TurnState, status: str, error: str | None) -> None:
        queued = [t for t in fold.queue if t.turn_id != turn.turn_id]
        record = encode("turn_ended", turn=turn.turn_id, status=status, error=error)
        await self._append([record], active=bool(queued))
        self.host_maps.forget(self.thread_id, turn.request_key)

    async def _run_turn(self, fold: ThreadFold, turn: TurnState) -> None:
        if turn.started and fold.answered(turn.turn_id):
            # the run's answer was committed and its end was not (a crash between the
            # two), or a retry of a turn failed after its answer: nothing is left to run
            await self._end(fold, turn, "done", None)
            return
        request = AgentRequest(self.thread_id, fold.parent_id, turn.turn_id, fold.agent)
        try:
            agent = await make_agent(self.factory, request)
        except Exception as exc:
            await self._end(fold, turn, "failed", f"the agent factory failed: {exc}")
            return
        if fold.compactions:
            for hook in agent.hooks:
                if isinstance(hook, Compactor):
                    hook.remember(fold.compactions)
        surface, fingerprint = surface_of(agent)
        invocation_id = turn_invocation_id(self.thread_id, turn.turn_id)
        approver: Approver | None = None
        task: Message | None
        if not turn.started:
            records = []
            stray = fold.open_calls()
            if stray:  # a cancelled turn's calls that no one answered
                records.append(
                    encode(
                        "results",
                        turn=stray[0].turn_id,
                        message=message_data(error_results([c.call for c in stray], CANCELLED)),
                    )
                )
            records.append(
                encode(
                    "turn_started",
                    turn=turn.turn_id,
                    run=1,
                    surface=surface,
                    fingerprint=fingerprint,
                )
            )
            records += policy_records(fold.context_facts, agent, turn.turn_id)
            transcript = fold.transcript
            if stray:
                transcript.append(error_results([c.call for c in stray], CANCELLED))
            started = await self._append(records, active=True)
            # the journal as of the start (no read when nothing came between): a cancel
            # committed after it revoked the lease, which refuses this run's next append
            fold = await self.load(self.thread_id, known=started.last_seq)
            if fold.turns[turn.turn_id].phase != "running":
                return  # cancelled while it was being started
            task = turn.message
        else:
            if fingerprint != turn.fingerprint:
                await self._end(
                    fold,
                    turn,
                    "failed",
                    "the agent factory gave this turn an agent with another surface "
                    f"({surface}) than the turn started with ({turn.surface}); "
                    "a turn keeps its surface through retries and recovery",
                )
                return
            stopped = interrupted_records(fold.context_facts)  # CX3: a runner stopped
            if turn.phase == "queued":  # a retry
                await self._append(
                    [
                        *stopped,
                        encode(
                            "turn_started",
                            turn=turn.turn_id,
                            run=turn.run + 1,
                            surface=surface,
                            fingerprint=fingerprint,
                        ),
                        *policy_records(fold.context_facts, agent, turn.turn_id),
                    ],
                    active=True,
                )
            elif stopped:
                await self._append(stopped)
            settled = await self._settle(fold, turn, agent, invocation_id)
            if settled is None:
                return
            transcript, approver = settled
            task = None
        await self._drive(fold, turn, agent, transcript, task, invocation_id, approver)

    async def _settle(
        self, fold: ThreadFold, turn: TurnState, agent: Agent[Any], invocation_id: str
    ) -> tuple[list[Message], Approver | None] | None:
        """Give the calls a stopped or parked run left open an outcome: run idempotent
        and approved ones, answer questions, deny what was denied, or end the turn
        `effect_outcome_unknown`. The transcript to go on with and the approver for
        the run that goes on (None: the agent's), or None when the turn ended."""
        open_calls = fold.open_calls()
        if not open_calls:
            return fold.transcript, None
        calls = [state.call for state in open_calls]
        unsafe = [
            state.call
            for state in open_calls
            if state.dispatched
            and (not is_idempotent(agent, state.call.name) or stranded_questions(fold, state))
        ]
        if unsafe:
            results = error_results(calls, OUTCOME_UNKNOWN)
            await self._append(
                [
                    *unanswerable_records(fold, open_calls),
                    encode("results", turn=turn.turn_id, message=message_data(results)),
                ]
            )
            names = ", ".join(f"{call.name} ({call.id})" for call in unsafe)
            await self._end(
                fold,
                turn,
                "effect_outcome_unknown",
                f"the run stopped while {names} ran; the outcome is unknown and the "
                "call was not replayed",
            )
            return None
        asks = {state.call.id: fold.interaction_for(state) for state in open_calls}
        if all(ask is None or ask.kind == "approval" for ask in asks.values()):
            # calls a crash left open (idempotent ones) and calls people decided on:
            # the core runs them as an ordinary batch (policy, timeouts, retries) when
            # the run goes on (L88), the recorded decisions as its approver (L90)
            await self._append(
                [
                    encode("dispatched", turn=turn.turn_id, call=call.id)
                    for call in calls
                    if (ask := asks[call.id]) is None or ask.approved
                ]
            )
            decided = {call_id: ask for call_id, ask in asks.items() if ask is not None}
            if not decided:
                return fold.transcript, None
            return fold.transcript, RecordedDecisions(decided, agent.approver)
        journaled: dict[str, ToolResultBlock] = {}
        live: dict[str, ToolResultBlock] = {}
        to_run: list[ToolUseBlock] = []
        for state in open_calls:
            asked = fold.interaction_for(state)
            call = state.call
            if state.dispatched or asked is None or (asked.kind == "approval" and asked.approved):
                to_run.append(call)
            elif asked.kind == "approval":
                journaled[call.id] = live[call.id] = _result(call, asked.answer or "denied", True)
            else:
                answer = asked.answer or ""
                journaled[call.id] = _result(call, answer, False)
                spoken = self.secret(asked.interaction_id) if asked.secret else None
                live[call.id] = _result(call, answer if spoken is None else spoken, False)
        if to_run:
            await self._append(
                [encode("dispatched", turn=turn.turn_id, call=call.id) for call in to_run]
            )
            ran = await rerun_calls(agent, to_run, invocation_id)
            for block in ran.content:
                if isinstance(block, ToolResultBlock):
                    journaled[block.tool_use_id] = live[block.tool_use_id] = block
        stored = Message(role="tool", content=tuple(journaled[call.id] for call in calls))
        await self._append(
            [
                encode("results", turn=turn.turn_id, message=message_data(stored)),
                *todo_records(agent, turn.turn_id, calls, stored),
            ]
        )
        transcript = fold.transcript
        transcript.append(Message(role="tool", content=tuple(live[call.id] for call in calls)))
        return transcript, None

    async def _drive(
        self,
        fold: ThreadFold,
        turn: TurnState,
        agent: Agent[Any],
        transcript: list[Message],
        task: Message | None,
        invocation_id: str,
        approver: Approver | None = None,
    ) -> None:
        try:
            await self._steps(fold, turn, agent, transcript, task, invocation_id, approver)
        finally:
            draft = self.drafts.get(self.thread_id)
            if draft is not None:
                self.drafts.drop(self.thread_id, draft)

    async def _steps(
        self,
        fold: ThreadFold,
        turn: TurnState,
        agent: Agent[Any],
        transcript: list[Message],
        task: Message | None,
        invocation_id: str,
        approver: Approver | None,
    ) -> None:
        extra = self.supplemental(turn.request_key)
        hooks = () if extra is None else (supplemental_hook(extra),)
        turn_id = turn.turn_id
        journaled = 0
        replies = fold.turns[turn_id].replies
        draft = self.drafts.begin(self.thread_id, turn_id, f"{turn_id}.{replies + 1}")

        written: list[tuple[CompactionSummary, str | None]] = []
        operations = TurnCompactions(agent, turn_id, self._append)
        agent = operations.agent
        totals = UsageTotals.of(fold.usage)  # CX2: the thread's, carried by each step
        kept = set(fold.artifacts)  # ids the journal holds or this run will write
        returned: list[NewRecord] = []
        shown = PendingActivity(turn_id)

        def on_event(event: StreamEvent) -> None:
            if isinstance(event, CompactionEvent):
                if event.depth == 0:
                    written.append((event.summary, operations.completed()))
            elif isinstance(event, ToolResultEvent):
                # AR3, AR9: a sub-agent's too, journaled with the results, each id once
                by = None if event.depth == 0 else event.agent
                for artifact in event.artifacts:
                    if artifact.id not in kept:
                        kept.add(artifact.id)
                        returned.append(artifact_record(turn_id, event.call.id, artifact, agent=by))
            elif isinstance(event, ActivityEvent):
                shown.take(event)  # journaled with the results (AC3); live till then (AC7)
                if draft.take(event):
                    self.drafts.changed(self.thread_id)
            elif draft.take(event):
                self.drafts.changed(self.thread_id)

        def compactions() -> list[NewRecord]:
            taken = [compaction_record(turn_id, summary, op) for summary, op in written]
            written.clear()
            return taken

        def artifacts() -> list[NewRecord]:
            taken = list(returned)
            returned.clear()
            return taken

        try:
            session = agent.session(transcript)
            journaled = len(session.messages) + (1 if task is not None else 0)
            stepped = 0  # the transcript's length at this run's last step (0: none yet)
            steps = session.iter(
                task,
                invocation_id=invocation_id,
                hooks=hooks,
                on_event=on_event,
                approver=approver,
                labels=turn.labels or None,
                host=self.host_maps.get(self.thread_id, turn.request_key),
            )
            async with steps:
                async for step in steps:
                    between = _between_steps(turn_id, step, stepped)
                    if isinstance(step, ModelStep):
                        totals = totals.plus(step.usage)
                        records = [
                            *compactions(),
                            *between,
                            encode(
                                "step",
                                turn=turn_id,
                                message=message_data(step.message),
                                usage=None
                                if step.usage is None
                                else step.usage.model_dump(mode="json"),
                                stop_reason=step.stop_reason.value,
                                totals=totals.to_data(),
                                **cost_field(step.cost),
                            ),
                        ]
                        asks = asks_for(agent, step.tool_calls)
                        if asks:  # park: the calls wait for a person's answer
                            records += [
                                encode(
                                    "interaction",
                                    turn=turn_id,
                                    kind=ask.kind,
                                    call=ask.call.id,
                                    question=ask.question,
                                    secret=ask.secret,
                                )
                                for ask in asks
                            ]
                            await self._append(records, active=False)
                            return
                        records += [
                            encode("dispatched", turn=turn_id, call=call.id)
                            for call in step.tool_calls
                        ]
                    elif isinstance(step, ToolStep):
                        records = [
                            *compactions(),
                            *between,
                            *artifacts(),
                            *shown.records(),
                            encode("results", turn=turn_id, message=message_data(step.results)),
                            *todo_records(agent, turn_id, step.calls, step.results),
                        ]
                    await self._append(records)
                    journaled = stepped = step.length
                    draft.activity.clear()  # committed with the results (AC3, AC7)
                    if isinstance(step, ModelStep):
                        replies += 1
                        self.drafts.drop(self.thread_id, draft)
                        draft = self.drafts.begin(
                            self.thread_id, turn_id, f"{turn_id}.{replies + 1}"
                        )
        except (asyncio.CancelledError, LeaseLostError, StoreUnavailableError):
            raise
        except Exception as error:
            if isinstance(operations.broken, (LeaseLostError, StoreUnavailableError)):
                raise operations.broken from error  # journaling a compaction's start
            # every error a run raises carries the run so far (core rule L9); what it
            # committed after its last step is journaled before the turn ends
            partial = getattr(error, "result", None)
            messages = getattr(partial, "messages", None) or []
            late = [
                *compactions(),
                *operations.failed(error),
                *artifacts(),
                *shown.records(),
                *(
                    encode("message", turn=turn_id, message=message_data(message))
                    for message in messages[journaled:]
                ),
            ]
            if late:
                await self._append(late)
            fold = await self.load(self.thread_id)
            text = str(error) if isinstance(error, RunError) else f"{type(error).__name__}: {error}"
            await self._end(fold, turn, "failed", text)
            return
        unjournaled = compactions()
        if unjournaled:
            await self._append(unjournaled)
        fold = await self.load(self.thread_id)
        await self._end(fold, turn, "done", None)


def _between_steps(turn_id: str, step: Step, stepped: int) -> list[NewRecord]:
    """What the run committed after its step that left the transcript `stepped`
    messages long (0: no step yet) and before `step`: the correction of a rejected
    final answer (core rule L94), a user message, journaled before `step`."""
    if not stepped or step.length - 1 <= stepped:
        return []
    return [
        encode("message", turn=turn_id, message=message_data(message))
        for message in step.messages[stepped : step.length - 1]
    ]


def _result(call: ToolUseBlock, text: str, is_error: bool) -> ToolResultBlock:
    return ToolResultBlock(tool_use_id=call.id, content=(TextBlock(text=text),), is_error=is_error)
