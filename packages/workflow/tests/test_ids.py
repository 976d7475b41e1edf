"""Ids: explicit > per-invocation > per-workflow > UUID, all validated (W14)."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable

import pytest

from automata.workflow import InvalidIdError, NodeContext, Workflow, validate_id


def echo() -> tuple[Workflow[int, str], list[NodeContext]]:
    seen: list[NodeContext] = []
    wf = Workflow[int, str]("echo")

    @wf.node
    async def node(number: int, context: NodeContext) -> str:
        seen.append(context)
        return context.idempotency_key

    wf.entry(node)
    wf.exit(node)
    return wf, seen


def counter(prefix: str) -> Callable[[], str]:
    numbers = itertools.count(1)
    return lambda: f"{prefix}{next(numbers)}"


async def test_ids_follow_the_precedence_explicit_invocation_workflow_uuid() -> None:
    """W14"""
    wf, _ = echo()
    flow = wf.compile(ids={"run": counter("wf-run-"), "activation": counter("wf-act-")})
    assert await flow.invoke(1) == "wf-run-1/wf-act-1"
    assert await flow.invoke(1, ids={"run": counter("inv-run-")}) == "inv-run-1/wf-act-2"
    assert await flow.invoke(1, run_id="mine", ids={"run": counter("x")}) == "mine/wf-act-3"
    plain, plain_seen = echo()
    await plain.compile().invoke(1)
    uuid.UUID(plain_seen[0].run_id)
    uuid.UUID(plain_seen[0].session_id)
    uuid.UUID(plain_seen[0].activation_id)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("", "empty"),
        ("x" * 192, "more than 191"),
        ("é" * 96, "more than 191"),
        ("a\x00b", "NUL"),
        ("trailing ", "space"),
        ("\ud800", "UTF-8"),
        (7, "not a string"),
    ],
)
def test_invalid_ids_are_refused_with_a_typed_error(value: object, reason: str) -> None:
    """W14"""
    with pytest.raises(InvalidIdError, match=reason) as caught:
        validate_id("run", value)
    assert caught.value.kind == "run"


async def test_generated_ids_are_validated_too() -> None:
    """W14: a generator is trusted with uniqueness, never with validity."""
    wf, _ = echo()
    flow = wf.compile(ids={"lease_owner": lambda: "bad "})
    with pytest.raises(InvalidIdError, match="lease_owner"):
        await flow.invoke(1)
    with pytest.raises(InvalidIdError):
        await wf.compile().invoke(1, run_id="x" * 192)
    assert validate_id("run", "é" * 95) == "é" * 95
    with pytest.raises(ValueError, match="unknown id kinds"):
        wf.compile(ids={"thread": lambda: "x"})  # type: ignore[dict-item]
