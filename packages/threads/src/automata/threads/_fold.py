"""A thread's state, folded from its journal: the only way the service learns anything.

`ThreadFold.apply` takes records in journal order; the fold is the same whether the
records arrive one commit at a time (live) or all at once (a reload, another process),
which is what makes views and ids identical in both cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from automata.core import (
    Activity,
    CompactionSummary,
    CostTally,
    Message,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from automata.threads._activity import activity_from
from automata.threads._artifacts import ArtifactInfo, artifact_info
from automata.threads._context import CONTEXT_KINDS, ContextFacts, ThreadContext
from automata.threads._labels import labels_from
from automata.threads._records import (
    Decoded,
    compaction_from,
    cost_from,
    message_from,
    turn_id_of,
    usage_from,
)
from automata.threads._todos import TodoList, todos_from

__all__ = ["CallState", "Entry", "InteractionState", "ThreadFold", "TurnState", "input_entry"]

TurnPhase = Literal[
    "queued", "running", "waiting", "done", "failed", "cancelled", "effect_outcome_unknown"
]


@dataclass(frozen=True, slots=True)
class Entry:
    """One transcript message, with the journal position it came from (`seq`), its
    turn (None for imported or forked messages) and its `key`, which names its view
    items (`<key>.<block>`): `<turn id>.0` for a turn's user input, `<turn id>.<n>` for
    the turn's n-th model reply (n from 1; a tool message takes the key of the reply
    it answers, with `.results`), `msg-<seq>` for a message outside any turn. A reply's
    key is known before the reply is committed (`ThreadFold.next_reply_key`), so a
    live draft carries the ids its committed items will have."""

    seq: int
    turn_id: str | None
    message: Message
    key: str = ""


@dataclass
class TurnState:
    """What the journal says about one turn."""

    turn_id: str
    seq: int
    message: Message
    supplemental: bool
    request_key: str = ""
    phase: TurnPhase = "queued"
    run: int = 0
    fingerprint: str = ""
    surface: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    started: bool = False
    replies: int = 0
    """How many model replies of this turn the journal holds (steps and late ones)."""
    labels: dict[str, str] = field(default_factory=dict)
    """The run labels its send gave (RL4), journaled with its input."""

    @property
    def finished(self) -> bool:
        return self.phase not in ("queued", "running", "waiting")


def input_entry(turn: TurnState) -> Entry:
    """The transcript entry of a turn's user input."""
    return Entry(turn.seq, turn.turn_id, turn.message, f"{turn.turn_id}.0")


@dataclass
class CallState:
    """One tool call: asked for at `seq` (block `block`), maybe dispatched, maybe
    answered. Results and dispatches name a call by id and go to the latest call with
    that id (the open one)."""

    call: ToolUseBlock
    turn_id: str | None
    seq: int
    block: int
    dispatched: bool = False
    result: ToolResultBlock | None = None
    activity: Activity | None = None
    """What the call showed a person (its latest `activity` record), if anything."""


@dataclass
class InteractionState:
    """A question to a person that parks a turn: an approval of a tool call, or an
    `ask_user` question. `answer` is what the journal holds (`[redacted]` for a secret
    answer); `approved` is set for an approval. `in_call` marks a question a tool
    call asked while it ran (`_call_questions`): it parks nothing, the call waits for
    it; `unanswerable` is why such a question can no longer be answered (the host
    stopped while the call waited), once the journal says so."""

    interaction_id: str
    seq: int
    turn_id: str
    kind: str
    call: CallState
    question: str
    secret: bool
    answered: bool = False
    approved: bool | None = None
    answer: str | None = None
    in_call: bool = False
    unanswerable: str | None = None


class ThreadFold:
    """The state of one thread as of `last_seq`."""

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        self.title = ""
        self.parent_id: str | None = None
        self.agent: str | None = None
        self.last_seq = 0
        self.entries: list[Entry] = []
        self.turns: dict[str, TurnState] = {}
        self.calls: dict[str, CallState] = {}
        self.positions: dict[tuple[int, int], CallState] = {}
        self.usage = Usage()
        self.costs = CostTally()
        """The steps' costs: `costs.cost` is None once a step was not priced."""
        self.retry_keys: set[str] = set()
        self.interactions: dict[str, InteractionState] = {}
        self.compactions: list[CompactionSummary] = []
        """The summaries the thread's compactors wrote, in journal order."""
        self.todos: TodoList | None = None
        """The to-do list in force: the latest `todos` record's."""
        self.todo_marks: list[tuple[int, TodoList]] = []
        """Each list with the transcript length it took effect at, in journal order
        (what a fork carries over)."""
        self.artifacts: dict[str, ArtifactInfo] = {}
        """The thread's artifacts by id, in journal order (the first record of an id
        stands)."""
        self.artifact_marks: dict[str, int] = {}
        """Each artifact's id with the transcript length it was journaled at (a fork
        copies those its cut reaches)."""
        self.context_facts = ContextFacts()
        """The context policy and compaction operations (docs/threads.md CX)."""

    # -- folding -------------------------------------------------------------------

    def apply(self, record: Decoded) -> None:
        """Fold one record in (records must come in journal order, each once)."""
        if record.seq <= self.last_seq:
            return
        self.last_seq = record.seq
        data = record.data
        kind = record.kind
        if kind == "created":
            self.title = str(data.get("title") or "")
            self.parent_id = data.get("parent_id")
            self.agent = data.get("agent")
        elif kind == "title":
            self.title = str(data.get("title") or "")
        elif kind == "message":
            self._add_message(record.seq, data.get("turn"), message_from(data["message"]))
        elif kind == "input":
            turn_id = turn_id_of(record.seq)
            self.turns[turn_id] = TurnState(
                turn_id,
                record.seq,
                message_from(data["message"]),
                bool(data.get("supplemental")),
                str(data.get("request_key") or ""),
                labels=labels_from(data),
            )
        elif kind == "input_cancelled":
            turn = self._turn(data)
            if not turn.started:  # one that started first runs on (cancel stops it)
                turn.phase = "cancelled"
        elif kind == "turn_started":
            turn = self._turn(data)
            if turn.phase == "cancelled" and not turn.started:
                return  # cancelled before a runner could start it
            if not turn.started:
                self.entries.append(input_entry(turn))
            turn.started = True
            turn.phase = "running"
            turn.run = int(data.get("run", 1))
            turn.fingerprint = str(data.get("fingerprint", ""))
            turn.surface = dict(data.get("surface") or {})
            turn.error = None
        elif kind == "step":
            turn = self._turn(data)
            self._add_message(record.seq, turn.turn_id, message_from(data["message"]))
            usage = usage_from(data.get("usage"))
            if usage is not None:
                self.usage = self.usage + usage
            self.costs.add(cost_from(data.get("cost")))
        elif kind == "stopped":
            turn = self._turn(data)
            # the cancel's draft, if the run's own commit of that reply did not get in
            # first (then the committed reply stands and the draft is left out)
            if turn.phase == "running" and int(data["reply"]) == turn.replies + 1:
                self._add_message(record.seq, turn.turn_id, message_from(data["message"]))
        elif kind == "dispatched":
            call = self.calls.get(str(data["call"]))
            if call is not None:
                call.dispatched = True
        elif kind == "results":
            self._add_message(record.seq, data.get("turn"), message_from(data["message"]))
        elif kind == "turn_ended":
            turn = self._turn(data)
            turn.phase = data["status"]
            turn.error = data.get("error")
        elif kind == "interaction":
            turn = self._turn(data)
            found = InteractionState(
                f"interaction-{record.seq}",
                record.seq,
                turn.turn_id,
                str(data["kind"]),
                self.calls[str(data["call"])],
                str(data.get("question") or ""),
                bool(data.get("secret")),
                in_call=bool(data.get("in_call")),
            )
            self.interactions[found.interaction_id] = found
            if not found.in_call:  # a running call waits for it; the turn runs on
                turn.phase = "waiting"
        elif kind == "answer":
            found = self.interactions[str(data["id"])]
            if found.answered:
                return  # the first answer stands
            found.answered = True
            found.approved = data.get("approved")
            found.answer = data.get("answer")
            found.unanswerable = data.get("unanswerable")
            turn = self.turns[found.turn_id]
            if turn.phase == "waiting" and not self.pending_interactions(turn.turn_id):
                turn.phase = "running"
        elif kind == "retry":
            self.retry_keys.add(str(data.get("request_key") or ""))
            turn = self._turn(data)
            turn.phase = "queued"
            turn.error = None
        elif kind == "compaction":
            self.compactions.append(compaction_from(data))
            self.context_facts.apply(record.seq, kind, data)
        elif kind in CONTEXT_KINDS:
            self.context_facts.apply(record.seq, kind, data)
        elif kind == "todos":
            self.todos = todos_from(record.seq, data)
            self.todo_marks.append((len(self.entries), self.todos))
        elif kind == "artifact":
            kept = artifact_info(record.seq, data)
            if kept.id not in self.artifacts:
                self.artifacts[kept.id] = kept
                self.artifact_marks[kept.id] = len(self.entries)
        elif kind == "activity":
            shown = self.calls.get(str(data.get("call")))
            if shown is not None:
                shown.activity = activity_from(record)
        # a kind this version does not know is kept in the journal and left out here

    def _turn(self, data: dict[str, Any]) -> TurnState:
        turn_id = str(data.get("turn"))
        turn = self.turns.get(turn_id)
        if turn is None:
            raise KeyError(f"journal names unknown turn {turn_id!r}")
        return turn

    def _add_message(self, seq: int, turn_id: str | None, message: Message) -> None:
        if message.role == "tool":
            # a call answered twice (a cancel racing the run's own results) keeps its
            # first result, so the transcript stays one the model accepts
            kept = tuple(
                block
                for block in message.content
                if not (
                    isinstance(block, ToolResultBlock)
                    and block.tool_use_id in self.calls
                    and self.calls[block.tool_use_id].result is not None
                )
            )
            if not kept:
                return
            if len(kept) != len(message.content):
                message = Message(role="tool", content=kept)
        turn = None if turn_id is None else self.turns.get(turn_id)
        if turn is None:
            key = f"msg-{seq}"
        elif message.role == "assistant":
            turn.replies += 1
            key = f"{turn.turn_id}.{turn.replies}"
        else:
            key = f"{turn.turn_id}.{turn.replies}.results"
        self.entries.append(Entry(seq, turn_id, message, key))
        for index, block in enumerate(message.content):
            if isinstance(block, ToolUseBlock) and message.role == "assistant":
                state = CallState(block, turn_id, seq, index)
                self.calls[block.id] = self.positions[(seq, index)] = state
            elif isinstance(block, ToolResultBlock):
                call = self.calls.get(block.tool_use_id)
                if call is not None:
                    call.result = block

    # -- reading -------------------------------------------------------------------

    def context(self) -> ThreadContext:
        """The thread's context record (docs/threads.md CX1)."""
        started = any(turn.started for turn in self.turns.values())
        return self.context_facts.record(
            self.thread_id,
            started,
            self.usage,
            lambda turn: turn in self.turns and self.turns[turn].finished,
        )

    def next_reply_key(self, turn_id: str) -> str:
        """The key the next model reply of `turn_id` will have once committed."""
        return f"{turn_id}.{self.turns[turn_id].replies + 1}"

    def pending_interactions(self, turn_id: str | None = None) -> list[InteractionState]:
        """Unanswered interactions of turns still going (of `turn_id` when given)."""
        return [
            found
            for found in self.interactions.values()
            if not found.answered
            and (turn_id is None or found.turn_id == turn_id)
            and not self.turns[found.turn_id].finished
        ]

    def interaction_for(self, call: CallState) -> InteractionState | None:
        """The interaction that gates `call`, if one does (a question the call asked
        while it ran gates nothing: see `asked_by`)."""
        for found in self.interactions.values():
            if found.call is call and not found.in_call:
                return found
        return None

    def asked_by(self, call: CallState) -> list[InteractionState]:
        """The questions `call` asked while it ran, in journal order."""
        return [
            found for found in self.interactions.values() if found.call is call and found.in_call
        ]

    @property
    def transcript(self) -> list[Message]:
        """The conversation as the model sees it (no system message)."""
        return [entry.message for entry in self.entries]

    @property
    def current(self) -> TurnState | None:
        """The turn that runs now or runs next: the first that has not finished."""
        for turn in self.turns.values():
            if not turn.finished:
                return turn
        return None

    @property
    def queue(self) -> list[TurnState]:
        """Accepted inputs waiting behind the current turn, in order."""
        waiting = [turn for turn in self.turns.values() if not turn.finished]
        return waiting[1:]

    @property
    def last_turn(self) -> TurnState | None:
        """The most recent turn that started (the one `retry` would run again)."""
        started = [turn for turn in self.turns.values() if turn.started]
        return started[-1] if started else None

    def answered(self, turn_id: str) -> bool:
        """Whether the transcript ends with an answer of `turn_id` (an assistant
        message of the turn calling no tool): the turn's run has nothing left to do,
        only its end may be missing from the journal."""
        if not self.entries:
            return False
        last = self.entries[-1]
        return (
            last.turn_id == turn_id
            and last.message.role == "assistant"
            and not last.message.tool_calls
        )

    def open_calls(self) -> list[CallState]:
        """Calls of the transcript's last message that have no result yet, in order."""
        if not self.entries:
            return []
        last = self.entries[-1].message
        if last.role != "assistant":
            return []
        return [
            self.calls[call.id]
            for call in last.tool_calls
            if call.id in self.calls and self.calls[call.id].result is None
        ]

    @property
    def status(self) -> str:
        """`running` while a turn runs or waits to run, `waiting` while it waits for a
        person's answer, else how the last turn ended (`idle` for a thread that never
        ran one)."""
        current = self.current
        if current is not None:
            return "waiting" if current.phase == "waiting" else "running"
        last = self.last_turn
        return "idle" if last is None else last.phase
