"""Hooks around node activations: middleware (logging, timing, tracing spans) and guards
that may stop a run with a typed reason.

Middleware wraps every activation's node call: `await middleware(info, call)` must await
`call()` (at most once) and return its result, or raise. The first middleware given is
the outermost. Middleware runs inside the activation, so it runs again with the
activation after a crash. A guard runs before each activation is started (and before
its `activation_started` record is written): returning a `StopReason` stops the run
(`run_stopped` is journaled and `invoke` raises `RunStoppedError`); returning None lets
the activation run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode, TracerProvider

from automata.workflow._errors import StopReason
from automata.workflow._nodes import ActivationInfo

__all__ = [
    "Guard",
    "Middleware",
    "NodeCall",
    "log_activations",
    "max_activations",
    "time_activations",
    "trace_activations",
]

NodeCall = Callable[[], Awaitable[Any]]
"""Runs the rest of the chain and the node; returns the node's output."""

Middleware = Callable[[ActivationInfo, NodeCall], Awaitable[Any]]
"""Wraps one activation's node call."""

Guard = Callable[[ActivationInfo], Awaitable[StopReason | None]]
"""Decides, before an activation starts, whether the run goes on."""

logger = logging.getLogger("automata.workflow")
logger.addHandler(logging.NullHandler())


def chain(middleware: Sequence[Middleware], info: ActivationInfo, call: NodeCall) -> NodeCall:
    """`call` wrapped by `middleware`, the first outermost."""
    for layer in reversed(middleware):

        def wrapped(layer: Middleware = layer, inner: NodeCall = call) -> Awaitable[Any]:
            return layer(info, inner)

        call = wrapped
    return call


def _extra(info: ActivationInfo) -> dict[str, object]:
    return {
        "workflow": info.workflow,
        "run_id": info.run_id,
        "node": info.node,
        "activation_id": info.activation_id,
        "attempt": info.attempt,
    }


def log_activations(log: logging.Logger | None = None) -> Middleware:
    """Log each activation's start and end (DEBUG) or failure (WARNING) to `log`
    (`automata.workflow` by default), with the run and activation in `extra`."""
    target = log or logger

    async def middleware(info: ActivationInfo, call: NodeCall) -> Any:
        target.debug("activation of %s started", info.node, extra=_extra(info))
        try:
            output = await call()
        except Exception as exc:
            target.warning("activation of %s failed: %s", info.node, exc, extra=_extra(info))
            raise
        target.debug("activation of %s finished", info.node, extra=_extra(info))
        return output

    return middleware


def time_activations(
    record: Callable[[ActivationInfo, float, BaseException | None], None],
) -> Middleware:
    """Tell `record` how long each activation's node call took (seconds, monotonic
    clock) and what it raised, if anything; `record` must return promptly."""

    async def middleware(info: ActivationInfo, call: NodeCall) -> Any:
        started = time.perf_counter()
        try:
            output = await call()
        except BaseException as exc:
            record(info, time.perf_counter() - started, exc)
            raise
        record(info, time.perf_counter() - started, None)
        return output

    return middleware


def trace_activations(tracer_provider: TracerProvider | None = None) -> Middleware:
    """An OpenTelemetry span per activation (`workflow.node <name>`), nested under the
    caller's current span, with the run, node, activation and attempt as attributes.
    A no-op unless an OpenTelemetry SDK is configured."""
    tracer = trace.get_tracer("automata.workflow", tracer_provider=tracer_provider)

    async def middleware(info: ActivationInfo, call: NodeCall) -> Any:
        attributes: dict[str, str | int] = {
            "automata.workflow.name": info.workflow,
            "automata.workflow.run_id": info.run_id,
            "automata.workflow.node": info.node,
            "automata.workflow.activation_id": info.activation_id,
            "automata.workflow.attempt": info.attempt,
        }
        with tracer.start_as_current_span(
            f"workflow.node {info.node}", attributes=attributes, record_exception=True
        ) as span:
            try:
                return await call()
            except Exception as exc:
                span.set_status(Status(StatusCode.ERROR, str(exc)))
                raise

    return middleware


def max_activations(limit: int) -> Guard:
    """Stop a run before its `limit + 1`-th activation (code `max_activations`): a bound
    on loops and retries."""

    async def guard(info: ActivationInfo) -> StopReason | None:
        if info.activations > limit:
            return StopReason("max_activations", f"more than {limit} activations")
        return None

    return guard
