"""The output stage of the loop: the final answer checked before the run returns it.

When a turn would end the run, the loop hands its answer here: typed output is
parsed (from prose, or taken from the hidden tool's accepted payload), output
validators and output guardrails run, and a rejected answer gets its correction, a
user message the loop appends before it goes on. One run, one set of limits, one
stream; post-run hooks see each rejected answer's committed transcript (L94).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from automata.core._batch import error_text
from automata.core._blocks import Message
from automata.core._deps import RunContext
from automata.core._errors import (
    HookError,
    InvalidStructuredOutputError,
    ModelRetry,
    OutputRetriesExceededError,
    RunError,
)
from automata.core._guardrails import OutputGuardrail, check_output
from automata.core._hooks import Hook
from automata.core._options import CallOptions
from automata.core._output_validators import OutputValidator, validate_output
from automata.core._post_run import after_run
from automata.core._result import RunResult
from automata.core._stop import StopReason
from automata.core._structured import StructuredAttempt, StructuredOutput

if TYPE_CHECKING:
    from automata.core._loop import RunSettings

__all__ = ["OutputPlan", "OutputStage"]

_CORRECTION = (
    "Your structured output did not match the schema: {violations}. "
    "Call the automata_structured_output tool again with corrected arguments."
)
_FORCE = "Give your final answer now by calling the automata_structured_output tool."


@dataclass(frozen=True, slots=True)
class OutputPlan:
    """How a run's final answer is checked: its output type (None: the text), the
    validators and guardrails it goes through, and how many correction turns it gets."""

    structured: StructuredOutput[Any] | None = None
    max_correction_turns: int = 1
    native: bool = False
    """Ask for the output type through the provider's native schema when it can."""
    validators: tuple[OutputValidator[Any, Any], ...] = ()
    guardrails: tuple[OutputGuardrail[Any], ...] = ()


class OutputStage:
    """One run's output stage: what is left of its correction turns, whether the
    hidden tool is forced or the native schema still used, and the violations seen.

    `settings(base)` gives the settings a turn is sent with (the hidden tool added,
    or the native schema, and a forced tool choice after the corrections);
    `judge(partial, attempt)` gives the run's result, or the correction message to
    append and go on with, or raises the run's error carrying `partial`."""

    __slots__ = (
        "base",
        "corrections_left",
        "deps",
        "failed_checkpoint",
        "forced",
        "native",
        "plan",
        "post_run",
        "violations",
    )

    def __init__(self, plan: OutputPlan, post_run: tuple[Hook, ...], deps: Any) -> None:
        self.plan = plan
        self.post_run = post_run
        self.deps = deps
        self.corrections_left = plan.max_correction_turns
        self.native = plan.native and plan.structured is not None
        self.forced = False
        self.violations: list[str] = []
        self.base: RunSettings | None = None
        self.failed_checkpoint: HookError | None = None
        """A post-run hook failure at a rejected answer: the run fails with it, and
        the hooks are not called again for it."""

    @property
    def structured(self) -> StructuredOutput[Any] | None:
        return self.plan.structured

    def settings(self, base: RunSettings | None = None) -> RunSettings:
        """The settings the next turn is sent with, over `base` (the run's agent's own;
        None: the base given last, kept after a handoff as before it)."""
        if base is None:
            assert self.base is not None, "no settings were given yet"
            base = self.base
        self.base = base
        structured = self.plan.structured
        if structured is None:
            return base
        self.native = self.native and base.provider.supports_native_output
        if self.native:
            return replace(base, output_schema=structured.output_schema)
        options = base.options
        if self.forced:
            options = options.merged(CallOptions(tool_choice=structured.tool_name))
        return replace(base, tool_specs=(*base.tool_specs, structured.spec), options=options)

    async def judge(
        self, partial: RunResult[Any], attempt: StructuredAttempt | None
    ) -> RunResult[Any] | Message:
        """The run's result for the answer `partial` ends with, or the correction to
        append. `attempt`: the hidden tool's payload, when the model answered through
        it (None: the answer is the final message's text)."""
        structured = self.plan.structured
        value: Any = partial.output
        if structured is not None:
            if attempt is None:
                attempt = structured.parse_text(partial.output)
            if not attempt.ok:
                return await self._correct_schema(partial, attempt)
            # The answer came (often through the hidden tool): the run ended its turn.
            partial = replace(partial, stop_reason=StopReason.END_TURN)
            value = attempt.value
        plan = self.plan
        if not plan.validators and not plan.guardrails:
            return replace(partial, output=value)
        context = RunContext(self.deps, partial.agent, partial.invocation_id)
        try:
            value = await validate_output(plan.validators, context, value)
            if plan.guardrails:
                try:
                    await check_output(plan.guardrails, context, value)
                except RunError as stopped:
                    stopped.result = replace(partial, output=value, stop_reason=StopReason.ERROR)
                    raise
        except ModelRetry as retry:
            if self.corrections_left > 0:
                self.corrections_left -= 1
                await self._checkpoint(partial)
                return Message.user(error_text(retry))
            raise OutputRetriesExceededError(
                "output validator asked the model to try again with no correction turn left "
                f"(max_correction_turns={plan.max_correction_turns}): {error_text(retry)}",
                replace(partial, stop_reason=StopReason.ERROR),
                retry_message=error_text(retry),
            ) from retry
        return replace(partial, output=value)

    async def _correct_schema(self, partial: RunResult[Any], attempt: StructuredAttempt) -> Message:
        """A typed answer that did not validate: a correction while they last, then
        one turn forced to call the hidden tool (a native payload falls back to the
        tool once first), then `InvalidStructuredOutputError` naming every violation."""
        violations = self.violations
        violations.extend(v for v in attempt.violations if v not in violations)
        if self.forced:
            raise InvalidStructuredOutputError(
                "structured output never validated: " + "; ".join(violations),
                partial,
                violations=violations,
            )
        await self._checkpoint(partial)
        if self.native:
            self.native = False
            return Message.user(_FORCE)
        if attempt.found and self.corrections_left > 0:
            self.corrections_left -= 1
            return Message.user(_CORRECTION.format(violations="; ".join(attempt.violations)))
        self.forced = True
        return Message.user(_FORCE)

    async def _checkpoint(self, partial: RunResult[Any]) -> None:
        """Post-run hooks see the rejected answer's committed transcript (L94)."""
        try:
            await after_run(self.post_run, partial, None)
        except HookError as failed:
            self.failed_checkpoint = failed
            raise
