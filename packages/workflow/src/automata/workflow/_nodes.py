"""Nodes: typed async functions, what they are told about their activation, and their
types as `compile` sees them.

A node is an async function of one input, `async def f(x: In) -> Out`, optionally with a
second parameter annotated `NodeContext`. Its input and output types come from its
annotations (`typing.get_type_hints`), which `compile` checks edge by edge and the
runner uses to (de)serialize inputs and outputs as JSON (pydantic `TypeAdapter`), so a
value crosses a checkpoint exactly as it would cross a process.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, get_type_hints

from pydantic import TypeAdapter

__all__ = [
    "ActivationInfo",
    "Node",
    "NodeContext",
    "activation_scope",
    "current_activation",
    "inspect_node",
]

I_contra = TypeVar("I_contra", contravariant=True)
O_co = TypeVar("O_co", covariant=True)

LogWriter = Callable[[str, str, Mapping[str, Any]], Awaitable[int]]


@dataclass(frozen=True, slots=True)
class ActivationInfo:
    """One activation of a node, as hooks and guards see it.

    `activation_id` is stable across resumes: the same activation run again after a
    crash (or by `retry`) has the same id and a higher `attempt` (1 first).
    `activations` counts the activations this run has started, this one included."""

    workflow: str
    run_id: str
    session_id: str
    node: str
    activation_id: str
    attempt: int
    activations: int

    @property
    def idempotency_key(self) -> str:
        """`<run id>/<activation id>`: the same for every attempt of this activation."""
        return f"{self.run_id}/{self.activation_id}"


@dataclass(frozen=True, slots=True)
class NodeContext:
    """What a node is told about its activation (declare a parameter of this type).

    Pass `idempotency_key` to the outside world with every side effect: after a crash
    the interrupted activation runs again with the same key (recovery is at-least-once;
    see docs/workflows.md, W6)."""

    info: ActivationInfo
    _log: LogWriter = field(repr=False, compare=False)

    @property
    def run_id(self) -> str:
        return self.info.run_id

    @property
    def session_id(self) -> str:
        return self.info.session_id

    @property
    def activation_id(self) -> str:
        return self.info.activation_id

    @property
    def node(self) -> str:
        return self.info.node

    @property
    def attempt(self) -> int:
        return self.info.attempt

    @property
    def idempotency_key(self) -> str:
        """`<run id>/<activation id>`, stable across resumes and retries."""
        return self.info.idempotency_key

    async def log(self, message: str, **data: Any) -> int:
        """Append a `log` entry (with JSON-ready `data`) to the run's log, fenced by
        the runner's lease; returns its sequence number in the run's history."""
        return await self._log(self.info.activation_id, message, data)


_CURRENT: ContextVar[NodeContext | None] = ContextVar("automata_workflow_activation", default=None)


def current_activation() -> NodeContext | None:
    """The `NodeContext` of the activation whose node call is running in this context,
    or None outside any node.

    Code a node calls without passing the context along (an agent's tools, a library
    callback) reads its activation here: `current_activation().idempotency_key` is the
    key to pass with a side effect. It follows the context as asyncio tasks and
    `contextvars.copy_context()` copy it (automata's sync-tool threads do)."""
    return _CURRENT.get()


@contextmanager
def activation_scope(context: NodeContext) -> Iterator[None]:
    """Make `context` the current activation for the code run inside the block."""
    token = _CURRENT.set(context)
    try:
        yield
    finally:
        _CURRENT.reset(token)


class Node(Generic[I_contra, O_co]):
    """A node of a workflow: made by `Workflow.node` or `Workflow.join`, used to wire
    edges. Compared by identity; `name` is unique within its workflow."""

    __slots__ = (
        "fn",
        "input_adapter",
        "input_type",
        "name",
        "output_adapter",
        "output_type",
        "takes_context",
    )

    def __init__(
        self,
        name: str,
        fn: Callable[..., Awaitable[Any]],
        input_type: Any,
        output_type: Any,
        takes_context: bool,
    ) -> None:
        self.name = name
        self.fn = fn
        self.takes_context = takes_context
        self.input_type = input_type
        self.output_type = output_type
        self.input_adapter: TypeAdapter[Any] = TypeAdapter(input_type)
        self.output_adapter: TypeAdapter[Any] = TypeAdapter(output_type)

    def __repr__(self) -> str:
        return f"Node({self.name!r})"


def inspect_node(fn: Callable[..., Awaitable[Any]], name: str) -> tuple[Any, Any, bool]:
    """The input type, output type and whether `fn` takes a `NodeContext`. Raises
    `TypeError` for a function that is not a node (not async, wrong parameters, or
    missing annotations)."""
    if not inspect.iscoroutinefunction(fn):
        raise TypeError(f"node {name!r} must be an async function")
    params = list(inspect.signature(fn).parameters.values())
    positional = [
        p
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    if len(positional) not in (1, 2) or len(positional) != len(params):
        raise TypeError(
            f"node {name!r} must take its input, and optionally a NodeContext, and nothing else"
        )
    hints = get_type_hints(fn)
    first = positional[0].name
    if first not in hints or "return" not in hints:
        raise TypeError(f"node {name!r} must annotate its input and its return type")
    takes_context = len(positional) == 2
    if takes_context and hints.get(positional[1].name) is not NodeContext:
        raise TypeError(f"the second parameter of node {name!r} must be annotated NodeContext")
    return hints[first], hints["return"], takes_context
