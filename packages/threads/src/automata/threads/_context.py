"""A thread's context record (docs/threads.md, CX1-CX5): the context policy its turns
run with, its usage totals, and the latest state of each compaction operation.

Records this module writes and reads (data fields besides `v`):

- `context_policy`: `turn`, `compactors` (each `max_tokens`, `keep_recent`,
  `recompute_every`, `summarizer`): the policy the turn's agent bounds its requests
  with, written with the turn's `turn_started` only when it differs from the policy
  in force (a journal without one: no compaction, every request carries the whole
  transcript).
- `compaction_started`: `turn`: a `Compactor` of the turn's agent is about to ask its
  summarizer; committed before the summarizer is called. Its id is
  `compaction-<seq>`.
- `compaction_ended`: `turn`, `op` (a started operation's id), `state` (`failed` or
  `interrupted`), `error` (text, or null).
- the `compaction` record of T25 completes an operation; it names it as `op` when it
  was started in the journal (a `compaction` record without `op`, as every journal
  written before operations has, is an operation of its own, completed).

The usage totals are disjoint as the core's `Usage` is: `input_tokens` counts only
input sent uncached, cache reads and cache writes are counted apart, so the four add
up to every token billed. Each `step` record carries the thread's totals after it as
`totals`, so a reader of the latest step needs not fold the journal.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from automata.core import Agent, Compactor, ModelRequest, ModelResponse, Usage
from automata.threads._records import encode
from automata.threads.store import Commit, NewRecord

__all__ = [
    "CompactionOperation",
    "CompactionPolicy",
    "CompactionState",
    "ContextFacts",
    "ContextPolicy",
    "ThreadContext",
    "TurnCompactions",
    "UsageTotals",
]

CompactionState = Literal["started", "completed", "failed", "interrupted"]
"""Where a compaction operation stands: `started` while its summarizer may still be
answering; the others are terminal."""

CONTEXT_KINDS = frozenset({"context_policy", "compaction_started", "compaction_ended"})
"""The record kinds this module adds (the `compaction` record is T25's)."""


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """Tokens a thread's model calls used, disjoint: `input_tokens` is input sent
    uncached, `cache_read_tokens` and `cache_write_tokens` the cached input read and
    written, `output_tokens` what came back (reasoning included). Their sum is every
    token billed (`total_tokens`); the input a request carried is
    `input_tokens + cache_read_tokens + cache_write_tokens`."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @classmethod
    def of(cls, usage: Usage) -> UsageTotals:
        """The totals of a core `Usage`, field for field (both are disjoint)."""
        return cls(
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )

    def plus(self, usage: Usage | None) -> UsageTotals:
        """These totals with one more call's usage (None: a call that reported none)."""
        if usage is None:
            return self
        added = UsageTotals.of(usage)
        return UsageTotals(
            self.input_tokens + added.input_tokens,
            self.output_tokens + added.output_tokens,
            self.cache_read_tokens + added.cache_read_tokens,
            self.cache_write_tokens + added.cache_write_tokens,
        )

    def to_data(self) -> dict[str, int]:
        """The `totals` field of a `step` record."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
        }


@dataclass(frozen=True, slots=True)
class CompactionPolicy:
    """How one `Compactor` bounds a turn's requests: past `max_tokens` (estimated),
    older messages are sent as a summary `summarizer` writes,
    `keep_recent` messages at least stay verbatim, and the summary is rewritten once
    `recompute_every` messages passed its cut. `summarizer` is `provider:model`, or
    the provider's name alone when it names no model."""

    max_tokens: int
    keep_recent: int
    recompute_every: int
    summarizer: str

    @classmethod
    def of(cls, compactor: Compactor) -> CompactionPolicy:
        summarizer = compactor.summarizer
        return cls(
            compactor.max_tokens,
            compactor.keep_recent,
            compactor.recompute_every,
            summarizer.provider_name
            if summarizer.model is None
            else f"{summarizer.provider_name}:{summarizer.model}",
        )

    def to_data(self) -> dict[str, Any]:
        return {
            "max_tokens": self.max_tokens,
            "keep_recent": self.keep_recent,
            "recompute_every": self.recompute_every,
            "summarizer": self.summarizer,
        }


@dataclass(frozen=True, slots=True)
class ContextPolicy:
    """The context policy in force: the `Compactor`s among the hooks of the agent
    the thread's latest turn started with, in hook order, as of `turn_id` (the turn
    that recorded it; None while the policy is the default). No compactor: every
    request carries the whole transcript."""

    compaction: tuple[CompactionPolicy, ...] = ()
    turn_id: str | None = None

    @property
    def bounded(self) -> bool:
        """Whether requests are kept inside a token budget."""
        return bool(self.compaction)


@dataclass(frozen=True, slots=True)
class CompactionOperation:
    """The latest record of one compaction operation. `operation_id` is
    `compaction-<seq>` of the record that opened it; `covered` and `key` are the
    summary's (completed operations only); `error` says why it failed or stopped."""

    operation_id: str
    turn_id: str | None
    state: CompactionState
    covered: int | None = None
    key: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ThreadContext:
    """A thread's context record, folded from its journal: `policy` (None before the
    first turn started), `usage` (the sum of every committed step's usage) and one
    `CompactionOperation` per operation, in the order they started."""

    thread_id: str
    policy: ContextPolicy | None
    usage: UsageTotals
    compactions: tuple[CompactionOperation, ...]


INTERRUPTED = "the turn stopped before the summary was written (a crash, a cancel)"


class ContextFacts:
    """What the journal says about a thread's context; `ThreadFold` feeds it."""

    def __init__(self) -> None:
        self.policy = ContextPolicy()
        self.operations: dict[str, CompactionOperation] = {}

    def apply(self, seq: int, kind: str, data: dict[str, Any]) -> None:
        turn = data.get("turn")
        if kind == "context_policy":
            self.policy = ContextPolicy(
                tuple(
                    CompactionPolicy(
                        int(item["max_tokens"]),
                        int(item["keep_recent"]),
                        int(item["recompute_every"]),
                        str(item["summarizer"]),
                    )
                    for item in data.get("compactors") or ()
                ),
                None if turn is None else str(turn),
            )
        elif kind == "compaction_started":
            op = f"compaction-{seq}"
            self.operations[op] = CompactionOperation(op, turn, "started")
        elif kind == "compaction_ended":
            op = str(data.get("op"))
            if op in self.operations and self.operations[op].state == "started":
                state: CompactionState = (
                    "failed" if data.get("state") == "failed" else "interrupted"
                )
                error = data.get("error")
                self.operations[op] = CompactionOperation(
                    op, turn, state, error=None if error is None else str(error)
                )
        elif kind == "compaction":
            named = data.get("op")
            op = str(named) if named in self.operations else f"compaction-{seq}"
            self.operations[op] = CompactionOperation(
                op, turn, "completed", int(data["covered"]), str(data["key"])
            )

    def open_operations(self) -> list[CompactionOperation]:
        """Operations no record ended."""
        return [op for op in self.operations.values() if op.state == "started"]

    def record(
        self, thread_id: str, started: bool, usage: Usage, finished: Callable[[str], bool]
    ) -> ThreadContext:
        """The context record; an operation left open by a turn that has ended reads as
        `interrupted` (`finished(turn_id)`)."""
        operations = tuple(
            CompactionOperation(op.operation_id, op.turn_id, "interrupted", error=INTERRUPTED)
            if op.state == "started" and op.turn_id is not None and finished(op.turn_id)
            else op
            for op in self.operations.values()
        )
        return ThreadContext(
            thread_id, self.policy if started else None, UsageTotals.of(usage), operations
        )


def policy_of(agent: Agent[Any]) -> ContextPolicy:
    """The policy `agent` bounds its requests with."""
    return ContextPolicy(
        tuple(CompactionPolicy.of(hook) for hook in agent.hooks if isinstance(hook, Compactor))
    )


def policy_records(facts: ContextFacts, agent: Agent[Any], turn_id: str) -> list[NewRecord]:
    """The `context_policy` record to write with `turn_id`'s start: none when the
    agent's policy is the one in force."""
    policy = policy_of(agent)
    if policy.compaction == facts.policy.compaction:
        return []
    return [
        encode(
            "context_policy",
            turn=turn_id,
            compactors=[item.to_data() for item in policy.compaction],
        )
    ]


def interrupted_records(facts: ContextFacts) -> list[NewRecord]:
    """`compaction_ended` records for the operations a stopped runner left open (the
    runner writing them holds the lease, so none of them is still running)."""
    return [
        encode(
            "compaction_ended",
            turn=op.turn_id,
            op=op.operation_id,
            state="interrupted",
            error=INTERRUPTED,
        )
        for op in facts.open_operations()
    ]


Append = Callable[[Sequence[NewRecord]], Awaitable[Commit]]


class TurnCompactions:
    """One run's compaction operations: `agent` is the turn's agent with each of its
    `Compactor`s replaced by one sharing its memory (`Compactor.sharing`) whose
    summarizer first commits a `compaction_started` record through `append`.
    Operations follow one another within a run, so the open one is the one the next
    summary (or failure) ends."""

    def __init__(self, agent: Agent[Any], turn_id: str, append: Append) -> None:
        self.turn_id = turn_id
        self.append = append
        self.open: str | None = None
        self.broken: BaseException | None = None
        """A journal write that failed while an operation started (raised again by the
        runner in place of the compaction error it caused)."""
        if any(isinstance(hook, Compactor) for hook in agent.hooks):
            agent = agent.replace()
            agent.hooks = tuple(
                hook.sharing(_JournaledSummarizer(hook.summarizer, self))
                if isinstance(hook, Compactor)
                else hook
                for hook in agent.hooks
            )
        self.agent = agent

    async def started(self) -> None:
        """Commit the start of an operation (once per operation)."""
        if self.open is not None:
            return  # the same operation asks again (the compactor has one call each)
        try:
            commit = await self.append([encode("compaction_started", turn=self.turn_id)])
        except BaseException as error:
            self.broken = error
            raise
        self.open = f"compaction-{commit.first_seq}"

    def completed(self) -> str | None:
        """The open operation's id, which the next `compaction` record completes."""
        op, self.open = self.open, None
        return op

    def failed(self, error: BaseException) -> list[NewRecord]:
        """The `compaction_ended` record of the open operation when the run failed."""
        op, self.open = self.open, None
        if op is None:
            return []
        return [
            encode(
                "compaction_ended",
                turn=self.turn_id,
                op=op,
                state="failed",
                error=str(error),
            )
        ]


class _JournaledSummarizer:
    """A summarizer that has the run journal the operation's start before it asks the
    summarizer it wraps; everything else passes through."""

    def __init__(self, inner: Any, run: TurnCompactions) -> None:
        self._inner = inner
        self._run = run

    @property
    def provider_name(self) -> str:
        return str(self._inner.provider_name)

    @property
    def model(self) -> str | None:
        model = self._inner.model
        return None if model is None else str(model)

    @property
    def supports_streaming(self) -> bool:
        return False

    @property
    def supports_native_output(self) -> bool:
        return bool(self._inner.supports_native_output)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        await self._run.started()
        response: ModelResponse = await self._inner.complete(request)
        return response
