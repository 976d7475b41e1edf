"""The agent loop: provider turns and tool batches until the model answers.

One run appends to the transcript it is given as it goes, so whatever happened is
committed even when the run fails; every tool call in it has a result. The rules this
module implements are listed in docs/loop.md and docs/streaming.md.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from automata.core._approval import Approver
from automata.core._batch import STOPS_THE_PROGRAM, BatchContext, ToolBatch, error_text
from automata.core._blocks import (
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from automata.core._call_ids import unique_call_ids, wire_call_ids
from automata.core._cost import Cost, CostTally, PriceTable
from automata.core._deps import RunContext
from automata.core._errors import (
    MaxStepsError,
    ProviderError,
    RunError,
    ToolBatchAbortedError,
    ToolRetriesExceededError,
)
from automata.core._events import (
    HandoffEvent,
    StreamEvent,
    UsageEvent,
)
from automata.core._handoffs import Handoff, SystemSwap, requested_handoff, settings_after_handoff
from automata.core._hooks import Hook, send_through
from automata.core._limits import UsageLimits, UsageMeter
from automata.core._model_retry import ToolRetries
from automata.core._model_stream import emit_calls, emit_whole, stream_model
from automata.core._options import CallOptions
from automata.core._output_stage import OutputStage
from automata.core._policy import CallBudget, ToolPolicy
from automata.core._prompts import (
    PromptFunction,
    PromptPart,
    render_instructions,
    render_prompt,
    with_instructions,
)
from automata.core._provider import (
    ModelRequest,
    ModelResponse,
    OutputSchema,
    Provider,
    StreamProvider,
    ToolSpec,
)
from automata.core._replies import refusal
from automata.core._result import RunResult
from automata.core._run_arguments import pending_calls
from automata.core._scope import RunScope
from automata.core._steps import ModelStep, RunRef, Step, ToolStep
from automata.core._stop import StopReason
from automata.core._structured import StructuredAttempt
from automata.core._threads import ThreadSlots, ToolThreads
from automata.core._tools import Tool
from automata.core._tracing import Tracing, logger
from automata.core._usage import Usage

__all__ = ["STOPPED_BEFORE_TOOLS", "RunLoop", "RunSettings"]

STOPPED_BEFORE_TOOLS = "canceled: the run was stopped before this call ran"


def _ignore(event: StreamEvent) -> None:
    """Where a hook's events go when no one listens to the run."""


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
    usage_limits: UsageLimits | None = None
    prices: PriceTable | None = None
    """Prices each call of the run (L95); None: the run has no cost."""
    system_prompt: PromptFunction[Any] | None = None
    """A dynamic system prompt, evaluated when a run starts a transcript without one."""
    instructions: tuple[PromptPart[Any], ...] = ()
    """Evaluated before every provider call and sent, never stored."""
    output_schema: OutputSchema | None = None
    tracing: Tracing = field(default_factory=Tracing.create)
    threads: ThreadSlots = field(default_factory=ThreadSlots)
    """The agent's sync-tool threads, shared by all its runs."""
    handoffs: Mapping[str, Handoff] = field(default_factory=dict)
    """The agent's handoff tools by name (they are in `tools` too)."""
    system_swap: SystemSwap | None = None
    """After a handoff: the system prompt sent in place of the transcript's."""


@dataclass(slots=True)
class _RunState:
    usage: Usage = field(default_factory=Usage)
    costs: CostTally = field(default_factory=CostTally)
    step_cost: Cost | None = None
    steps: int = 0
    retries: int = 0
    final_message: Message | None = None
    stop_reason: StopReason = StopReason.END_TURN
    raw_stop_reason: str = ""


class RunLoop:
    """Runs provider turns and tool batches on a transcript until the model answers.

    `steps()` appends every committed message to the transcript; a turn that would
    end the run goes through the run's `OutputStage` (when it has one), which may
    append a correction and let the loop go on (L94). It raises `RunError`
    subclasses (or `ProviderError`) carrying the partial result, and re-raises
    cancellation after committing a result for every pending tool call; `result()`
    reports the run as far as it got at any time.
    """

    __slots__ = (
        "batch_context",
        "budget",
        "deps",
        "depth",
        "emit",
        "guard",
        "invocation_id",
        "meter",
        "on_handoff",
        "open_calls",
        "output",
        "retries",
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
        deps: Any = None,
        output: OutputStage | None = None,
    ) -> None:
        self.output = output
        self.settings = settings if output is None else output.settings(settings)
        self.retries = ToolRetries()
        self.deps = deps
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
        self.meter: UsageMeter | None = scope.usage
        guard = scope.input_guard
        self.guard = guard if guard is not None and not guard.spent else None
        self.on_handoff = scope.on_handoff
        self.scope = RunScope(
            emit=scope.emit,
            budget=self.budget,
            usage=scope.usage,
            labels=scope.labels,
            host=scope.host,
        )
        self.state = _RunState()
        self.batch_context: BatchContext | None = None
        self.open_calls: tuple[ToolUseBlock, ...] = ()

    # -- results -----------------------------------------------------------------

    def result(self, stop_reason: StopReason | None = None) -> RunResult[str]:
        state = self.state
        final = state.final_message
        return RunResult(
            output=final.text if final is not None else "",
            messages=tuple(self.transcript),
            final_message=final,
            usage=state.usage,
            cost=state.costs.cost,
            steps=state.steps,
            retries=state.retries,
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

    async def steps(self) -> AsyncGenerator[Step | RunResult[Any], None]:
        """Each model turn and each tool batch as it is committed, then the result.

        Closed early (`aclose()` at a step), the run stops there: a turn whose calls
        have not run gets a `canceled` result for each of them, so the transcript
        stays valid, and the run's stop reason is `cancelled`."""
        settings = self.settings
        state = self.state
        transcript = self.transcript
        run = RunRef(settings.agent, self.invocation_id, transcript)
        # a transcript ending in a model turn whose calls have no results: run them first
        pending = pending_calls(transcript)
        try:
            while True:
                if pending:
                    calls, pending = pending, ()
                    self.open_calls = calls
                else:
                    if state.steps >= settings.max_steps:
                        if state.stop_reason is StopReason.PAUSED:
                            still = "its turn still paused"
                        elif transcript[-1].role == "user":  # a correction (L94)
                            still = "its answer not yet accepted"
                        else:
                            still = "the model still calling tools"
                        raise self.fail(
                            MaxStepsError(
                                f"run stopped after max_steps={settings.max_steps} with {still}"
                            ),
                            StopReason.MAX_STEPS,
                        )
                    response = await self.call_model()
                    message = response.message
                    calls = message.tool_calls
                    self.check_response(response, bool(calls))
                    transcript.append(message)
                    self.open_calls = calls
                    yield ModelStep(
                        message,
                        response.usage,
                        response.stop_reason,
                        state.steps,
                        run,
                        len(transcript),
                        state.step_cost,
                    )
                    if not calls:
                        self.open_calls = ()
                        if response.stop_reason is StopReason.PAUSED:
                            continue  # the paused turn goes back as it is (L92)
                        final = await self.answered(None)
                        if final is not None:
                            yield final
                            return
                        settings = self.settings
                        continue
                self.open_calls = ()
                emit_calls(self, calls)
                attempt, abort = await ToolBatch(self.tool_batch_context(), calls).run()
                if isinstance(abort, STOPS_THE_PROGRAM):
                    state.stop_reason = StopReason.ERROR
                    raise abort
                if abort is not None:
                    raise self.fail(
                        ToolBatchAbortedError(f"tool batch aborted: {error_text(abort)}"),
                        StopReason.ERROR,
                    ) from abort
                exceeded = self.retries.exceeded
                if exceeded is not None:
                    name, allowed = exceeded
                    raise self.fail(
                        ToolRetriesExceededError(
                            f'tool "{name}" asked the model to try again more than '
                            f"its {allowed} allowed retr{'y' if allowed == 1 else 'ies'}",
                            tool=name,
                        ),
                        StopReason.ERROR,
                    )
                target = requested_handoff(settings.handoffs, calls, transcript[-1])
                if target is not None:
                    self.hand_off(target)
                yield ToolStep(calls, transcript[-1], state.steps, run, len(transcript))
                if target is not None:
                    settings = self.settings
                    run = RunRef(settings.agent, self.invocation_id, transcript)
                if attempt is not None:  # the model answered through the hidden tool
                    final = await self.answered(attempt)
                    if final is not None:
                        yield final
                        return
                    settings = self.settings
        except asyncio.CancelledError:
            state.stop_reason = StopReason.CANCELLED
            raise
        except GeneratorExit:
            self.stop_early()
            raise

    async def answered(self, attempt: StructuredAttempt | None) -> RunResult[Any] | None:
        """The run's result for the answer just committed, or None when the output
        stage rejected it and appended its correction: the loop goes on (L94)."""
        stage = self.output
        if stage is None:
            return self.result()
        verdict = await stage.judge(self.result(), attempt)
        if isinstance(verdict, RunResult):
            return verdict
        self.transcript.append(verdict)
        self.settings = stage.settings()
        return None

    def hand_off(self, target: Handoff) -> None:
        """Go on with `target`'s agent: new settings (the run's limits and output type
        kept), a fresh batch context, the event, and the session told (L81)."""
        before = self.settings.agent
        base = settings_after_handoff(self.settings, target)
        self.settings = base if self.output is None else self.output.settings(base)
        self.batch_context = None
        if self.emit is not None:
            self.emit(
                HandoffEvent(
                    agent=before,
                    invocation_id=self.invocation_id,
                    depth=self.depth,
                    from_agent=before,
                    to_agent=self.settings.agent,
                )
            )
        if self.on_handoff is not None:
            self.on_handoff(target.agent)

    def stop_early(self) -> None:
        """The caller stopped the run at a step: answer the calls that never ran."""
        self.state.stop_reason = StopReason.CANCELLED
        calls = self.open_calls
        if calls:
            self.open_calls = ()
            self.transcript.append(
                Message(
                    role="tool",
                    content=tuple(
                        ToolResultBlock(
                            tool_use_id=call.id,
                            content=(TextBlock(text=STOPPED_BEFORE_TOOLS),),
                            is_error=True,
                        )
                        for call in calls
                    ),
                )
            )

    def tool_batch_context(self) -> BatchContext:
        """What this run's tool batches see of it (built on the first batch)."""
        context = self.batch_context
        if context is None:
            settings = self.settings
            context = self.batch_context = BatchContext(
                agent=settings.agent,
                invocation_id=self.invocation_id,
                depth=self.depth,
                tools=settings.tools,
                policy=settings.policy,
                approver=settings.approver,
                structured=None if self.output is None else self.output.structured,
                budget=self.budget,
                scope=self.scope,
                tracing=settings.tracing,
                commit=self.transcript.append,
                deps=self.deps,
                retries=self.retries,
                threads=ToolThreads(settings.threads, settings.policy.max_sync_threads),
            )
        return context

    async def call_model(self) -> ModelResponse:
        settings = self.settings
        meter = self.meter
        if meter is not None:
            over = meter.start_request()
            if over is not None:
                raise self.fail(over, StopReason.ERROR)
        messages = tuple(self.transcript)
        guard = self.guard
        if guard is not None:  # the first call of the run: its input guardrails (L73)
            guard.spent = True
            self.guard = None
            try:
                await guard.before(messages)
            except RunError as tripped:
                raise self.fail(tripped, StopReason.ERROR) from tripped.__cause__
        swap = settings.system_swap
        if swap is not None or settings.instructions or settings.pre_send:
            messages, request = await self.prepare(messages)
        else:  # nothing renders or rewrites the request: skip its run context
            request = ModelRequest(
                messages=messages,
                tools=settings.tool_specs,
                options=settings.options,
                output_schema=settings.output_schema,
            )
        request = wire_call_ids(request)  # the server's own ids back (L93)
        self.state.steps += 1
        provider = settings.provider
        tracing = settings.tracing
        try:
            with tracing.model_call(provider, request) as span:
                if guard is not None:
                    response = await guard.around(messages, lambda: self.send(request))
                else:
                    response = await self.send(request)
                tracing.finish_model_call(span, response)
        except asyncio.CancelledError:
            raise
        except RunError as error:
            if not hasattr(error, "result"):  # a guardrail's trip or failure (L74, L77)
                raise self.fail(error, StopReason.ERROR) from error.__cause__
            raise
        except ProviderError as exc:
            self.count_failed_call(exc)
            self.state.stop_reason = StopReason.ERROR
            exc.result = self.result()
            raise
        except Exception as exc:
            self.state.stop_reason = StopReason.ERROR
            failure = ProviderError(f"provider failed: {error_text(exc)}")
            failure.result = self.result()
            raise failure from exc
        response = unique_call_ids(response, self.transcript)
        self.state.retries += response.retries
        if logger.isEnabledFor(logging.DEBUG):
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
        cost = self.state.step_cost = self.price(response.usage, response.model, response.provider)
        self.state.final_message = response.message
        self.state.stop_reason = response.stop_reason
        self.state.raw_stop_reason = response.raw_stop_reason
        if meter is not None:
            over = meter.add(response.usage, cost)
            if over is not None:  # the reply is not committed (L59)
                raise self.fail(over, StopReason.ERROR)
        return response

    async def prepare(
        self, messages: tuple[Message, ...]
    ) -> tuple[tuple[Message, ...], ModelRequest]:
        """The messages and request of a model call whose system prompt is swapped, that
        has instructions or that pre-send hooks rewrite."""
        settings = self.settings
        context = RunContext(
            self.deps,
            settings.agent,
            self.invocation_id,
            self.depth,
            self.emit or _ignore,
            labels=self.scope.labels,
            host=self.scope.host,
        )
        swap = settings.system_swap
        if swap is not None:
            text = "" if swap.prompt is None else await render_prompt(swap.prompt, context)
            rest = messages[1:] if messages and messages[0].role == "system" else messages
            messages = (Message.system(text), *rest) if text else rest
        if settings.instructions:
            text = await render_instructions(settings.instructions, context)
            messages = with_instructions(messages, text)
        request = ModelRequest(
            messages=messages,
            tools=settings.tool_specs,
            options=settings.options,
            output_schema=settings.output_schema,
        )
        try:
            for hook in settings.pre_send:
                request = await send_through(hook, request, context)
        except RunError as hook_error:
            if not hasattr(hook_error, "result"):
                hook_error.result = self.result(StopReason.ERROR)
            raise
        return messages, request

    async def send(self, request: ModelRequest) -> ModelResponse:
        """One provider call: streamed when someone listens and the provider can."""
        provider = self.settings.provider
        if self.emit is not None and provider.supports_streaming:
            return await stream_model(self, cast(StreamProvider, provider), request)
        response = await provider.complete(request)
        if self.emit is not None:
            emit_whole(self, response.message)
        return response

    def count_failed_call(self, error: Exception) -> None:
        """What a failed call spent, when the vendor reported it (`ProviderError.usage`:
        an error event carrying usage), counts in the run's usage and its limits'
        meter, as a reply's would; the attempts it repeated count in its retries."""
        if not isinstance(error, ProviderError):
            return
        self.state.retries += error.retries
        usage = error.usage
        if usage is None:
            return
        self.state.usage = self.state.usage + usage
        if self.emit is not None:
            self.emit(self.tag(UsageEvent, usage=usage))
        cost = self.price(usage, "")
        if self.meter is not None:
            self.meter.add(usage, cost)  # the run fails with the provider's error either way

    def price(self, usage: Usage | None, model: str, answered_by: str = "") -> Cost | None:
        """One call's cost, added to the run's: priced by the table of the agent that
        made it, for the provider and model that answered (else the provider's own)
        (L95, L96)."""
        provider = self.settings.provider
        return self.state.costs.price(
            self.settings.prices,
            usage,
            answered_by or provider.provider_name,
            model or provider.model,
        )

    def check_response(self, response: ModelResponse, has_calls: bool) -> None:
        """Refuse a reply that is not a usable assistant turn; it is not committed.
        `has_calls`: whether the reply's message calls tools."""
        message = response.message
        stop = response.stop_reason
        if (
            (stop is StopReason.TOOL_USE if has_calls else stop is StopReason.END_TURN)
            and message.role == "assistant"
            and message.content
        ):
            return  # the common replies: an answer, or a turn of tool calls
        refused = refusal(response, has_calls)
        if refused is not None:
            raise self.fail(*refused)

    # -- events ------------------------------------------------------------------

    def tag(self, kind: Callable[..., StreamEvent], **fields: Any) -> StreamEvent:
        return kind(
            agent=self.settings.agent, invocation_id=self.invocation_id, depth=self.depth, **fields
        )
