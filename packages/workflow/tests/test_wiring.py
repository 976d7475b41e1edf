"""`compile` reports wiring errors before anything runs, one typed error per defect,
naming the nodes involved (W1, W2)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from automata.workflow import (
    JoinNeverFiresError,
    MissingEntryError,
    MissingExitError,
    NodeContext,
    TypeMismatchError,
    UnreachableNodeError,
    UnroutedOutputError,
    WiringError,
    Workflow,
)


@dataclass
class Question:
    text: str


@dataclass
class Complaint:
    text: str


async def parse(text: str) -> Question | Complaint:
    return Question(text)


async def answer(question: Question) -> str:
    return question.text


async def soothe(complaint: Complaint) -> str:
    return complaint.text


async def shout(text: str) -> str:
    return text.upper()


async def count(text: str) -> int:
    return len(text)


async def double(number: int) -> int:
    return number * 2


def test_a_workflow_without_an_entry_does_not_compile() -> None:
    """W1"""
    wf = Workflow[str, str]("w")
    node = wf.node(shout)
    wf.exit(node)
    with pytest.raises(MissingEntryError):
        wf.compile()


def test_a_workflow_without_an_exit_does_not_compile() -> None:
    """W1: no run could ever finish."""
    wf = Workflow[str, str]("w")
    wf.entry(wf.node(shout))
    with pytest.raises(MissingExitError):
        wf.compile()


def test_an_edge_between_mismatched_types_names_both_nodes() -> None:
    """W2: the output type of the source must be the input type of the target."""
    wf = Workflow[str, int]("w")
    first, second = wf.node(shout), wf.node(double)
    wf.entry(first)
    wf.edge(first, second)  # type: ignore[misc]  # mypy sees the mismatch too
    wf.exit(second)
    with pytest.raises(TypeMismatchError) as caught:
        wf.compile()
    assert caught.value.nodes == ("shout", "double")
    assert (caught.value.given, caught.value.taken) == (str, int)


def test_a_route_to_a_type_the_source_never_gives_is_a_mismatch() -> None:
    """W2: a route's target takes one member of the source's union output."""
    wf = Workflow[str, int]("w")
    first, second = wf.node(shout), wf.node(double)
    wf.entry(first)
    wf.route(first, second)
    wf.exit(second)
    with pytest.raises(TypeMismatchError, match="member"):
        wf.compile()


def test_a_join_whose_tuple_does_not_match_its_sources_is_a_mismatch() -> None:
    """W2: slot by slot, a join takes its sources' outputs."""
    wf = Workflow[str, str]("w")
    start, a, b = wf.node(shout, name="start"), wf.node(shout), wf.node(count)
    wf.entry(start)
    wf.fan_out(start, [a, b])

    @wf.join(a, b)  # type: ignore[arg-type]
    async def both(parts: tuple[str, str]) -> str:  # slot 1 should be int
        return parts[0]

    wf.exit(both)
    with pytest.raises(TypeMismatchError) as caught:
        wf.compile()
    assert caught.value.nodes == ("count", "both")


def test_the_declared_output_type_must_be_what_the_exit_gives() -> None:
    """W2"""
    wf = Workflow[str, str]("w")
    node = wf.node(count)
    wf.entry(node)
    wf.exit(node)  # type: ignore[arg-type]
    with pytest.raises(TypeMismatchError):
        wf.compile()


def test_an_unreachable_node_is_named() -> None:
    """W1"""
    wf = Workflow[str, str]("w")
    first, lonely = wf.node(shout), wf.node(shout, name="lonely")
    wf.entry(first)
    wf.exit(first)
    wf.exit(lonely)
    with pytest.raises(UnreachableNodeError) as caught:
        wf.compile()
    assert caught.value.nodes == ("lonely",)


def test_a_join_fed_by_its_own_output_can_never_fire() -> None:
    """W3: a source reachable only through the join."""
    wf = Workflow[str, str]("w")
    start, later = wf.node(shout, name="start"), wf.node(shout, name="later")
    wf.entry(start)

    @wf.join(start, later)
    async def both(parts: tuple[str, str]) -> str:
        return parts[0]

    wf.edge(both, later)
    after = wf.node(shout, name="after")
    wf.edge(both, after)
    wf.exit(after)
    with pytest.raises(JoinNeverFiresError) as caught:
        wf.compile()
    assert caught.value.join == "both"
    assert caught.value.sources == ("later",)


def test_a_join_of_exclusive_routes_can_never_fire() -> None:
    """W3: one output takes one route, so a join of both branches would wait forever."""
    wf = Workflow[str, str]("w")
    first, yes, no = wf.node(parse), wf.node(answer), wf.node(soothe)
    wf.entry(first)
    wf.route(first, yes)
    wf.route(first, no)

    @wf.join(yes, no)
    async def both(parts: tuple[str, str]) -> str:
        return parts[0]

    wf.exit(both)
    with pytest.raises(JoinNeverFiresError) as caught:
        wf.compile()
    assert set(caught.value.sources) == {"answer", "soothe"}
    assert "parse" in str(caught.value)


def test_an_output_nothing_carries_on_is_a_dead_end() -> None:
    """W1: every member of a non-exit node's output goes somewhere."""
    wf = Workflow[str, str]("w")
    first, yes = wf.node(parse), wf.node(answer)
    wf.entry(first)
    wf.route(first, yes)  # nothing takes a Complaint
    wf.exit(yes)
    with pytest.raises(UnroutedOutputError) as caught:
        wf.compile()
    assert caught.value.nodes == ("parse",)
    assert caught.value.output_type is Complaint


def test_an_exit_with_outgoing_edges_is_refused() -> None:
    """W1: an exit ends the run."""
    wf = Workflow[str, str]("w")
    first, second = wf.node(shout), wf.node(shout, name="second")
    wf.entry(first)
    wf.edge(first, second)
    wf.exit(first)
    wf.exit(second)
    with pytest.raises(WiringError, match="exit 'shout'"):
        wf.compile()


def test_a_node_must_be_an_annotated_async_function() -> None:
    wf = Workflow[str, str]("w")

    def sync(text: str) -> str:
        return text

    async def untyped(text):  # type: ignore[no-untyped-def]
        return text

    async def extra(text: str, context: NodeContext, more: int) -> str:
        return text

    with pytest.raises(TypeError, match="async"):
        wf.node(sync)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="annotate"):
        wf.node(untyped)
    with pytest.raises(TypeError, match="nothing else"):
        wf.node(extra)  # type: ignore[arg-type]
    wf.node(shout)
    with pytest.raises(ValueError, match="already"):
        wf.node(shout)


def test_a_well_wired_workflow_compiles() -> None:
    """W2: an int output may feed a node taking `int | str`."""
    wf = Workflow[str, int]("w")

    async def either(value: int | str) -> int:
        return 1

    first, second = wf.node(count), wf.node(either)
    wf.entry(first)
    wf.edge(first, second)
    wf.exit(second)
    assert wf.compile().graph.entry == "count"
