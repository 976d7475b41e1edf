"""The agent loop: provider turns and tool batches until the model answers.

One run appends to the transcript it is given as it goes, so whatever happened is
committed even when the run fails; every tool call in it has a result. The rules this
module implements are listed in DESIGN.md section 4 and docs/streaming.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from automata.core.approval import Approver
from automata.core.blocks import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from automata.core.errors import (
    CompletionError,
    IncompleteResponseError,
    MaxStepsError,
    ProviderError,
    RunError,
    ToolBatchAbortedError,
)
from automata.core.events import (
    StreamEvent,
    TextEvent,
    ThinkingEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from automata.core.hooks import Hook
from automata.core.options import CallOptions
from automata.core.policy import CallBudget, ToolPolicy
from automata.core.provider import (
    ModelRequest,
    ModelResponse,
    OutputSchema,
    Provider,
    StreamProvider,
    TextDelta,
    ThinkingDelta,
    ToolSpec,
)
from automata.core.result import RunResult
from automata.core.stop import StopReason
from automata.core.structured import StructuredAttempt, StructuredOutput
from automata.core.tools import InvalidToolArguments, Tool, ToolContext, to_tool_result
from automata.core.tracing import Tracing, logger
from automata.core.usage import Usage

__all__ = ["LoopOutcome", "RunLoop", "RunScope", "RunSettings", "error_text"]

EventSink = Callable[[StreamEvent], None]


@dataclass(frozen=True, slots=True)
class RunScope:
    """What a run shares with the sub-agent runs its tools start: where events go
    (None when nobody streams) and the call budget the children draw from."""

    emit: EventSink | None = None
    budget: CallBudget | None = None


@dataclass(frozen=True, slots=True)
class RunSettings:
    """Everything fixed for one run, resolved from the agent and per-run options."""

    provider: Provider
    agent: str
    tools: Mapping[str, Tool]
    tool_specs: tuple[ToolSpec, ...]
    options: CallOptions
    policy: ToolPolicy
    approver: Approver | None
    pre_send: tuple[Hook, ...]
    max_steps: int
    structured: StructuredOutput[Any] | None = None
    output_schema: OutputSchema | None = None
    tracing: Tracing = field(default_factory=Tracing.create)


@dataclass(slots=True)
class LoopOutcome:
    """A finished run and, for typed runs, the structured output it attempted."""

    result: RunResult[str]
    attempt: StructuredAttempt | None = None


@dataclass(slots=True)
class _RunState:
    usage: Usage = field(default_factory=Usage)
    steps: int = 0
    final_message: Message | None = None
    stop_reason: StopReason = StopReason.END_TURN
    raw_stop_reason: str = ""


def error_text(error: BaseException) -> str:
    """An exception as the model sees it: its message, or its type name if it has none."""
    text = str(error)
    return text if text else type(error).__name__


class _BatchAbort(Exception):
    """Raised inside a tool-call task when the whole batch must stop."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(error_text(cause))
        self.cause = cause


class RunLoop:
    """Runs provider turns and tool batches on a transcript until the model answers.

    `run()` appends every committed message to the transcript. It raises `RunError`
    subclasses (or `ProviderError`) carrying the partial result, and re-raises
    cancellation after committing a result for every pending tool call; `result()`
    reports the run as far as it got at any time.
    """

    __slots__ = (
        "budget",
        "depth",
        "emit",
        "invocation_id",
        "scope",
        "settings",
        "state",
        "transcript",
    )

    def __init__(
        self,
        settings: RunSettings,
        transcript: list[Message],
        invocation_id: str,
        depth: int,
        scope: RunScope,
    ) -> None:
        self.settings = settings
        self.transcript = transcript
        self.invocation_id = invocation_id
        self.depth = depth
        self.emit = scope.emit
        policy = settings.policy
        self.budget: CallBudget | None = (
            CallBudget(policy.max_calls, policy.per_tool, scope.budget)
            if (policy.max_calls is not None or policy.per_tool or scope.budget is not None)
            else None
        )
        self.scope = RunScope(emit=scope.emit, budget=self.budget)
        self.state = _RunState()

    # -- results -----------------------------------------------------------------

    def result(self, stop_reason: StopReason | None = None) -> RunResult[str]:
        state = self.state
        final = state.final_message
        return RunResult(
            output=final.text if final is not None else "",
            messages=tuple(self.transcript),
            final_message=final,
            usage=state.usage,
            steps=state.steps,
            stop_reason=stop_reason or state.stop_reason,
            raw_stop_reason=state.raw_stop_reason,
            agent=self.settings.agent,
            invocation_id=self.invocation_id,
        )

    def fail(self, error: RunError, stop_reason: StopReason) -> RunError:
        self.state.stop_reason = stop_reason
        error.result = self.result()
        return error

    # -- the loop ----------------------------------------------------------------

    async def run(self) -> LoopOutcome:
        settings = self.settings
        try:
            while True:
                if self.state.steps >= settings.max_steps:
                    raise self.fail(
                        MaxStepsError(
                            f"run stopped after max_steps={settings.max_steps} "
                            "with the model still calling tools"
                        ),
                        StopReason.MAX_STEPS,
                    )
                response = await self.call_model()
                message = response.message
                self.check_response(response)
                self.transcript.append(message)
                calls = message.tool_calls
                if not calls:
                    attempt = None
                    if settings.structured is not None:
                        attempt = settings.structured.parse_text(message.text)
                    return LoopOutcome(self.result(), attempt)
                self.emit_calls(calls)
                attempt, abort = await self.run_batch(calls)
                if abort is not None:
                    raise self.fail(
                        ToolBatchAbortedError(f"tool batch aborted: {error_text(abort)}"),
                        StopReason.ERROR,
                    ) from abort
                if attempt is not None:
                    return LoopOutcome(self.result(), attempt)
        except asyncio.CancelledError:
            self.state.stop_reason = StopReason.CANCELLED
            raise

    async def call_model(self) -> ModelResponse:
        settings = self.settings
        request = ModelRequest(
            messages=tuple(self.transcript),
            tools=settings.tool_specs,
            options=settings.options,
            output_schema=settings.output_schema,
        )
        try:
            for hook in settings.pre_send:
                request = await hook.before_send(request)
        except RunError as hook_error:
            if hook_error.result is None:
                hook_error.result = self.result(StopReason.ERROR)
            raise
        self.state.steps += 1
        provider = settings.provider
        tracing = settings.tracing
        try:
            with tracing.model_call(provider, request) as span:
                if self.emit is not None and _can_stream(provider):
                    response = await self.stream_model(provider, request)
                else:
                    response = await provider.complete(request)
                    if self.emit is not None:
                        self.emit_whole(response.message)
                tracing.finish_model_call(span, response)
        except (asyncio.CancelledError, RunError):
            raise
        except ProviderError as exc:
            self.state.stop_reason = StopReason.ERROR
            exc.result = self.result()
            raise
        except Exception as exc:
            self.state.stop_reason = StopReason.ERROR
            failure = ProviderError(f"provider failed: {error_text(exc)}")
            failure.result = self.result()
            raise failure from exc
        logger.debug(
            "model turn %d ended: %s",
            self.state.steps,
            response.stop_reason.value,
            extra={"agent": settings.agent, "invocation_id": self.invocation_id},
        )
        if response.usage is not None:
            self.state.usage = self.state.usage + response.usage
            if self.emit is not None:
                self.emit(self.tag(UsageEvent, usage=response.usage))
        self.state.final_message = response.message
        self.state.stop_reason = response.stop_reason
        self.state.raw_stop_reason = response.raw_stop_reason
        return response

    async def stream_model(self, provider: Provider, request: ModelRequest) -> ModelResponse:
        emit = self.emit
        assert emit is not None
        text: list[str] = []
        streamed = False
        response: ModelResponse | None = None
        try:
            async for item in cast(StreamProvider, provider).stream(request):
                if isinstance(item, TextDelta):
                    streamed = True
                    text.append(item.text)
                    emit(self.tag(TextEvent, text=item.text))
                elif isinstance(item, ThinkingDelta):
                    streamed = True
                    emit(self.tag(ThinkingEvent, text=item.text))
                else:
                    response = item
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not streamed:
                raise
            raise self.incomplete_stream("".join(text), error_text(exc)) from exc
        if response is None:
            raise self.incomplete_stream("".join(text), "stream ended without a final message")
        return response

    def incomplete_stream(self, partial: str, why: str) -> RunError:
        """The stream broke after content arrived: keep the partial text, never retry."""
        if partial:
            message = Message(role="assistant", content=(TextBlock(text=partial),))
            self.state.final_message = message
            self.transcript.append(message)
        return self.fail(
            IncompleteResponseError(f"response incomplete: {why}"), StopReason.INCOMPLETE
        )

    def check_response(self, response: ModelResponse) -> None:
        """Refuse a reply that is not a usable assistant turn; it is not committed."""
        message = response.message
        stop = response.stop_reason
        has_calls = any(isinstance(b, ToolUseBlock) for b in message.content)
        problem: RunError | None = None
        if message.role != "assistant":
            problem = CompletionError(f"provider returned a {message.role} message")
        elif not message.content:
            problem = IncompleteResponseError(
                f"provider returned an empty message (stop reason {stop.value})"
            )
        elif stop is StopReason.END_TURN and has_calls:
            problem = IncompleteResponseError("stop reason end_turn but the message calls tools")
        elif stop is StopReason.TOOL_USE and not has_calls:
            problem = IncompleteResponseError("stop reason tool_use but the message calls no tool")
        elif stop is StopReason.MAX_TOKENS and has_calls:
            problem = IncompleteResponseError("max_tokens reached inside a tool call")
        elif stop is StopReason.INCOMPLETE:
            problem = IncompleteResponseError("provider reported an incomplete response")
        elif stop in (StopReason.END_TURN, StopReason.TOOL_USE, StopReason.MAX_TOKENS):
            return
        else:
            raw = response.raw_stop_reason or stop.value
            problem = CompletionError(
                f"model stopped with {stop.value} (raw stop reason {raw!r})",
                raw_stop_reason=response.raw_stop_reason,
            )
        status = StopReason.INCOMPLETE if isinstance(problem, IncompleteResponseError) else stop
        if status in (StopReason.END_TURN, StopReason.TOOL_USE):
            status = StopReason.ERROR
        raise self.fail(problem, status)

    # -- events ------------------------------------------------------------------

    def tag(self, kind: Callable[..., StreamEvent], **fields: Any) -> StreamEvent:
        return kind(
            agent=self.settings.agent, invocation_id=self.invocation_id, depth=self.depth, **fields
        )

    def emit_whole(self, message: Message) -> None:
        """A non-streaming provider's turn as one thinking and one text event."""
        assert self.emit is not None
        thinking = "".join(b.thinking for b in message.content if isinstance(b, ThinkingBlock))
        if thinking:
            self.emit(self.tag(ThinkingEvent, text=thinking))
        text = message.text
        if text:
            self.emit(self.tag(TextEvent, text=text))

    def emit_calls(self, calls: tuple[ToolUseBlock, ...]) -> None:
        if self.emit is not None:
            for call in calls:
                self.emit(self.tag(ToolCallEvent, call=call))

    def finish_call(
        self, call: ToolUseBlock, block: ToolResultBlock, error: BaseException | None = None
    ) -> ToolResultBlock:
        if self.emit is not None:
            self.emit(
                self.tag(
                    ToolResultEvent,
                    call=call,
                    result=block.text,
                    blocks=block.content,
                    is_error=block.is_error,
                    error=error,
                )
            )
        return block

    def error_result(
        self, call: ToolUseBlock, text: str, error: BaseException | None = None
    ) -> ToolResultBlock:
        return self.finish_call(call, _error_block(call, text), error)

    # -- tool batches ------------------------------------------------------------

    async def run_batch(
        self, calls: tuple[ToolUseBlock, ...]
    ) -> tuple[StructuredAttempt | None, BaseException | None]:
        """Run one turn's calls concurrently and commit their results, in the model's
        order, as one tool message (also when the batch is aborted or cancelled)."""
        settings = self.settings
        structured = settings.structured
        batch = _Batch(calls)
        attempt: StructuredAttempt | None = None
        runnable: list[tuple[int, ToolUseBlock, Tool]] = []
        for index, call in enumerate(calls):
            if structured is not None and call.name == structured.tool_name:
                attempt = structured.validate_payload(call.input)
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
            if self.budget is not None:
                refusal = self.budget.reserve(call.name)
                if refusal is not None:
                    batch.results[index] = self.error_result(call, f"denied: {refusal}")
                    continue
            runnable.append((index, call, found))
        abort = await self.run_calls(runnable, batch) if runnable else None
        if not batch.committed:
            self.commit(batch)
        return attempt, abort

    def commit(self, batch: _Batch) -> None:
        """Append the batch's results as the tool message; every call has one."""
        results = tuple(r for r in batch.results if r is not None)
        assert len(results) == len(batch.calls)
        self.transcript.append(Message(role="tool", content=results))
        batch.committed = True

    async def run_calls(
        self, runnable: list[tuple[int, ToolUseBlock, Tool]], batch: _Batch
    ) -> BaseException | None:
        """Run the calls as tasks. A task emits its own result event when it finishes,
        so events arrive in completion order; once the batch is closed (aborted or
        cancelled) late finishers are ignored and their calls reported as canceled."""
        gates = _ParallelGates(self.settings.policy)
        tasks: dict[asyncio.Task[ToolResultBlock], int] = {}
        for index, call, found in runnable:
            tasks[asyncio.create_task(self.run_call(call, found, gates, batch))] = index
        pending = set(tasks)
        abort: _BatchAbort | None = None
        try:
            while pending and abort is None:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    try:
                        batch.results[tasks[task]] = task.result()
                    except _BatchAbort as exc:
                        if abort is None:
                            abort = exc
                            batch.results[tasks[task]] = self.error_result(
                                batch.calls[tasks[task]], f"aborted: {exc}", exc.cause
                            )
        except asyncio.CancelledError:
            self.close_batch(batch, tasks, pending, "run cancelled")
            await _settle(pending)
            raise
        if abort is None:
            return None
        self.close_batch(batch, tasks, pending, str(abort))
        if await _settle(pending):
            raise asyncio.CancelledError
        return abort.cause

    def close_batch(
        self,
        batch: _Batch,
        tasks: dict[asyncio.Task[ToolResultBlock], int],
        pending: set[asyncio.Task[ToolResultBlock]],
        reason: str,
    ) -> None:
        """Stop the batch now: keep the results of calls that already finished, mark
        the rest canceled, cancel their tasks and commit, before any cleanup awaits."""
        batch.closed = True
        for task in list(pending):
            index = tasks[task]
            if task.done() and not task.cancelled() and task.exception() is None:
                batch.results[index] = task.result()
                pending.discard(task)
                continue
            task.cancel()
            batch.results[index] = self.error_result(
                batch.calls[index], f"canceled: tool batch aborted: {reason}"
            )
        self.commit(batch)

    async def run_call(
        self, call: ToolUseBlock, found: Tool, gates: _ParallelGates, batch: _Batch
    ) -> ToolResultBlock:
        tracing = self.settings.tracing
        with tracing.tool_call(call) as span:
            block, error = await self.execute_call(call, found, gates)
            tracing.finish_tool_call(
                span, block, type(error).__qualname__ if error is not None else "tool_error"
            )
        logger.debug(
            "tool call %s (%s) finished%s",
            call.id,
            call.name,
            " with an error" if block.is_error else "",
            extra={"agent": self.settings.agent, "invocation_id": self.invocation_id},
        )
        if batch.closed:
            return block  # too late: the call is already reported as canceled
        return self.finish_call(call, block, error)

    async def execute_call(
        self, call: ToolUseBlock, found: Tool, gates: _ParallelGates
    ) -> tuple[ToolResultBlock, BaseException | None]:
        """Approve, gate, rate-limit and run one call; raises `_BatchAbort` when the
        batch must stop, otherwise always returns a result block."""
        context = ToolContext(
            call=call,
            agent=self.settings.agent,
            invocation_id=self.invocation_id,
            depth=self.depth,
            scope=self.scope,
        )
        approver = self.settings.approver
        if approver is not None:
            try:
                decision = await approver(call, context)
            except asyncio.CancelledError as exc:
                if _being_cancelled():
                    raise
                raise _BatchAbort(exc) from exc
            except Exception as exc:
                raise _BatchAbort(exc) from exc
            if not decision.allowed:
                return _error_block(call, f"denied: {decision.reason or 'denied'}"), None
        limits = self.settings.policy.limits_for(call.name)
        async with gates.enter(call.name):
            timeout = asyncio.timeout(limits.timeout)
            try:
                async with timeout:
                    if limits.rate_limiter is not None:
                        try:
                            await limits.rate_limiter.acquire(call.name)
                        except asyncio.CancelledError:
                            raise
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
                return _error_block(call, f"invalid args: {exc}"), exc
            except asyncio.CancelledError as exc:
                if _being_cancelled():
                    raise
                raise _BatchAbort(exc) from exc
            except Exception as exc:
                return _error_block(call, error_text(exc)), exc
        try:
            converted = to_tool_result(value)
        except TypeError as exc:
            return _error_block(call, error_text(exc)), exc
        block = ToolResultBlock(
            tool_use_id=call.id, content=converted.content, is_error=converted.is_error
        )
        return block, None


def _error_block(call: ToolUseBlock, text: str) -> ToolResultBlock:
    return ToolResultBlock(tool_use_id=call.id, content=(TextBlock(text=text),), is_error=True)


def _can_stream(provider: Provider) -> bool:
    """Stream when the provider can; a provider opts out with `supports_streaming = False`."""
    return isinstance(provider, StreamProvider) and getattr(provider, "supports_streaming", True)


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


class _Batch:
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
