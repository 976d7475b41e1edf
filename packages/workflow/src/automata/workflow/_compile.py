"""The wiring checks `compile` runs, and the checked graph a runner walks.

Checks, in this order, each raising its own `WiringError`:

1. an entry and an exit are declared (`MissingEntryError`, `MissingExitError`);
2. types agree: an edge's source output is the target's input, a route's target takes
   one member of the source's output and can be told at run time, a join's input is
   the tuple (or list) of its sources' outputs (`TypeMismatchError`);
3. exits have no outgoing edges, and the workflow's declared `In`/`Out`, when given as
   `Workflow[In, Out]`, agree with the entry and exits (`TypeMismatchError`);
4. every join can fire: none of its sources is reachable only through the join itself,
   and no two of them sit on exclusive routes of one node (`JoinNeverFiresError`);
5. every node is reachable from the entry (`UnreachableNodeError`);
6. every member of a non-exit node's output type is carried on by an edge, a route or
   a join (`UnroutedOutputError`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_args, get_origin

from automata.workflow._errors import (
    JoinNeverFiresError,
    MissingEntryError,
    MissingExitError,
    TypeMismatchError,
    UnreachableNodeError,
    UnroutedOutputError,
    WiringError,
)
from automata.workflow._graph import Edge
from automata.workflow._nodes import Node
from automata.workflow._types import assignable, members, overlaps, runtime_classes

if TYPE_CHECKING:
    from automata.workflow._graph import Workflow

__all__ = ["Graph", "check"]


@dataclass(frozen=True, slots=True)
class Graph:
    """A checked workflow: what a runner needs and nothing else."""

    name: str
    nodes: Mapping[str, Node[Any, Any]]
    entry: str
    exits: frozenset[str]
    out: Mapping[str, tuple[Edge, ...]]
    route_classes: Mapping[tuple[str, str], tuple[type, ...]]
    joins: Mapping[str, tuple[str, ...]]
    feeds: Mapping[str, tuple[tuple[str, int], ...]]
    """Source node -> the (join, slot) pairs its outputs are delivered to."""

    def targets(self, source: str, output: Any) -> list[str]:
        """The nodes `source`'s `output` goes to by edges and routes, in wiring order."""
        chosen: list[str] = []
        for edge in self.out.get(source, ()):
            if edge.kind == "route":
                if isinstance(output, self.route_classes[(source, edge.target)]):
                    chosen.append(edge.target)
            elif edge.when is None or edge.when(output):
                chosen.append(edge.target)
        return chosen


def _join_shape(join: str, taken: Any, count: int) -> list[Any]:
    """The element type each slot of a join takes, from its input annotation."""
    origin, args = get_origin(taken), get_args(taken)
    if origin is tuple and args and args[-1] is not Ellipsis:
        if len(args) != count:
            raise TypeMismatchError(
                join, join, taken, taken, f"the join has {count} sources, its tuple {len(args)}"
            )
        return list(args)
    if origin is tuple and len(args) == 2:
        return [args[0]] * count
    if origin is not None and args and len(args) == 1:
        return [args[0]] * count
    raise TypeMismatchError(
        join, join, taken, taken, "a join takes a tuple or a list of its sources' outputs"
    )


def _reach(
    entry: str,
    out: Mapping[str, tuple[Edge, ...]],
    joins: Mapping[str, tuple[str, ...]],
    feeds: Mapping[str, tuple[tuple[str, int], ...]],
    *,
    join_needs_all: bool,
    skip: Edge | None = None,
) -> set[str]:
    """Nodes reachable from `entry` (a join once all its sources are, or any)."""
    seen = {entry}
    queue = deque([entry])
    while queue:
        node = queue.popleft()
        nexts = [edge.target for edge in out.get(node, ()) if edge is not skip]
        for join, _slot in feeds.get(node, ()):
            if not join_needs_all or all(source in seen for source in joins[join]):
                nexts.append(join)
        for target in nexts:
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return seen


def _check_types(graph_nodes: Mapping[str, Node[Any, Any]], edges: Iterable[Edge]) -> None:
    for edge in edges:
        source, target = graph_nodes[edge.source], graph_nodes[edge.target]
        if edge.kind == "edge":
            if not assignable(source.output_type, target.input_type):
                raise TypeMismatchError(
                    source.name, target.name, source.output_type, target.input_type
                )
            continue
        if not overlaps(source.output_type, target.input_type):
            raise TypeMismatchError(
                source.name,
                target.name,
                source.output_type,
                target.input_type,
                "a route's target must take a member of the source's output",
            )
        if runtime_classes(target.input_type) is None:
            raise TypeMismatchError(
                source.name,
                target.name,
                source.output_type,
                target.input_type,
                "a route's target type must be a class (or a union of classes)",
            )


def _check_exclusive(
    entry: str,
    nodes: Mapping[str, Node[Any, Any]],
    out: Mapping[str, tuple[Edge, ...]],
    joins: Mapping[str, tuple[str, ...]],
    feeds: Mapping[str, tuple[tuple[str, int], ...]],
) -> None:
    """A join whose sources need different, disjoint routes of one node that is on no
    cycle can never fire: that node runs once and one output takes one of them."""
    for router, edges in out.items():
        routes = [edge for edge in edges if edge.kind == "route"]
        if len(routes) < 2 or any(
            router in _reach(edge.target, out, joins, feeds, join_needs_all=False) for edge in edges
        ):
            continue
        needs: dict[tuple[str, str], Edge] = {}
        for route in routes:
            without = _reach(entry, out, joins, feeds, join_needs_all=False, skip=route)
            for join, sources in joins.items():
                for source in sources:
                    if source not in without:
                        needs.setdefault((join, source), route)
        for join, sources in joins.items():
            needed = [(s, needs[(join, s)]) for s in sources if (join, s) in needs]
            for first, (s1, r1) in enumerate(needed):
                for s2, r2 in needed[first + 1 :]:
                    t1, t2 = nodes[r1.target].input_type, nodes[r2.target].input_type
                    if r1 is not r2 and not overlaps(t1, t2) and not overlaps(t2, t1):
                        raise JoinNeverFiresError(
                            join,
                            (s1, s2),
                            f"{s1!r} and {s2!r} need exclusive routes of {router!r} "
                            f"({r1.target!r}, {r2.target!r}), and it runs once",
                        )


def check(workflow: Workflow[Any, Any]) -> Graph:
    """The checked graph of `workflow`, or the first `WiringError` (module docstring)."""
    nodes = dict(workflow._nodes)
    if workflow._entry is None:
        raise MissingEntryError(workflow.name)
    if not workflow._exits:
        raise MissingExitError(workflow.name)
    entry, exits = workflow._entry, frozenset(workflow._exits)
    edges = list(workflow._edges)
    out: dict[str, tuple[Edge, ...]] = {}
    for edge in edges:
        out[edge.source] = (*out.get(edge.source, ()), edge)
    joins = dict(workflow._joins)
    feeds: dict[str, tuple[tuple[str, int], ...]] = {}

    # 2. types
    _check_types(nodes, edges)
    for join, sources in joins.items():
        slots = _join_shape(join, nodes[join].input_type, len(sources))
        for slot, (source, taken) in enumerate(zip(sources, slots, strict=True)):
            given = nodes[source].output_type
            if not assignable(given, taken):
                raise TypeMismatchError(source, join, given, taken, f"slot {slot} of the join")
            feeds[source] = (*feeds.get(source, ()), (join, slot))

    # 3. exits and declared types
    for name in exits:
        if name in out or name in feeds:
            raise WiringError(f"exit {name!r} has outgoing edges; an exit ends the run", (name,))
    declared = get_args(getattr(workflow, "__orig_class__", None))
    if len(declared) == 2:
        run_in, run_out = declared
        if not assignable(run_in, nodes[entry].input_type):
            raise TypeMismatchError("<input>", entry, run_in, nodes[entry].input_type)
        for name in sorted(exits):
            if not assignable(nodes[name].output_type, run_out):
                raise TypeMismatchError(name, "<output>", nodes[name].output_type, run_out)

    # 4. joins that can never fire
    loose = _reach(entry, out, joins, feeds, join_needs_all=False)
    strict = _reach(entry, out, joins, feeds, join_needs_all=True)
    for join, sources in joins.items():
        if join in loose and join not in strict:
            blocked = tuple(s for s in sources if s not in strict)
            if all(s in loose for s in blocked):
                raise JoinNeverFiresError(
                    join,
                    blocked,
                    f"{', '.join(map(repr, blocked))} can only be reached through the join",
                )
    _check_exclusive(entry, nodes, out, joins, feeds)

    # 5. reachability
    for name in nodes:
        if name not in strict:
            raise UnreachableNodeError(name)

    # 6. every output carried on
    for name, node in nodes.items():
        if name in exits:
            continue
        carried = out.get(name, ())
        for member in members(node.output_type):
            if name in feeds or any(
                edge.kind == "edge" or assignable(member, nodes[edge.target].input_type)
                for edge in carried
            ):
                continue
            raise UnroutedOutputError(name, member)

    route_classes = {
        (edge.source, edge.target): runtime_classes(nodes[edge.target].input_type) or ()
        for edge in edges
        if edge.kind == "route"
    }
    return Graph(workflow.name, nodes, entry, exits, out, route_classes, joins, feeds)
