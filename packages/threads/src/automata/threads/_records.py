"""The journal's record kinds and their JSON: what the thread service writes.

Every record's `data` is a JSON object with `"v": 1` (the record format version) and
the fields below. Messages are the core's `Message`, dumped as pydantic dumps them
(JSON mode), so a journal holds the core's blocks exactly. A turn is named by the
sequence number of the `input` record that asked for it (`turn-<seq>`), so its id is
the same in every process and after every reload.

Kinds (data fields besides `v`):

- `created`: `title`, `parent_id`, `agent` (the name the factory is told, or null):
  the thread's first record.
- `title`: `title`.
- `message`: `message`, `turn` (or null): a transcript message no step delivered: an
  imported or forked one (no turn), or one a failed run committed after its last step.
- `input`: `message` (a user message), `request_key` (the send's), `supplemental`
  (whether the send carried supplemental context, which is never stored): a turn
  asked for.
- `input_cancelled`: `turn`: a queued input taken off the queue before it started.
- `turn_started`: `turn`, `run` (1, then 2.. for each retry), `surface` (what the
  agent looked like) and `fingerprint` (its hash).
- `step`: `turn`, `message` (the assistant's), `usage` (or null), `stop_reason`, and
  `cost` (the core's `Cost`, its amount a string) when the agent's price table priced
  the call; left out otherwise, so a step of an agent without prices is written as
  before, and a journal written before the field reads as unpriced.
- `stopped`: `turn`, `reply` (the reply's number in its turn, from 1), `message`
  (an assistant message marked stopped in its `extra`, text and thinking only): what
  a cancelled turn's model had streamed of reply `reply`, committed by the cancel.
  It joins the transcript only when the turn's journal holds `reply - 1` replies at
  that point (a run's own commit of the same reply, racing the cancel, stands).
- `dispatched`: `turn`, `call` (a tool call id): committed before the call may run.
- `results`: `turn`, `message` (the tool message answering the last step's calls).
- `turn_ended`: `turn`, `status` (`done`, `failed`, `cancelled`,
  `effect_outcome_unknown`), `error` (text, or null).
- `interaction`: `turn`, `kind` (`approval` or `question`), `call` (the call it
  gates or answers), `question`, `secret`: the turn waits for a person. Its id is
  `interaction-<seq>`. With `in_call: true` it is a question the call asked while it
  ran (`_call_questions`): the call waits for it and the turn does not park; a
  journal without the field reads as before.
- `answer`: `id` (the interaction's), `approved` (for an approval), `reason`, `answer`
  (a question's answer; `[redacted]` for a secret one); `unanswerable` (the reason)
  instead closes a call's question that can no longer be answered.
- `retry`: `turn`, `request_key`: the failed turn runs again from where its
  transcript stands.
- `compaction`: `turn`, `key`, `covered`, `summary`: a summary a `Compactor` among
  the turn's agent's hooks wrote for one of the turn's requests (the core's
  `CompactionSummary`, field for field), journaled with the step whose request it
  compacted (or, when that call failed, before the turn ends). Each turn hands the
  thread's summaries back to its agent's compactors (`Compactor.remember`). `op`,
  when present, names the compaction operation it completes (see `_context`).
- `context_policy`, `compaction_started`, `compaction_ended`: the context record's
  (see `_context`). A `step` record also carries `totals`, the thread's usage totals
  after it (a step written before the field has none).
- `todos`: `turn`, `call` (both null for a list a fork carried over), `items` (each
  `content`, `status`, `priority`): the thread's to-do list from then on, committed
  with the result of the `todo_tool()` call that set it (docs/threads.md TD2).
- `activity`: `turn`, `call`, `activity` (the core's `Activity`, as its `to_data`
  writes it): what a tool call showed a person, journaled with the call's results
  (see `_activity`); the latest one of a call stands.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from automata.core import CompactionSummary, Cost, Message, TranscriptError, Usage
from automata.threads.store import NewRecord, Record

__all__ = [
    "FORMAT_VERSION",
    "TurnStatus",
    "compaction_from",
    "compaction_record",
    "cost_field",
    "cost_from",
    "decode",
    "decode_new",
    "encode",
    "message_data",
    "message_from",
    "turn_id_of",
    "usage_from",
]

FORMAT_VERSION = 1
"""The version every record this code writes carries as `v`, and the newest it reads."""

TurnStatus = Literal["done", "failed", "cancelled", "effect_outcome_unknown"]
"""How a turn ended."""


@dataclass(frozen=True, slots=True)
class Decoded:
    """A record read back: its place, kind and fields."""

    seq: int
    kind: str
    data: dict[str, Any]
    at: float


def encode(kind: str, /, **fields: Any) -> NewRecord:
    """A record of `kind` with `fields`, as canonical JSON (sorted keys, no NaN)."""
    try:
        text = json.dumps(
            {"v": FORMAT_VERSION, **fields},
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
            allow_nan=False,
        )
    except ValueError as exc:
        raise TranscriptError(f"cannot journal a {kind} record: {exc}") from None
    return NewRecord(kind, text)


def decode(record: Record) -> Decoded:
    """The fields of a committed record. Raises `TranscriptError` for a record written
    by a newer format version or damaged; nothing is guessed."""
    try:
        data = json.loads(record.data)
    except ValueError as exc:
        raise TranscriptError(
            f"journal record {record.seq} of thread {record.thread_id!r} is not JSON: {exc}"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("v"), int):
        raise TranscriptError(
            f"journal record {record.seq} of thread {record.thread_id!r} has no version"
        )
    if data["v"] > FORMAT_VERSION:
        raise TranscriptError(
            f"journal record {record.seq} of thread {record.thread_id!r} has format "
            f"version {data['v']}; this code reads up to {FORMAT_VERSION}: upgrade "
            "automata-ai-threads"
        )
    return Decoded(record.seq, record.kind, data, record.at)


def decode_new(thread_id: str, seq: int, record: NewRecord) -> Decoded:
    """`decode` of `record` as committed at `seq` (its commit time unknown: 0.0; the
    fold does not read it)."""
    return decode(Record(thread_id, seq, record.kind, record.data, 0.0))


def message_data(message: Message) -> dict[str, Any]:
    """A message as JSON-ready data."""
    return message.model_dump(mode="json")


def message_from(data: object) -> Message:
    """The message `message_data` wrote."""
    return Message.model_validate(data)


def usage_from(data: object) -> Usage | None:
    """The usage a `step` record holds, or None."""
    return None if data is None else Usage.model_validate(data)


def cost_field(cost: Cost | None) -> dict[str, Any]:
    """A `step` record's `cost` field: none at all when the step was not priced."""
    return {} if cost is None else {"cost": cost.model_dump(mode="json")}


def cost_from(data: object) -> Cost | None:
    """The cost a `step` record holds, or None (unpriced, or written before costs)."""
    return None if data is None else Cost.model_validate(data)


def compaction_record(turn_id: str, summary: CompactionSummary, op: str | None = None) -> NewRecord:
    """The `compaction` record of a summary written during turn `turn_id`, naming the
    compaction operation `op` it completes when one was journaled (docs/threads.md CX3)."""
    named = {} if op is None else {"op": op}
    return encode(
        "compaction",
        turn=turn_id,
        key=summary.key,
        covered=summary.covered,
        summary=summary.summary,
        **named,
    )


def compaction_from(data: dict[str, Any]) -> CompactionSummary:
    """The summary a `compaction` record holds."""
    return CompactionSummary(
        key=str(data["key"]), covered=int(data["covered"]), summary=str(data["summary"])
    )


def turn_id_of(seq: int) -> str:
    """The id of the turn asked for by the `input` record at `seq`."""
    return f"turn-{seq}"
