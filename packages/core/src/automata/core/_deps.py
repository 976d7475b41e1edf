"""The per-run dependencies type and the context dynamic prompts see.

`deps` is whatever object a caller hands a run (`agent.run(task, deps=db)`): a
database handle, the current user. The library never looks inside it; it passes it
to the run's tools (`ToolContext.deps`) and dynamic prompts (`RunContext.deps`).
`Agent[DepsT]` makes `mypy --strict` check, at the call site, that the object given
is of the agent's declared type.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

from automata.core._labels import EMPTY_HOST, NO_LABELS, RunLabels

if TYPE_CHECKING:
    from automata.core._events import StreamEvent

__all__ = ["DepsT", "RunContext"]

DepsT = TypeVar("DepsT", default=None)
"""The type of the object a run hands its tools and prompts as `deps` (None when the
agent declares none)."""


@dataclass(frozen=True, slots=True)
class RunContext(Generic[DepsT]):
    """What a dynamic system prompt or instructions function sees of its run: the
    run's `deps` (None when the run was given none), the agent's name and the run's
    invocation id.

    The context a pre-send hook is given (L86) also carries the run's nesting `depth`
    (0 at the top level) and `emit`, which reports a `StreamEvent` to the run's stream
    (`agent.stream`, `iter(on_event=...)`) as it happens; it does nothing when no one
    listens, and everywhere else. `emit` takes no part in comparison or `repr`."""

    deps: DepsT
    agent: str
    invocation_id: str
    depth: int = 0
    emit: Callable[[StreamEvent], None] = field(
        default=lambda event: None, compare=False, repr=False
    )
    labels: RunLabels = field(default=NO_LABELS, compare=False)
    """The run's correlation labels (set for a pre-send hook's context)."""
    host: Mapping[str, Any] = field(default_factory=lambda: EMPTY_HOST, compare=False, repr=False)
    """The run's opaque host map (set for a pre-send hook's context)."""
