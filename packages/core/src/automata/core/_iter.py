"""`RunSteps`: a run delivered one committed step at a time.

The run advances only while the caller asks for the next step, in the caller's own
task: between two steps nothing runs, so the caller can inspect, persist
(`dump_messages(step.messages)`), stop or carry on. The guarantees are rules
**L50**-**L56** of docs/loop.md; `EventListener` is how a step-by-step run also
delivers its stream events as they happen (**L89**).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from types import TracebackType
from typing import Any, Generic, TypeVar

from automata.core._errors import EventCallbackError
from automata.core._events import StreamEvent
from automata.core._result import RunResult
from automata.core._steps import Step

__all__ = ["EventListener", "RunSteps"]

T = TypeVar("T")

StepSource = Callable[[], AsyncGenerator[Step | RunResult[Any], None]]


class EventListener:
    """The run's event sink when `iter` is given `on_event`: it calls the callback with
    each event, in the run's task (or a sub-agent's), as it happens. The first exception
    the callback raises is kept, never raised into the run (where a provider stream or
    a tool would take it for its own failure), and the callback is not called again;
    `RunSteps` stops the run at the next step boundary and raises it (**L89**)."""

    __slots__ = ("callback", "error")

    def __init__(self, callback: Callable[[StreamEvent], None]) -> None:
        self.callback = callback
        self.error: Exception | None = None

    def __call__(self, event: StreamEvent) -> None:
        if self.error is not None:
            return
        try:
            self.callback(event)
        except Exception as exc:
            self.error = exc


class RunSteps(Generic[T]):
    """Async iterator of a run's `ModelStep`s and `ToolStep`s; `.result` once exhausted.

    The run starts on the first `__anext__`. A failed run raises its error (carrying
    the partial result as `.result`) from the `async for`. Leaving the loop early
    (`break`, then `aclose()`, or leaving `async with`) stops the run at the step it
    was given: the transcript stays valid and post-run hooks run before `aclose()`
    returns. Iterate it once, from one task. With a `listener` whose callback raised,
    the step in flight is still delivered, then the run is stopped as by `aclose()` and
    the next `__anext__` raises `EventCallbackError` from the callback's exception.
    """

    __slots__ = ("_closed", "_listener", "_result", "_source", "_steps")

    def __init__(self, source: StepSource, listener: EventListener | None = None) -> None:
        self._source = source
        self._listener = listener
        self._steps: AsyncGenerator[Step | RunResult[Any], None] | None = None
        self._result: RunResult[T] | None = None
        self._closed = False

    @property
    def result(self) -> RunResult[T]:
        """The run's result after its last step. Before that, after a failure, or after
        the run was stopped early, it raises `RuntimeError`."""
        if self._result is not None:
            return self._result
        if self._closed:
            raise RuntimeError("the run was stopped before it finished; it has no result")
        raise RuntimeError("the run has not finished; iterate its steps to the end first")

    def __aiter__(self) -> RunSteps[T]:
        return self

    async def __anext__(self) -> Step:
        if self._closed or self._result is not None:
            raise StopAsyncIteration
        await self._check_listener()
        steps = self._steps
        if steps is None:
            steps = self._steps = self._source()
        try:
            item = await steps.__anext__()
        except BaseException:
            self._closed = True
            raise
        if isinstance(item, RunResult):
            await steps.aclose()  # already past its last step: nothing more runs
            await self._check_listener()
            self._result = item
            raise StopAsyncIteration
        return item

    async def _check_listener(self) -> None:
        """Stop the run and raise if the event callback failed."""
        listener = self._listener
        if listener is None or listener.error is None:
            return
        await self.aclose()
        raise EventCallbackError(
            f"the on_event callback raised {type(listener.error).__name__}: {listener.error}; "
            "the run was stopped at the last step delivered"
        ) from listener.error

    async def aclose(self) -> None:
        """Stop the run at the step last delivered and wait until it has stopped: calls
        announced but not run get `canceled` results, post-run hooks run. Closing
        twice, or after the end, does nothing more."""
        if self._closed:
            return
        self._closed = True
        steps = self._steps
        if steps is not None:
            await steps.aclose()

    async def __aenter__(self) -> RunSteps[T]:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
