"""A run's journal: the records a runner writes, and the state they fold into.

A run is one thread of the store (`wf:<run id>`); its records are JSON objects with
`"v": 1`. The fold needs no graph: every record says what it changed (which activations
it scheduled, which join slots an output was delivered to), so any process folds the
same journal into the same state.

Kinds (fields besides `v`):

- `run_started`: `workflow`, `run_id`, `session_id`, `input` (JSON), `scheduled`.
- `runner`: `owner`, `generation`: a runner took the lease (a start or a resume).
- `activation_started`: `id`, `node`, `attempt` (1, 2, ... for the same id).
- `activation_finished`: `id`, `node`, `attempt`, `output` (JSON), `routes` (the nodes
  the output went to by edges and routes), `deliveries` (`[join, slot]` pairs) and
  `scheduled`: the activations this output made ready, each `{id, node, source}`
  where `source` is `{"from": id}`, `{"join": [ids]}` or `{"value": json}`.
- `activation_failed`: `id`, `node`, `attempt`, `error`.
- `run_finished`: `output`. `run_failed`: `error`, `activation` (or null).
- `run_stopped`: `node`, `code`, `message` (a guard's `StopReason`).
- `control`: `op` = `retry` (`activation`), `jump` (`node`, `scheduled`, `dropped`) or
  `cancel` (`reason`).
- `log`: `activation`, `message`, `data`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from automata.threads.store import NewRecord, Record
from automata.workflow._errors import WorkflowError

__all__ = [
    "FORMAT_VERSION",
    "Activation",
    "Entry",
    "RunState",
    "RunStatus",
    "decode",
    "encode",
    "entry",
    "reread",
]

FORMAT_VERSION = 1

RunStatus = Literal["running", "done", "failed", "stopped", "cancelled"]
"""Where a run stands: `running` (or interrupted: a runner may resume it), `done` (an
exit finished), `failed` (a node raised, or nothing was left to run), `stopped` (a guard
said so) or `cancelled`."""


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def dumps(value: Any) -> str:
    """`value` as canonical JSON (sorted keys, no spaces, UTF-8 text)."""
    return _CANONICAL.encode(value)


def encode(kind: str, /, **fields: Any) -> NewRecord:
    """A record of `kind` holding `fields`, as canonical JSON."""
    try:
        return NewRecord(kind, dumps({"v": FORMAT_VERSION, **fields}))
    except (TypeError, ValueError) as exc:
        raise WorkflowError(f"cannot journal a {kind} record: {exc}") from None


@dataclass(frozen=True, slots=True)
class Entry:
    """A record to append and its fields as `decode` reads them back from the journal,
    so the writer folds what it committed without parsing its own JSON again."""

    record: NewRecord
    data: dict[str, Any]


def entry(kind: str, /, **fields: Any) -> Entry:
    """`encode(kind, **fields)` with its fields kept. The fields must already be JSON
    values (dicts with string keys, lists, strings, numbers, booleans, None), so they
    equal what the journal gives back; other values go through `reread`."""
    data = {"v": FORMAT_VERSION, **fields}
    try:
        record = NewRecord(kind, dumps(data))
    except (TypeError, ValueError) as exc:
        raise WorkflowError(f"cannot journal a {kind} record: {exc}") from None
    return Entry(record, {key: data[key] for key in sorted(data)})


def reread(record: NewRecord) -> Entry:
    """`record` with its fields parsed from its JSON (for fields of any type)."""
    return Entry(record, json.loads(record.data))


def decode(record: Record) -> dict[str, Any]:
    """A record's fields. Raises `WorkflowError` for a damaged record or one of a newer
    format: nothing is guessed."""
    try:
        data = json.loads(record.data)
    except ValueError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("v"), int):
        raise WorkflowError(f"record {record.seq} of {record.thread_id!r} is damaged")
    if data["v"] > FORMAT_VERSION:
        raise WorkflowError(
            f"record {record.seq} of {record.thread_id!r} has format {data['v']}; this code "
            f"reads up to {FORMAT_VERSION}: upgrade automata-ai-workflow"
        )
    return data


@dataclass(slots=True)
class Activation:
    """One activation as the journal knows it."""

    id: str
    node: str
    source: dict[str, Any]
    attempts: int = 0
    state: Literal["pending", "started", "finished", "failed", "dropped"] = "pending"
    output: str | None = None


@dataclass(slots=True)
class RunState:
    """A run folded from its journal (records applied in order with `apply`)."""

    run_id: str = ""
    session_id: str = ""
    workflow: str = ""
    input: str = "null"
    status: RunStatus = "running"
    activations: dict[str, Activation] = field(default_factory=dict)
    pending: dict[str, None] = field(default_factory=dict)
    buffers: dict[str, dict[int, list[str]]] = field(default_factory=dict)
    output: str | None = None
    error: str | None = None
    failed_activation: str | None = None
    stop: tuple[str, str, str] | None = None
    cancel_reason: str | None = None
    started: int = 0
    last_seq: int = 0

    def input_of(self, activation: Activation) -> str:
        """The JSON text of `activation`'s input."""
        source = activation.source
        if "value" in source:
            return dumps(source["value"])
        if "from" in source:
            return self._output(source["from"])
        return "[" + ",".join(self._output(part) for part in source["join"]) + "]"

    def _output(self, activation_id: str) -> str:
        output = self.activations[activation_id].output
        if output is None:
            raise WorkflowError(f"activation {activation_id!r} has no output in the journal")
        return output

    def _schedule(self, scheduled: list[dict[str, Any]]) -> None:
        for item in scheduled:
            self.activations[item["id"]] = Activation(item["id"], item["node"], item["source"])
            self.pending[item["id"]] = None
            if "join" in item["source"]:
                for slot, part in enumerate(item["source"]["join"]):
                    queue = self.buffers.get(item["node"], {}).get(slot, [])
                    if part in queue:
                        queue.remove(part)

    def apply(self, seq: int, kind: str, data: dict[str, Any]) -> None:
        """Fold one record into the state."""
        self.last_seq = seq
        if kind == "run_started":
            self.run_id, self.session_id = data["run_id"], data["session_id"]
            self.workflow, self.input = data["workflow"], dumps(data["input"])
            self._schedule(data["scheduled"])
        elif kind == "activation_started":
            found = self.activations[data["id"]]
            found.state, found.attempts = "started", data["attempt"]
            self.started += 1
        elif kind == "activation_finished":
            found = self.activations[data["id"]]
            found.state, found.output = "finished", dumps(data["output"])
            self.pending.pop(found.id, None)
            for join, slot in data["deliveries"]:
                self.buffers.setdefault(join, {}).setdefault(slot, []).append(found.id)
            self._schedule(data["scheduled"])
        elif kind == "activation_failed":
            found = self.activations[data["id"]]
            found.state = "failed"
            self.status, self.error, self.failed_activation = "failed", data["error"], found.id
        elif kind == "run_finished":
            self.status, self.output = "done", dumps(data["output"])
        elif kind == "run_failed":
            self.status, self.error = "failed", data["error"]
            self.failed_activation = data.get("activation")
        elif kind == "run_stopped":
            self.status = "stopped"
            self.stop = (data["node"], data["code"], data["message"])
        elif kind == "control":
            self._control(data)

    def _control(self, data: dict[str, Any]) -> None:
        op = data["op"]
        if op == "retry":
            found = self.activations[data["activation"]]
            found.state = "pending"
            self.pending[found.id] = None
            self.status, self.error, self.failed_activation = "running", None, None
        elif op == "jump":
            for dropped in data["dropped"]:
                self.activations[dropped].state = "dropped"
            self.pending.clear()
            self.buffers.clear()
            self._schedule(data["scheduled"])
            self.status, self.error, self.failed_activation, self.stop = "running", None, None, None
        elif op == "cancel":
            self.status, self.cancel_reason = "cancelled", data["reason"]
