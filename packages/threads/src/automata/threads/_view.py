"""What a host shows: a thread's current view, its history and the thread list.

Everything here is derived from the journal by `ThreadFold`; nothing is stored that
could disagree with it. The one addition is the draft of the reply being written
(`Draft`, in this host's memory only), shown as live items. Item ids are
`<message key>.<block>` (see `Entry`), so an item has the same id and ordinal live,
once committed and after a reload, in any process.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from automata.core import Activity, Cost, Message, TextBlock, ThinkingBlock, ToolUseBlock, Usage
from automata.threads._activity import with_answer
from automata.threads._artifacts import ArtifactInfo
from automata.threads._call_questions import asked_items
from automata.threads._draft import Draft, is_stopped
from automata.threads._fold import Entry, ThreadFold, input_entry
from automata.threads._todos import TodoList

__all__ = [
    "HistoryEntry",
    "HistoryPage",
    "ItemKind",
    "ItemStatus",
    "QueuedInput",
    "ThreadPage",
    "ThreadSummary",
    "ThreadView",
    "ViewItem",
    "assemble_view",
    "build_view",
    "entry_items",
    "view_entries",
]

ItemKind = Literal["user", "thinking", "assistant", "tool_call", "interaction"]
ItemStatus = Literal["pending", "running", "done", "error", "answered", "closed", "stopped"]


@dataclass(frozen=True, slots=True)
class ViewItem:
    """One renderable item. `id` is stable and `ordinal` is its place in the view;
    both are the same live and after a reload. Ids are `<turn id>.0.0` for a turn's
    user input, `<turn id>.<n>.<block>` for block `block` of the turn's n-th model
    reply (n from 1), `msg-<seq>.<block>` for an imported or forked message, and the
    `interaction_id` for an interaction.

    `live` is True for an item of the reply being written (the draft, T22): its
    `text` grows, and a `tool_call` item being written has `partial_input` (the
    argument JSON written so far) and no `tool_input` yet; it is replaced in place by
    the committed item. A `thinking` or `assistant` item of a reply a cancel cut
    short (T26) has `status` `stopped`; other text items have none.

    `text` is the user's or the model's text (or thinking); a `tool_call` item has
    `tool_name`, `tool_input`, `call_id`, `status` (`pending`: asked for, not yet
    dispatched; `running`: dispatched, no outcome yet; `done` or `error`) and, once it
    has one, `result` (the result's text). An `interaction` item (right after the call
    it gates or answers) asks a person: `interaction_id` is what `respond` takes,
    `interaction_kind` is `approval` or `question`, `text` the question, `status`
    `pending`, `answered` or `closed` (its turn ended unanswered), `result` the answer
    (`[redacted]` for a secret one). A question a call asked while it ran follows the
    call's item the same way; one that can no longer be answered is `closed` with the
    reason as its `result`.

    `activity` is what a `tool_call` item's tool showed a person (AC rules: a label,
    rows, a status, a sub-agent operation), None when it showed nothing; a question's
    call and its `interaction` item carry the answer summary in it once answered
    (only `redacted` for a secret answer)."""

    id: str
    ordinal: int
    kind: ItemKind
    turn_id: str | None
    text: str = ""
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None
    call_id: str | None = None
    status: ItemStatus | None = None
    result: str | None = None
    interaction_id: str | None = None
    interaction_kind: str | None = None
    partial_input: str | None = None
    live: bool = False
    activity: Activity | None = None
    labels: dict[str, str] | None = None
    """A turn's `user` item: the run labels its send gave (RL4), None without."""


@dataclass(frozen=True, slots=True)
class QueuedInput:
    """An accepted input waiting behind the running turn; `cancel_queued` takes it off."""

    turn_id: str
    text: str


@dataclass(frozen=True, slots=True)
class ThreadView:
    """A thread as it stands at journal position `version` (its `last_seq`), plus,
    in the process running its turn, the draft of the reply being written.

    `version` counts committed records only: two views with the same `version` show
    the same committed items in every process. `live` is 0 when the view shows
    committed items only, else the revision of the draft it merges (it grows with
    each delta and goes back to 0 when the step commits, while `version` moves on);
    `(version, live)` orders the views a subscriber is given.

    `status` is `running` while a turn runs or waits to run, `waiting` while it waits
    for a person (see the `interaction` items), else how the last turn
    ended (`done`, `failed`, `cancelled`, `effect_outcome_unknown`) or `idle`. `error`
    is the last turn's error text. `usage` totals every committed model step, and
    `cost` what they cost as the turns' agents priced them (core rules L95-L96): None
    when a step was not priced (an agent without `prices`, a model its table does not
    know, a step journaled before costs were), never a partial sum.

    `compactions` counts the summaries the thread's compactors wrote (its `compaction`
    records, T25) and `compacted` is how many request messages the latest one stands
    for (0 before the first).

    `todos` is the thread's to-do list as its latest `todos` record holds it (TD1):
    None until a call of a `todo_tool()` succeeds (or a fork carries a list over).

    `artifacts` are the thread's artifacts in journal order (AR4), each once; read
    one with `ThreadService.artifact`."""

    thread_id: str
    parent_id: str | None
    title: str
    status: str
    items: tuple[ViewItem, ...]
    queue: tuple[QueuedInput, ...]
    usage: Usage
    version: int
    current_turn: str | None
    error: str | None = None
    live: int = 0
    compactions: int = 0
    compacted: int = 0
    cost: Cost | None = None
    todos: TodoList | None = None
    artifacts: tuple[ArtifactInfo, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The view as JSON-ready data (for an HTTP response or a server-sent event)."""
        data = asdict(self)
        data["usage"] = self.usage.model_dump(mode="json")
        data["cost"] = None if self.cost is None else self.cost.model_dump(mode="json")
        return data


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One transcript message at `index` (0 for the first), with its turn."""

    index: int
    turn_id: str | None
    message: Message


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """A page of a thread's transcript; `next_after` continues it (None at the end)."""

    entries: tuple[HistoryEntry, ...]
    next_after: int | None


@dataclass(frozen=True, slots=True)
class ThreadSummary:
    """A thread in a list: `active` says it has work to finish."""

    thread_id: str
    parent_id: str | None
    title: str
    created_at: float
    updated_at: float
    active: bool
    ordinal: int


@dataclass(frozen=True, slots=True)
class ThreadPage:
    """Threads newest first; pass `next_before` as `before` for the next page (None
    when this page is the last)."""

    threads: tuple[ThreadSummary, ...]
    next_before: int | None


def _message_items(
    entry: Entry, fold: ThreadFold, running: Mapping[str, Activity] | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """The items of one committed message; `running` is the live activity of the calls
    that run now (AC7), shown on a call until its results commit its own."""
    message = entry.message
    if message.role == "user":
        text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
        turn = None if entry.turn_id is None else fold.turns.get(entry.turn_id)
        labels = None
        if turn is not None and turn.seq == entry.seq and turn.labels:
            labels = dict(turn.labels)
        return [(f"{entry.key}.0", {"kind": "user", "text": text, "labels": labels})]
    if message.role != "assistant":
        return []
    items: list[tuple[str, dict[str, Any]]] = []
    mark: dict[str, Any] = {"status": "stopped"} if is_stopped(message) else {}
    for index, block in enumerate(message.content):
        key = f"{entry.key}.{index}"
        if isinstance(block, ThinkingBlock):
            items.append((key, {"kind": "thinking", "text": block.thinking, **mark}))
        elif isinstance(block, TextBlock):
            items.append((key, {"kind": "assistant", "text": block.text, **mark}))
        elif isinstance(block, ToolUseBlock):
            call = fold.positions.get((entry.seq, index))
            status: ItemStatus = "pending"
            result: str | None = None
            if call is not None and call.result is not None:
                status = "error" if call.result.is_error else "done"
                result = call.result.text
            elif call is not None and call.dispatched:
                status = "running"
            asked = None if call is None else fold.interaction_for(call)
            activity = None if call is None else call.activity
            if status == "running" and running and block.id in running:
                activity = running[block.id]
            if asked is not None and asked.kind == "question" and asked.answered:
                activity = with_answer(activity, asked.answer, secret=asked.secret)
            items.append(
                (
                    key,
                    {
                        "kind": "tool_call",
                        "tool_name": block.name,
                        "tool_input": dict(block.input),
                        "call_id": block.id,
                        "status": status,
                        "result": result,
                        "activity": activity,
                    },
                )
            )
            if asked is not None:
                state: ItemStatus = "answered" if asked.answered else "pending"
                if not asked.answered and fold.turns[asked.turn_id].finished:
                    state = "closed"
                items.append(
                    (
                        asked.interaction_id,
                        {
                            "kind": "interaction",
                            "text": asked.question,
                            "tool_name": block.name,
                            "call_id": block.id,
                            "status": state,
                            "result": asked.answer,
                            "interaction_id": asked.interaction_id,
                            "interaction_kind": asked.kind,
                            "activity": activity if asked.kind == "question" else None,
                        },
                    )
                )
            if call is not None:
                items.extend(asked_items(fold, call, block.name))
    return items


def entry_items(
    entry: Entry,
    fold: ThreadFold,
    start: int,
    running: Mapping[str, Activity] | None = None,
) -> list[ViewItem]:
    """The items of one transcript entry as `fold` stands, numbered from `start`, a
    running call showing its live activity from `running` (see `running_activity`)."""
    return [
        ViewItem(id=key, ordinal=start + n, turn_id=entry.turn_id, **fields)
        for n, (key, fields) in enumerate(_message_items(entry, fold, running))
    ]


def view_entries(fold: ThreadFold) -> list[Entry]:
    """The entries a view shows: the transcript, then the input of a current turn
    that has not started yet."""
    entries = list(fold.entries)
    current = fold.current
    if current is not None and not current.started:
        entries.append(input_entry(current))
    return entries


def running_activity(fold: ThreadFold, draft: Draft | None) -> Mapping[str, Activity] | None:
    """The live activity of the calls running now (AC7): the draft's, when `draft` is
    the next reply of the turn running now; None otherwise."""
    current = fold.current
    if (
        draft is not None
        and current is not None
        and current.turn_id == draft.turn_id
        and current.phase == "running"
        and fold.next_reply_key(current.turn_id) == draft.key
    ):
        return draft.activity
    return None


def build_view(fold: ThreadFold, draft: Draft | None = None) -> ThreadView:
    """The view of a folded thread, with `draft` merged when it is the next reply of
    the turn running now (a draft its step already committed, or of a turn that
    stopped, is left out)."""
    running = running_activity(fold, draft)
    items: list[ViewItem] = []
    for entry in view_entries(fold):
        items += entry_items(entry, fold, len(items), running)
    return assemble_view(fold, items, draft)


def assemble_view(fold: ThreadFold, items: list[ViewItem], draft: Draft | None) -> ThreadView:
    """The view of `fold` whose committed items are `items` (as `build_view` numbers
    them), with `draft` merged as `build_view` merges it."""
    current = fold.current
    merged = (
        draft is not None
        and current is not None
        and current.turn_id == draft.turn_id
        and current.phase == "running"
        and fold.next_reply_key(current.turn_id) == draft.key
    )
    live = 0
    if merged and draft is not None and (draft.blocks or draft.activity):
        live = draft.revision
        items = list(items)
        for index, block in enumerate(draft.blocks):
            items.append(
                ViewItem(
                    id=f"{draft.key}.{index}",
                    ordinal=len(items),
                    turn_id=draft.turn_id,
                    live=True,
                    **block.fields(),
                )
            )
    last = fold.last_turn
    return ThreadView(
        thread_id=fold.thread_id,
        parent_id=fold.parent_id,
        title=fold.title,
        status=fold.status,
        items=tuple(items),
        queue=tuple(QueuedInput(turn.turn_id, turn.message.text) for turn in fold.queue),
        usage=fold.usage,
        cost=fold.costs.cost,
        version=fold.last_seq,
        current_turn=None if current is None else current.turn_id,
        error=None if last is None or current is not None else last.error,
        live=live,
        compactions=len(fold.compactions),
        compacted=fold.compactions[-1].covered if fold.compactions else 0,
        todos=fold.todos,
        artifacts=tuple(fold.artifacts.values()),
    )
