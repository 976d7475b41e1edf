"""Building a workflow: nodes, edges, routes, fan-out, joins, entry and exit.

`Workflow[In, Out]` is a builder; `compile()` checks the wiring (see `_compile`) and
returns the `CompiledWorkflow` that runs. The builder's signatures let mypy check
wiring at the call site where types allow: `edge(a, b)` needs `a`'s output to be `b`'s
input, `entry` needs a node taking `In`, `exit` one giving `Out`, and a join's function
takes exactly the tuple (or list) of its sources' outputs. A `route` goes to a node
taking one member of a union output; mypy cannot check that, `compile` does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, overload

from automata.workflow._nodes import Node, NodeContext, inspect_node

if TYPE_CHECKING:
    from automata.threads.store import ThreadStore
    from automata.workflow._compiled import CompiledWorkflow
    from automata.workflow._events import EventSink
    from automata.workflow._hooks import Guard, Middleware
    from automata.workflow._ids import Ids

__all__ = ["Edge", "JoinBuilder", "Workflow"]

In = TypeVar("In")
Out = TypeVar("Out")
I = TypeVar("I")  # noqa: E741
O = TypeVar("O")  # noqa: E741
T = TypeVar("T")
A = TypeVar("A")
B = TypeVar("B")
C = TypeVar("C")
D = TypeVar("D")
J = TypeVar("J")


@dataclass(frozen=True, slots=True)
class Edge:
    """`source` hands its output to `target`: always (`edge`, unless `when` says no),
    or when the output is of the type `target` takes (`route`)."""

    source: str
    target: str
    kind: Literal["edge", "route"]
    when: Callable[[Any], bool] | None = None


class JoinBuilder(Generic[J]):
    """Made by `Workflow.join`: decorate the join's function with it."""

    def __init__(self, workflow: Workflow[Any, Any], sources: tuple[Node[Any, Any], ...]) -> None:
        self._workflow = workflow
        self._sources = sources

    @overload
    def __call__(self, fn: Callable[[J], Awaitable[O]], /) -> Node[J, O]: ...

    @overload
    def __call__(self, fn: Callable[[J, NodeContext], Awaitable[O]], /) -> Node[J, O]: ...

    def __call__(self, fn: Callable[..., Awaitable[Any]], /) -> Node[Any, Any]:
        node: Node[Any, Any] = self._workflow.node(fn)
        self._workflow._joins[node.name] = tuple(source.name for source in self._sources)
        return node


class Workflow(Generic[In, Out]):
    """A typed workflow under construction: `Workflow[In, Out]("name")`.

    Nodes run when an edge, route or join hands them an input; the run ends when an
    exit node finishes, with its output. Several edges leaving one node all fire (a
    fan-out); their targets run concurrently."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._nodes: dict[str, Node[Any, Any]] = {}
        self._edges: list[Edge] = []
        self._joins: dict[str, tuple[str, ...]] = {}
        self._entry: str | None = None
        self._exits: list[str] = []

    @overload
    def node(
        self, fn: Callable[[I], Awaitable[O]], /, *, name: str | None = None
    ) -> Node[I, O]: ...

    @overload
    def node(
        self, fn: Callable[[I, NodeContext], Awaitable[O]], /, *, name: str | None = None
    ) -> Node[I, O]: ...

    def node(
        self, fn: Callable[..., Awaitable[Any]], /, *, name: str | None = None
    ) -> Node[Any, Any]:
        """Add `fn` as a node (usable as a decorator), named `name` or after `fn`."""
        node_name = name or getattr(fn, "__name__", "")
        if not node_name:
            raise ValueError("a node needs a name")
        if node_name in self._nodes:
            raise ValueError(f"workflow {self.name!r} already has a node named {node_name!r}")
        input_type, output_type, takes_context = inspect_node(fn, node_name)
        made: Node[Any, Any] = Node(node_name, fn, input_type, output_type, takes_context)
        self._nodes[node_name] = made
        return made

    def _own(self, *nodes: Node[Any, Any]) -> None:
        for node in nodes:
            if self._nodes.get(node.name) is not node:
                raise ValueError(f"{node!r} is not a node of workflow {self.name!r}")

    def edge(
        self,
        source: Node[Any, T],
        target: Node[T, Any],
        *,
        when: Callable[[T], bool] | None = None,
    ) -> None:
        """After `source`, run `target` on its output (only when `when(output)` is true,
        if given)."""
        self._own(source, target)
        self._edges.append(Edge(source.name, target.name, "edge", when))

    def fan_out(self, source: Node[Any, T], targets: Sequence[Node[T, Any]]) -> None:
        """After `source`, run every one of `targets` on its output, concurrently."""
        for target in targets:
            self.edge(source, target)

    def route(self, source: Node[Any, Any], target: Node[Any, Any]) -> None:
        """After `source`, run `target` when the output is of the type `target` takes
        (one member of `source`'s union output): routes chosen by the output's type."""
        self._own(source, target)
        self._edges.append(Edge(source.name, target.name, "route"))

    @overload
    def join(self, a: Node[Any, A], b: Node[Any, B], /) -> JoinBuilder[tuple[A, B]]: ...

    @overload
    def join(
        self, a: Node[Any, A], b: Node[Any, B], c: Node[Any, C], /
    ) -> JoinBuilder[tuple[A, B, C]]: ...

    @overload
    def join(
        self, a: Node[Any, A], b: Node[Any, B], c: Node[Any, C], d: Node[Any, D], /
    ) -> JoinBuilder[tuple[A, B, C, D]]: ...

    def join(self, *sources: Node[Any, Any]) -> JoinBuilder[Any]:
        """A join of `sources`: decorate a function taking the tuple of their outputs.
        It runs once every source has finished (once per round of outputs)."""
        return self.join_all(sources)

    def join_all(self, sources: Sequence[Node[Any, T]]) -> JoinBuilder[list[T]]:
        """A join of any number of `sources` of one output type: decorate a function
        taking the list of their outputs, in the order of `sources`."""
        self._own(*sources)
        if len(sources) < 2:
            raise ValueError("a join needs two sources or more")
        if len({source.name for source in sources}) != len(sources):
            raise ValueError("a join's sources must be distinct")
        return JoinBuilder(self, tuple(sources))

    def entry(self, node: Node[In, Any]) -> None:
        """Where a run starts: `node` takes the run's input."""
        self._own(node)
        self._entry = node.name

    def exit(self, node: Node[Any, Out]) -> None:
        """Where a run ends: when `node` finishes, its output is the run's."""
        self._own(node)
        if node.name not in self._exits:
            self._exits.append(node.name)

    def compile(
        self,
        store: ThreadStore | None = None,
        *,
        middleware: Sequence[Middleware] = (),
        guards: Sequence[Guard] = (),
        sinks: Sequence[EventSink] = (),
        ids: Ids | None = None,
        lease_ttl: float = 30.0,
        max_concurrency: int = 16,
        max_history: int = 100_000,
    ) -> CompiledWorkflow[In, Out]:
        """Check the wiring and return the runnable workflow, or raise the first
        `WiringError` found. `store` is an open `ThreadStore` the caller owns (a
        private `MemoryStore` when None); see `CompiledWorkflow` for the options."""
        from automata.workflow._compile import check
        from automata.workflow._compiled import CompiledWorkflow

        graph = check(self)
        return CompiledWorkflow(
            graph,
            store,
            middleware=middleware,
            guards=guards,
            sinks=sinks,
            ids=ids,
            lease_ttl=lease_ttl,
            max_concurrency=max_concurrency,
            max_history=max_history,
        )
