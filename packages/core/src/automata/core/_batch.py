"""Tool batches: one turn's tool calls, run concurrently under the tool policy.

Every call of a batch gets exactly one result, committed in the model's order as one
tool message, whatever happens: unknown tools, budget refusals, approvals, timeouts,
errors, an aborted batch or a cancelled run. Result events are emitted as calls
finish (completion order); the error strings are those of docs/loop.md.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from automata.core._approval import Approval, Approver
from automata.core._artifacts import Artifact
from automata.core._blocks import Message, TextBlock, ToolResultBlock, ToolUseBlock
from automata.core._errors import ModelRetry
from automata.core._events import ToolResultEvent, quick_init
from automata.core._handoffs import Handoff
from automata.core._model_retry import ToolRetries
from automata.core._policy import CallBudget, ToolPolicy
from automata.core._scope import RunScope
from automata.core._structured import StructuredAttempt, StructuredOutput
from automata.core._threads import ToolThreads
from automata.core._tools import InvalidToolArguments, Tool, ToolContext, to_tool_result
from automata.core._tracing import Tracing, logger

__all__ = ["STOPS_THE_PROGRAM", "BatchContext", "ToolBatch", "error_text"]


def error_text(error: BaseException) -> str:
    """An exception as the model sees it: its message, or its type name if it has none
    or its message cannot be read (its `__str__` raises or returns something else)."""
    try:
        text = str(error)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:
        return type(error).__name__
    return text if text else type(error).__name__


STOPS_THE_PROGRAM = (KeyboardInterrupt, SystemExit)
"""Raised by a call, these abort its batch like any `BaseException` and are then
re-raised as themselves: they ask the program to stop, they are not tool failures."""


class _BatchAbort(Exception):
    """Raised inside a tool-call task when the whole batch must stop."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(error_text(cause))
        self.cause = cause


@quick_init
@dataclass(frozen=True, slots=True)
class BatchContext:
    """What a tool batch needs from the run it belongs to, and nothing more.

    `scope` is handed to every tool through its `ToolContext`; `budget` is the run's
    own call budget (None when no budget applies); `commit` appends the batch's tool
    message to the run's transcript; `threads` is where its sync tools run."""

    agent: str
    invocation_id: str
    depth: int
    tools: Mapping[str, Tool]
    policy: ToolPolicy
    approver: Approver | None
    structured: StructuredOutput[Any] | None
    budget: CallBudget | None
    scope: RunScope
    tracing: Tracing
    commit: Callable[[Message], None]
    threads: ToolThreads | None = None
    deps: Any = None
    retries: ToolRetries | None = None


class ToolBatch:
    """Runs the tool calls of one model turn and commits the results."""

    __slots__ = ("artifacts", "calls", "context")

    def __init__(self, context: BatchContext, calls: tuple[ToolUseBlock, ...]) -> None:
        self.context = context
        self.calls = calls
        self.artifacts: dict[str, tuple[Artifact, ...]] = {}
        """The artifacts of calls that ran and returned some, by call id, until their
        result event carries them."""

    def finish_call(
        self, call: ToolUseBlock, block: ToolResultBlock, error: BaseException | None = None
    ) -> ToolResultBlock:
        context = self.context
        emit = context.scope.emit
        if emit is not None:
            emit(
                ToolResultEvent(
                    agent=context.agent,
                    invocation_id=context.invocation_id,
                    depth=context.depth,
                    call=call,
                    result=block.text,
                    blocks=block.content,
                    is_error=block.is_error,
                    error=error,
                    artifacts=self.artifacts.pop(call.id, ()),
                )
            )
        return block

    def error_result(
        self, call: ToolUseBlock, text: str, error: BaseException | None = None
    ) -> ToolResultBlock:
        return self.finish_call(call, _error_block(call, text), error)

    # -- tool batches ------------------------------------------------------------

    async def run(self) -> tuple[StructuredAttempt | None, BaseException | None]:
        """Run one turn's calls concurrently and commit their results, in the model's
        order, as one tool message (also when the batch is aborted or cancelled)."""
        settings = self.context
        structured = settings.structured
        calls = self.calls
        batch = _BatchState(calls)
        attempt: StructuredAttempt | None = None
        runnable: list[tuple[int, ToolUseBlock, Tool]] = []
        handoff_seen = False
        for index, call in enumerate(calls):
            if structured is not None and call.name == structured.tool_name:
                attempt = (
                    structured.validate_payload(call.input)
                    if call.input_error is None
                    else StructuredAttempt(violations=(call.input_error,))
                )
                block = ToolResultBlock(
                    tool_use_id=call.id,
                    content=(TextBlock(text=attempt.feedback()),),
                    is_error=not attempt.ok,
                )
                batch.results[index] = self.finish_call(call, block)
                continue
            found = settings.tools.get(call.name)
            if found is None:
                available = ", ".join(sorted(settings.tools)) or "none"
                batch.results[index] = self.error_result(
                    call, f'tool not found: "{call.name}" (available tools: {available})'
                )
                continue
            if isinstance(found, Handoff):
                if handoff_seen:
                    batch.results[index] = self.error_result(
                        call,
                        "not transferred: only the first handoff call of a turn is carried out",
                    )
                    continue
                handoff_seen = True
            if settings.budget is not None:
                refusal = settings.budget.reserve(call.name)
                if refusal is not None:
                    batch.results[index] = self.error_result(call, f"denied: {refusal}")
                    continue
            runnable.append((index, call, found))
        abort = await self.run_calls(runnable, batch) if runnable else None
        if not batch.committed:
            self.commit(batch)
        return attempt, abort

    def commit(self, batch: _BatchState) -> None:
        """Append the batch's results as the tool message; every call has one."""
        results = tuple(r for r in batch.results if r is not None)
        assert len(results) == len(batch.calls)
        self.context.commit(Message(role="tool", content=results))
        batch.committed = True

    async def run_calls(
        self, runnable: list[tuple[int, ToolUseBlock, Tool]], batch: _BatchState
    ) -> BaseException | None:
        """Run the calls as tasks. A task emits its own result event when it finishes,
        so events arrive in completion order; once the batch is closed (aborted or
        cancelled) late finishers are ignored and their calls reported as canceled.

        Calls that finish together are collected in the model's order, each with its
        own result; the first failure (in that order) aborts the batch. Whatever ends
        the batch, the calls still running are cancelled and awaited before this
        returns or raises, so no call of the batch runs on after it."""
        gates = _ParallelGates(self.context.policy)
        tasks: dict[asyncio.Task[ToolResultBlock], int] = {}
        for index, call, found in runnable:
            tasks[asyncio.create_task(self.run_call(call, found, gates, batch))] = index
        pending = set(tasks)
        abort: BaseException | None = None
        try:
            while pending and abort is None:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in sorted(done, key=tasks.__getitem__):
                    failure = self.collect(batch, tasks[task], task)
                    if abort is None:
                        abort = failure
        except BaseException as exc:
            reason = "run cancelled" if isinstance(exc, asyncio.CancelledError) else error_text(exc)
            self.close_batch(batch, tasks, pending, reason)
            await _settle(pending)
            raise
        if abort is None:
            return None
        self.close_batch(batch, tasks, pending, error_text(abort))
        if await _settle(pending):
            raise asyncio.CancelledError
        return abort

    def collect(
        self, batch: _BatchState, index: int, task: asyncio.Task[ToolResultBlock]
    ) -> BaseException | None:
        """Record the result of a finished call task; returns why the batch must abort
        (the call's failure), or None."""
        if task.cancelled():  # the tool cancelled the task it runs in
            cause: BaseException = asyncio.CancelledError()
        else:
            failure = task.exception()
            if failure is None:
                batch.results[index] = task.result()
                return None
            cause = failure.cause if isinstance(failure, _BatchAbort) else failure
        call = batch.calls[index]
        batch.results[index] = self.error_result(call, f"aborted: {error_text(cause)}", cause)
        return cause

    def close_batch(
        self,
        batch: _BatchState,
        tasks: dict[asyncio.Task[ToolResultBlock], int],
        pending: set[asyncio.Task[ToolResultBlock]],
        reason: str,
    ) -> None:
        """Stop the batch now: keep the results of calls that already finished, mark
        the rest canceled, cancel their tasks and commit, before any cleanup awaits."""
        batch.closed = True
        for task in sorted(pending, key=tasks.__getitem__):
            index = tasks[task]
            if task.done():
                self.collect(batch, index, task)
                pending.discard(task)
                continue
            task.cancel()
            batch.results[index] = self.error_result(
                batch.calls[index], f"canceled: tool batch aborted: {reason}"
            )
        self.commit(batch)

    async def run_call(
        self, call: ToolUseBlock, found: Tool, gates: _ParallelGates, batch: _BatchState
    ) -> ToolResultBlock:
        """One call as a task: returns its result block, or raises `_BatchAbort` when the
        batch must stop (every failure that is not a result the model sees, whatever
        its type, so nothing but `_BatchAbort` and the batch's own cancellation ever
        leaves the task)."""
        own_task = asyncio.current_task()
        tracing = self.context.tracing
        try:
            with tracing.tool_call(call) as span:
                block, error = await self.execute_call(call, found, gates)
                tracing.finish_tool_call(
                    span, block, type(error).__qualname__ if error is not None else "tool_error"
                )
        except _BatchAbort:
            raise
        except asyncio.CancelledError as exc:
            if _being_cancelled():
                raise
            raise _BatchAbort(exc) from exc
        except GeneratorExit as exc:
            if asyncio.current_task() is not own_task:
                raise  # the coroutine is being closed, not failing
            raise _BatchAbort(exc) from exc
        except BaseException as exc:
            raise _BatchAbort(exc) from exc
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "tool call %s (%s) finished%s",
                call.id,
                call.name,
                " with an error" if block.is_error else "",
                extra={
                    "agent": self.context.agent,
                    "invocation_id": self.context.invocation_id,
                },
            )
        if batch.closed:
            return block  # too late: the call is already reported as canceled
        return self.finish_call(call, block, error)

    async def execute_call(
        self, call: ToolUseBlock, found: Tool, gates: _ParallelGates
    ) -> tuple[ToolResultBlock, BaseException | None]:
        """Approve, gate, rate-limit and run one call; raises `_BatchAbort` when the
        batch must stop, otherwise always returns a result block."""
        run = self.context
        context = ToolContext(
            call=call,
            agent=run.agent,
            invocation_id=run.invocation_id,
            depth=run.depth,
            scope=run.scope,
            threads=run.threads,
            deps=run.deps,
            retries=0 if run.retries is None else run.retries.used(call.name),
        )
        if call.input_error is not None:
            return _error_block(call, f"invalid args: {call.input_error}"), None
        approver = run.approver
        if approver is not None:
            try:
                verdict = approver(call, context)
                decision = await verdict if inspect.isawaitable(verdict) else verdict
                if not isinstance(decision, Approval):
                    returned = "None" if decision is None else type(decision).__name__
                    raise TypeError(f"the approver returned {returned}, not an Approval")
            except Exception as exc:
                raise _BatchAbort(exc) from exc
            if not decision.allowed:
                return _error_block(call, f"denied: {decision.reason or 'denied'}"), None
        limits = run.policy.limits_for(call.name)
        async with gates.enter(call.name):
            timeout = asyncio.timeout(limits.timeout)
            try:
                async with timeout:
                    if limits.rate_limiter is not None:
                        try:
                            await limits.rate_limiter.acquire(call.name)
                        except Exception as exc:
                            text = f"rate limiter failed: {error_text(exc)}"
                            return _error_block(call, text), exc
                    value = await found.execute(call.input, context)
            except TimeoutError as exc:
                if timeout.expired():
                    text = f'tool "{call.name}" timed out after {_seconds(limits.timeout)}'
                    return _error_block(call, text), exc
                return _error_block(call, error_text(exc)), exc
            except InvalidToolArguments as exc:
                return _error_block(call, f"invalid args: {error_text(exc)}"), exc
            except ModelRetry as exc:
                if run.retries is not None:
                    run.retries.record(call.name, _retries_allowed(run.policy, found))
                return _error_block(call, error_text(exc)), exc
            except Exception as exc:
                return _error_block(call, error_text(exc)), exc
        try:
            converted = to_tool_result(value)
            block = ToolResultBlock(
                tool_use_id=call.id, content=converted.content, is_error=converted.is_error
            )
        except Exception as exc:
            return _error_block(call, error_text(exc)), exc
        if converted.artifacts:
            self.artifacts[call.id] = converted.artifacts
        return block, None


def _retries_allowed(policy: ToolPolicy, found: Tool) -> int:
    """A tool's `ModelRetry` budget: the policy's `per_tool` limits, else the tool's own
    `retries` (as `tool(..., retries=N)` sets it), else the policy's (L69)."""
    own = policy.per_tool.get(found.name)
    if own is not None and own.retries is not None:
        return own.retries
    declared = getattr(found, "retries", None)
    if isinstance(declared, int) and not isinstance(declared, bool):
        return declared
    return policy.retries


def _error_block(call: ToolUseBlock, text: str) -> ToolResultBlock:
    return ToolResultBlock(tool_use_id=call.id, content=(TextBlock(text=text),), is_error=True)


def _being_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _seconds(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:g}s"


async def _settle(tasks: set[asyncio.Task[ToolResultBlock]]) -> bool:
    """Wait until cancelled tool tasks have finished cleaning up. Cancellation of the
    wait itself is absorbed (and reported) so cleanup is never cut short."""
    cancelled_again = False
    while tasks:
        try:
            await asyncio.wait(tasks)
            break
        except asyncio.CancelledError:
            cancelled_again = True
    for task in tasks:
        if not task.cancelled():
            task.exception()  # retrieved: the batch is over
    return cancelled_again


class _BatchState:
    """One turn's tool calls and their results, in the model's order."""

    __slots__ = ("calls", "closed", "committed", "results")

    def __init__(self, calls: tuple[ToolUseBlock, ...]) -> None:
        self.calls = calls
        self.results: list[ToolResultBlock | None] = [None] * len(calls)
        self.closed = False
        self.committed = False


class _ParallelGates:
    """Bounded parallelism: the policy-wide cap and each tool's own cap."""

    __slots__ = ("_all", "_per_tool", "_policy")

    def __init__(self, policy: ToolPolicy) -> None:
        self._policy = policy
        self._all = asyncio.Semaphore(policy.max_parallel) if policy.max_parallel else None
        self._per_tool: dict[str, asyncio.Semaphore] = {}

    def enter(self, tool_name: str) -> _Gate:
        own = self._policy.per_tool.get(tool_name)
        tool_gate: asyncio.Semaphore | None = None
        if own is not None and own.max_parallel:
            tool_gate = self._per_tool.get(tool_name)
            if tool_gate is None:
                tool_gate = self._per_tool[tool_name] = asyncio.Semaphore(own.max_parallel)
        return _Gate(self._all, tool_gate)


class _Gate:
    __slots__ = ("_first", "_second")

    def __init__(self, first: asyncio.Semaphore | None, second: asyncio.Semaphore | None) -> None:
        self._first = first
        self._second = second

    async def __aenter__(self) -> None:
        if self._second is not None:
            await self._second.acquire()
        if self._first is not None:
            try:
                await self._first.acquire()
            except BaseException:
                if self._second is not None:
                    self._second.release()
                raise

    async def __aexit__(self, *exc_info: object) -> None:
        if self._first is not None:
            self._first.release()
        if self._second is not None:
            self._second.release()
