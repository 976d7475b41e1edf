"""Middleware, guards and event sinks (W10, W11, W12)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from automata.threads.store import ThreadStore
from automata.workflow import (
    ActivationInfo,
    CompiledWorkflow,
    EventSink,
    Middleware,
    NodeCall,
    NodeContext,
    RunEvent,
    RunStoppedError,
    StopReason,
    Workflow,
    log_activations,
    max_activations,
    time_activations,
    trace_activations,
)

from .conftest import opened


def two_steps(store: ThreadStore | None = None, **options: object) -> CompiledWorkflow[int, int]:
    wf = Workflow[int, int]("two")

    @wf.node
    async def add(number: int) -> int:
        return number + 1

    @wf.node
    async def square(number: int) -> int:
        return number * number

    wf.entry(add)
    wf.edge(add, square)
    wf.exit(square)
    return wf.compile(store, **options)  # type: ignore[arg-type]


async def test_middleware_wraps_each_activation_first_outermost() -> None:
    """W10"""
    seen: list[str] = []

    def named(name: str) -> Middleware:
        async def layer(info: ActivationInfo, call: NodeCall) -> object:
            seen.append(f"{name}>{info.node}")
            output = await call()
            seen.append(f"{name}<{info.node}={output}")
            return output

        return layer

    flow = two_steps(middleware=[named("outer"), named("inner")])
    assert await flow.invoke(2) == 9
    assert seen == [
        "outer>add",
        "inner>add",
        "inner<add=3",
        "outer<add=3",
        "outer>square",
        "inner>square",
        "inner<square=9",
        "outer<square=9",
    ]


async def test_timing_logging_and_tracing_middleware(caplog: pytest.LogCaptureFixture) -> None:
    """W10: a span per activation, nested in the caller's span, with the run's ids."""
    timings: list[tuple[str, float, BaseException | None]] = []
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    flow = two_steps(
        middleware=[
            time_activations(
                lambda info, seconds, error: timings.append((info.node, seconds, error))
            ),
            log_activations(),
            trace_activations(provider),
        ]
    )
    with caplog.at_level(logging.DEBUG, logger="automata.workflow"):
        await flow.invoke(2, run_id="r1")
    assert [(node, error) for node, _, error in timings] == [("add", None), ("square", None)]
    assert all(seconds >= 0 for _, seconds, _ in timings)
    assert "activation of add started" in caplog.text
    spans = exporter.get_finished_spans()
    assert [span.name for span in spans] == ["workflow.node add", "workflow.node square"]
    assert spans[0].attributes is not None
    assert spans[0].attributes["automata.workflow.run_id"] == "r1"


async def test_a_guard_stops_the_run_with_a_typed_reason_before_the_activation() -> None:
    """W11: the stop is journaled; the activation never started; the run stays stopped."""

    async def no_squares(info: ActivationInfo) -> StopReason | None:
        return StopReason("policy", "no squaring today") if info.node == "square" else None

    flow = two_steps(guards=[no_squares])
    with pytest.raises(RunStoppedError) as caught:
        await flow.invoke(2, run_id="r1")
    assert caught.value.reason == StopReason("policy", "no squaring today")
    assert caught.value.node == "square"
    kinds = [entry.kind for entry in (await flow.history("r1")).entries]
    assert kinds[-1] == "run_stopped"
    assert kinds.count("activation_started") == 1
    with pytest.raises(RunStoppedError):
        await flow.invoke(2, run_id="r1")


async def test_max_activations_bounds_a_loop() -> None:
    """W11"""
    wf = Workflow[int, int]("loop")

    @wf.node
    async def spin(number: int) -> int:
        return number + 1

    @wf.node
    async def never(number: int) -> int:
        return number

    wf.entry(spin)
    wf.edge(spin, spin, when=lambda n: n < 1000)
    wf.edge(spin, never, when=lambda n: n >= 1000)
    wf.exit(never)
    flow = wf.compile(guards=[max_activations(5)])
    with pytest.raises(RunStoppedError) as caught:
        await flow.invoke(0)
    assert caught.value.reason.code == "max_activations"


class Collect:
    def __init__(self, fail_first: int = 0) -> None:
        self.events: list[RunEvent] = []
        self.fail_first = fail_first

    async def __call__(self, event: RunEvent) -> None:
        if self.fail_first:
            self.fail_first -= 1
            raise RuntimeError("sink down")
        self.events.append(event)


async def test_sinks_get_every_record_as_an_event_after_it_is_committed() -> None:
    """W12: each event is named by (run id, sequence), in journal order; a failing
    sink is given the event again."""
    sink = Collect(fail_first=2)
    flow = two_steps(sinks=[sink])
    await flow.invoke(2, run_id="r1")
    page = await flow.history("r1")
    assert [(e.run_id, e.seq, e.kind) for e in sink.events] == [
        (e.run_id, e.seq, e.kind) for e in page.entries
    ]
    assert sink.events[0].kind == "run_started"


async def test_a_resumed_run_redelivers_its_history_at_least_once(
    stores: Callable[[], ThreadStore],
) -> None:
    """W12: sinks deduplicate by (run id, sequence)."""
    reached = asyncio.Event()
    wf = Workflow[int, int]("w")

    @wf.node
    async def wait(number: int, context: NodeContext) -> int:
        if context.attempt == 1:
            reached.set()
            await asyncio.Event().wait()
        return number

    wf.entry(wait)
    wf.exit(wait)
    first: EventSink = Collect()
    task = asyncio.create_task(
        wf.compile(await opened(stores()), sinks=[first]).invoke(1, run_id="r")
    )
    await reached.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    second = Collect()
    assert await wf.compile(await opened(stores()), sinks=[second]).invoke(1, run_id="r") == 1
    seqs = [event.seq for event in second.events]
    assert seqs[0] == 1  # the whole history again, then what this runner wrote
    assert sorted(set(seqs)) == list(range(1, seqs[-1] + 1))
