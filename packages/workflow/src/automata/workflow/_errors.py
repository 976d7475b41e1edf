"""The errors of typed workflows: wiring errors found by `compile`, and run errors.

Every error derives from `WorkflowError` (an `AutomataError`). Wiring errors derive from
`WiringError` and name the nodes involved; they are raised by `Workflow.compile`, before
anything runs. Run errors say what the run's journal holds: a run that raised one of
them can be looked at with `history` and, where the docs say so, resumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from automata.core import AutomataError

__all__ = [
    "HistoryLimitError",
    "InvalidIdError",
    "JoinNeverFiresError",
    "MissingEntryError",
    "MissingExitError",
    "NodeFailedError",
    "PageBoundError",
    "RunBusyError",
    "RunCancelledError",
    "RunConflictError",
    "RunLeaseLostError",
    "RunNotFoundError",
    "RunStalledError",
    "RunStateError",
    "RunStoppedError",
    "StopReason",
    "TypeMismatchError",
    "UnreachableNodeError",
    "UnroutedOutputError",
    "WiringError",
    "WorkflowError",
]


def type_name(tp: Any) -> str:
    """A readable name for a type hint."""
    if isinstance(tp, type):
        return tp.__qualname__
    return repr(tp).replace("typing.", "")


class WorkflowError(AutomataError):
    """Base of every workflow error."""


class WiringError(WorkflowError):
    """The workflow's graph is wrong; `compile` found it before any run. `nodes` names
    the nodes involved."""

    def __init__(self, message: str, nodes: tuple[str, ...]) -> None:
        super().__init__(message)
        self.nodes = nodes


class MissingEntryError(WiringError):
    """No entry node was declared."""

    def __init__(self, workflow: str) -> None:
        super().__init__(f"workflow {workflow!r} has no entry node", ())


class MissingExitError(WiringError):
    """No exit node was declared, so no run could ever finish."""

    def __init__(self, workflow: str) -> None:
        super().__init__(f"workflow {workflow!r} has no exit node", ())


class UnreachableNodeError(WiringError):
    """No path from the entry reaches `node`."""

    def __init__(self, node: str) -> None:
        super().__init__(f"node {node!r} is unreachable from the entry", (node,))
        self.node = node


class TypeMismatchError(WiringError):
    """What `source` gives cannot be what `target` takes."""

    def __init__(self, source: str, target: str, given: Any, taken: Any, detail: str = "") -> None:
        more = f" ({detail})" if detail else ""
        super().__init__(
            f"{source!r} gives {type_name(given)} but {target!r} takes {type_name(taken)}{more}",
            (source, target),
        )
        self.source = source
        self.target = target
        self.given = given
        self.taken = taken


class UnroutedOutputError(WiringError):
    """A node that is not an exit can give a value (of `output_type`) that no edge, route
    or join carries on: a dead end."""

    def __init__(self, node: str, output_type: Any) -> None:
        super().__init__(
            f"node {node!r} can give {type_name(output_type)}, which nothing carries on "
            "(add an edge, a route or a join, or make it an exit)",
            (node,),
        )
        self.node = node
        self.output_type = output_type


class JoinNeverFiresError(WiringError):
    """The join `join` waits for `sources`, which can never all deliver in one run."""

    def __init__(self, join: str, sources: tuple[str, ...], reason: str) -> None:
        super().__init__(
            f"join {join!r} can never fire: {reason}",
            (join, *sources),
        )
        self.join = join
        self.sources = sources
        self.reason = reason


class InvalidIdError(WorkflowError, ValueError):
    """An id (given or generated) is not valid: empty, not UTF-8, longer than 191 bytes,
    holding a NUL or ending in a space."""

    def __init__(self, kind: str, value: object, reason: str) -> None:
        super().__init__(f"invalid {kind} id {value!r}: {reason}")
        self.kind = kind
        self.value = value
        self.reason = reason


class PageBoundError(WorkflowError, ValueError):
    """A page limit outside 1..the bound: never answered with a short page."""


class HistoryLimitError(WorkflowError):
    """The run's journal is longer than the bound a runner reads; nothing was guessed."""


class RunNotFoundError(WorkflowError, LookupError):
    """No run has this id."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"no run with id {run_id!r}")
        self.run_id = run_id


class RunConflictError(WorkflowError):
    """The run id is taken by a run of another workflow, or with another input."""


class RunStateError(WorkflowError):
    """The run is not in a state that allows this (e.g. retrying a run that did not fail)."""


class RunBusyError(WorkflowError):
    """Another runner holds the run's lease and is alive (it renews it)."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"run {run_id!r} is being run by another runner")
        self.run_id = run_id


class RunLeaseLostError(WorkflowError):
    """This runner lost the run's lease (taken over after an expiry, or revoked): it
    stopped, and its late writes were refused. Another runner may be running the run."""

    def __init__(self, run_id: str, owner: str) -> None:
        super().__init__(f"runner {owner!r} lost the lease of run {run_id!r} and stopped")
        self.run_id = run_id
        self.owner = owner


class NodeFailedError(WorkflowError):
    """A node raised; the run is `failed` and can be retried (`retry`) or moved back
    (`jump`). `__cause__` is the node's exception when it was raised in this process."""

    def __init__(self, run_id: str, node: str, activation_id: str, error: str) -> None:
        super().__init__(f"node {node!r} of run {run_id!r} failed: {error}")
        self.run_id = run_id
        self.node = node
        self.activation_id = activation_id
        self.error = error


class RunStalledError(WorkflowError):
    """Nothing is left to run and no exit was reached (no route matched an output, or a
    join is still waiting): the run is `failed`."""


class RunCancelledError(WorkflowError):
    """The run was cancelled (`cancel`); its journal says why."""

    def __init__(self, run_id: str, reason: str) -> None:
        super().__init__(f"run {run_id!r} was cancelled: {reason}")
        self.run_id = run_id
        self.reason = reason


@dataclass(frozen=True, slots=True)
class StopReason:
    """Why a guard stopped a run: a machine-readable `code` and a `message`."""

    code: str
    message: str


class RunStoppedError(WorkflowError):
    """A guard stopped the run before an activation of `node`; `reason` says why."""

    def __init__(self, run_id: str, node: str, reason: StopReason) -> None:
        super().__init__(f"run {run_id!r} stopped before {node!r}: {reason.code}: {reason.message}")
        self.run_id = run_id
        self.node = node
        self.reason = reason
