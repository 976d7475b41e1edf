"""The typed errors of the library.

Every error raised by a run is an `AutomataError` subclass that carries the run's
partial `RunResult` as `.result` (filled in as far as the run got): the transcript,
usage and steps are never lost because a run failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from automata.core._result import RunResult
    from automata.core._usage import Usage

__all__ = [
    "ArgumentTypeError",
    "AutomataError",
    "CompletionError",
    "EventCallbackError",
    "EventLoopRunningError",
    "HookError",
    "IncompleteResponseError",
    "InvalidArgumentError",
    "InvalidStructuredOutputError",
    "MaxStepsError",
    "MissingAPIKeyError",
    "ModelRetry",
    "OutputRetriesExceededError",
    "ProviderError",
    "ProviderTimeoutError",
    "ReplyTooLargeError",
    "RetryableError",
    "RunError",
    "ToolBatchAbortedError",
    "ToolDefinitionError",
    "ToolRetriesExceededError",
    "TranscriptError",
    "TranscriptVersionError",
]


class AutomataError(Exception):
    """Base of every error this library raises on purpose."""


class InvalidArgumentError(AutomataError, ValueError):
    """A call was given a value it cannot use (an empty task, `max_steps=0`). The
    message names the argument and what would work; nothing ran."""


class ArgumentTypeError(AutomataError, TypeError):
    """A call was given an argument of the wrong kind (`Agent(None)`, a string where a
    provider belongs, an unknown keyword, an unsupported `output_type`). The message
    names the argument and what would work; nothing ran."""


class EventLoopRunningError(AutomataError, RuntimeError):
    """A blocking call (`run_sync`) was made where an event loop is already running,
    such as a notebook cell or an async web handler; `await` the async form instead."""


class EventCallbackError(AutomataError, RuntimeError):
    """The `on_event` callback given to `iter` raised; the run was stopped (docs/loop.md,
    **L89**). The callback's exception is the `__cause__`."""


class RetryableError(AutomataError):
    """Raise (or subclass) this from a tool to mark a failure worth repeating: tools
    wrapped with `with_tool_retry` retry it; `retry_after` (seconds) is honoured."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ModelRetry(AutomataError):
    """Raise this from a tool or an output validator to ask the model to try again.

    From a tool, the model gets `message` as the call's error result, within the tool's
    retry budget (`ToolLimits.retries`, default 1); from an output validator, it gets
    `message` in a correction turn, within the run's `max_correction_turns`."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TranscriptError(AutomataError, ValueError):
    """A persisted or supplied transcript is not valid; nothing was loaded or run."""


class TranscriptVersionError(TranscriptError):
    """A transcript was written in a newer format version than this library reads.
    `found` is the transcript's version, `supported` the newest one read here."""

    def __init__(self, message: str, *, found: int, supported: int) -> None:
        super().__init__(message)
        self.found = found
        self.supported = supported


class ToolDefinitionError(AutomataError, TypeError):
    """A tool cannot be built or registered (bad signature, duplicate or reserved name)."""


class ProviderError(AutomataError):
    """A provider call failed before producing a usable reply.

    `status` is the vendor's HTTP status when there was one; `retryable` says whether
    repeating the same request may succeed (rate limits, overload). `usage` is what the
    vendor reported the failed call spent, when it did (an error event carrying usage);
    the loop counts it in the run's usage. `retries` is how many failed attempts the
    provider repeated before giving up with this error (0 when it was not retried);
    the loop counts them in the run's `RunResult.retries`.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str = "",
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        usage: Usage | None = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.usage = usage
        self.retries = 0
        self.result: RunResult[Any] | None = None


class MissingAPIKeyError(ProviderError):
    """A provider was built without a client and found no API key. The message names
    the environment variable to set and the `api_key=` argument."""


class ReplyTooLargeError(ProviderError):
    """A provider's reply went past a size limit: its decoded body past
    `max_reply_bytes`, or one server-sent event of its stream past `max_event_bytes`.
    Reading stopped there (what was already handed on stays handed on); never
    retryable. `limit` is the limit it went past, in bytes."""

    def __init__(self, message: str, *, provider: str = "", limit: int) -> None:
        super().__init__(message, provider=provider)
        self.limit = limit


class ProviderTimeoutError(ProviderError):
    """A call ran past its `call_timeout`, or its stream went `stream_idle_timeout`
    seconds without an event. Retryable before the first delta; after it, final (the
    agent loop reports it as `IncompleteResponseError`, keeping the partial reply)."""


class RunError(AutomataError):
    """A run failed. `.result` is the run as far as it got: a run attaches it before
    the error leaves `run`, `stream` or `iter` (L9), so every run error caught there has
    one."""

    def __init__(self, message: str, result: RunResult[Any] | None = None) -> None:
        super().__init__(message)
        self._result = result

    @property
    def result(self) -> RunResult[Any]:
        """The run as far as it got. On an error no run has raised yet (one a hook or a
        guardrail is raising) this raises `AttributeError`, so `hasattr` tells."""
        if self._result is None:
            raise AttributeError(f"{type(self).__name__} has no result: no run raised it yet")
        return self._result

    @result.setter
    def result(self, result: RunResult[Any]) -> None:
        self._result = result


class MaxStepsError(RunError):
    """The run used its step budget while the model still wanted tools."""


class IncompleteResponseError(RunError):
    """The model's reply is unusable as a whole: the stream broke after content arrived,
    or the stop reason contradicts the message. Partial content is in `.result`."""


class CompletionError(RunError):
    """The provider ended the turn in a way that is not an answer: content filter,
    provider-side error, or a stop reason we cannot interpret (`raw_stop_reason`)."""

    def __init__(
        self, message: str, result: RunResult[Any] | None = None, *, raw_stop_reason: str = ""
    ) -> None:
        super().__init__(message, result)
        self.raw_stop_reason = raw_stop_reason


class ToolBatchAbortedError(RunError):
    """The approver (or a tool's own cancellation) aborted a tool batch. Every call of the
    batch still has a result in the transcript, so the session can continue."""


class OutputRetriesExceededError(RunError):
    """An output validator raised `ModelRetry` with no correction turn left
    (`max_correction_turns`). `retry_message` is what it said; `.result` is the run up
    to the rejected answer."""

    def __init__(
        self, message: str, result: RunResult[Any] | None = None, *, retry_message: str = ""
    ) -> None:
        super().__init__(message, result)
        self.retry_message = retry_message


class ToolRetriesExceededError(RunError):
    """A tool raised `ModelRetry` more often in one run than its retry budget allows.
    `tool` names it; the transcript in `.result` ends with the call's error result."""

    def __init__(
        self, message: str, result: RunResult[Any] | None = None, *, tool: str = ""
    ) -> None:
        super().__init__(message, result)
        self.tool = tool


class InvalidStructuredOutputError(RunError):
    """Typed output never validated. `violations` lists every attempt's problems."""

    def __init__(
        self, message: str, result: RunResult[Any] | None = None, *, violations: Sequence[str] = ()
    ) -> None:
        super().__init__(message, result)
        self.violations = tuple(violations)


class HookError(RunError):
    """Post-run hooks failed after a successful run. The run's result is in `.result`;
    the hooks' errors are in `.errors` (also chained as `__cause__` for the first)."""

    def __init__(
        self, message: str, result: RunResult[Any] | None, errors: Sequence[BaseException]
    ) -> None:
        super().__init__(message, result)
        self.errors = tuple(errors)
