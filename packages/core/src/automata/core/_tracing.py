"""Tracing with the OpenTelemetry API: a span per run, per provider call, per tool call.

Spans nest the way calls nest: provider and tool spans under their run's span, and a
sub-agent's run under the tool call that started it. Attributes follow the
OpenTelemetry GenAI semantic conventions. Message content (prompts, answers, tool
arguments and results) is recorded only when `capture_content` is on. Without an
OpenTelemetry SDK configured every span is a no-op. Only `opentelemetry-api` is used.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer, TracerProvider

from automata.core._blocks import ToolResultBlock, ToolUseBlock, messages_json
from automata.core._labels import NO_LABELS, RunLabels
from automata.core._provider import ModelRequest, ModelResponse, Provider
from automata.core._usage import Usage

__all__ = ["Tracing", "logger"]

logger = logging.getLogger("automata")
"""The library's logger. Quiet unless the application configures logging; records
carry the agent, invocation and tool call ids in `extra` fields."""
logger.addHandler(logging.NullHandler())

# GenAI semantic-convention attribute names.
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_WRITE_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
AGENT_NAME = "gen_ai.agent.name"
CONVERSATION_ID = "gen_ai.conversation.id"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
ERROR_TYPE = "error.type"


@dataclass(frozen=True, slots=True)
class Tracing:
    """Where spans go and whether they carry message content."""

    tracer: Tracer
    capture_content: bool = False

    @classmethod
    def create(
        cls, tracer_provider: TracerProvider | None = None, *, capture_content: bool = False
    ) -> Tracing:
        """Tracing through `tracer_provider`, or OpenTelemetry's configured one."""
        tracer = trace.get_tracer("automata.core", tracer_provider=tracer_provider)
        return cls(tracer=tracer, capture_content=capture_content)

    def run(
        self, agent: str, invocation_id: str, depth: int, labels: RunLabels = NO_LABELS
    ) -> _SpanScope:
        """The span of one run (`invoke_agent`), for a `with` block; each of the run's
        labels is an attribute `automata.label.<key>`."""
        attributes = {OPERATION: "invoke_agent", AGENT_NAME: agent, CONVERSATION_ID: invocation_id}
        for key, value in labels.items:
            attributes[f"automata.label.{key}"] = value
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "run started",
                extra={"agent": agent, "invocation_id": invocation_id, "depth": depth},
            )
        return self._span(f"invoke_agent {agent}", SpanKind.INTERNAL, attributes)

    def finish_run(self, span: Span, usage: Usage, steps: int, stop_reason: str) -> None:
        if span.is_recording():
            _set_usage(span, usage)
            span.set_attribute("automata.steps", steps)
            span.set_attribute("automata.stop_reason", stop_reason)

    def model_call(self, provider: Provider, request: ModelRequest) -> _SpanScope:
        """The span of one provider call (`chat`), for a `with` block."""
        model = provider.model or ""
        attributes: dict[str, Any] = {
            OPERATION: "chat",
            PROVIDER: provider.provider_name,
            REQUEST_MODEL: model,
        }
        options = request.options
        if options.temperature is not None:
            attributes["gen_ai.request.temperature"] = options.temperature
        if options.max_tokens is not None:
            attributes["gen_ai.request.max_tokens"] = options.max_tokens
        if options.stop_sequences:
            attributes["gen_ai.request.stop_sequences"] = list(options.stop_sequences)
        scope = self._span(f"chat {model}".strip(), SpanKind.CLIENT, attributes)
        if self.capture_content and scope.span.is_recording():
            scope.span.set_attribute(INPUT_MESSAGES, messages_json(request.messages))
        return scope

    def finish_model_call(self, span: Span, response: ModelResponse) -> None:
        if not span.is_recording():
            return
        span.set_attribute(FINISH_REASONS, [response.raw_stop_reason or response.stop_reason.value])
        if response.model:
            span.set_attribute(RESPONSE_MODEL, response.model)
        if response.usage is not None:
            _set_usage(span, response.usage)
        if self.capture_content:
            span.set_attribute(OUTPUT_MESSAGES, messages_json([response.message]))

    def tool_call(self, call: ToolUseBlock) -> _SpanScope:
        """The span of one tool call (`execute_tool`), for a `with` block; sub-agent
        runs nest inside it."""
        attributes = {
            OPERATION: "execute_tool",
            TOOL_NAME: call.name,
            TOOL_CALL_ID: call.id,
            TOOL_TYPE: "function",
        }
        scope = self._span(f"execute_tool {call.name}", SpanKind.INTERNAL, attributes)
        if self.capture_content and scope.span.is_recording():
            scope.span.set_attribute(TOOL_ARGUMENTS, json.dumps(call.input))
        return scope

    def finish_tool_call(self, span: Span, block: ToolResultBlock, error_type: str) -> None:
        """Record a tool's result; an error result marks the span as failed."""
        if not span.is_recording():
            return
        if self.capture_content:
            span.set_attribute(TOOL_RESULT, block.text)
        if block.is_error:
            span.set_attribute(ERROR_TYPE, error_type)
            span.set_status(Status(StatusCode.ERROR, block.text))

    def _span(self, name: str, kind: SpanKind, attributes: dict[str, Any]) -> _SpanScope:
        return _SpanScope(self.tracer.start_span(name, kind=kind, attributes=attributes))


class _SpanScope:
    """Makes a span current for a block, records an escaping error and ends it. A span
    with no valid context (no SDK behind the API) is neither attached nor ended: there
    is nothing to record or propagate, and the hot path stays cheap."""

    __slots__ = ("span", "token")

    def __init__(self, span: Span) -> None:
        self.span = span
        self.token: object | None = None

    def __enter__(self) -> Span:
        if self.span.get_span_context().is_valid:
            self.token = otel_context.attach(trace.set_span_in_context(self.span))
        return self.span

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.token is None:
            return
        if exc is not None:
            record_error(self.span, exc)
        otel_context.detach(self.token)  # type: ignore[arg-type]
        self.span.end()


def record_error(span: Span, error: BaseException) -> None:
    """Mark a span failed by `error` (cancellation included)."""
    if not span.is_recording():
        return
    span.set_attribute(ERROR_TYPE, type(error).__qualname__)
    span.record_exception(error)
    span.set_status(Status(StatusCode.ERROR, str(error) or type(error).__name__))


def _set_usage(span: Span, usage: Usage) -> None:
    span.set_attribute(INPUT_TOKENS, usage.input_tokens)
    span.set_attribute(OUTPUT_TOKENS, usage.output_tokens)
    span.set_attribute(CACHE_READ_TOKENS, usage.cache_read_tokens)
    span.set_attribute(CACHE_WRITE_TOKENS, usage.cache_write_tokens)
