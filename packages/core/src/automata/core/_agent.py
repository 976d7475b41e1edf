"""`Agent`: a provider, a system prompt, tools and limits, run as a loop."""

from __future__ import annotations

import copy
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, overload

from opentelemetry.trace import TracerProvider

from automata.core._approval import Approver
from automata.core._blocks import Message
from automata.core._cost import PriceTable, check_price_table
from automata.core._deps import DepsT
from automata.core._errors import ToolDefinitionError
from automata.core._fallback import traced, with_fallback
from automata.core._guardrails import (
    InputGuardrail,
    InputGuardrailFunction,
    OutputGuardrail,
    OutputGuardrailFunction,
)
from automata.core._handoffs import Handoff
from automata.core._hooks import Hook
from automata.core._labels import RunLabels
from automata.core._limits import UsageLimits
from automata.core._loop import RunSettings
from automata.core._model_strings import as_provider
from automata.core._options import CallOptions
from automata.core._output_stage import OutputPlan
from automata.core._output_validators import OutputT, OutputValidator, check_output_validator
from automata.core._policy import ToolPolicy
from automata.core._prompts import PromptFunction, PromptPart, check_prompt_part
from automata.core._provider import Provider, ToolSpec
from automata.core._result import RunResult
from automata.core._run_arguments import PLAIN_RUN, PerRun
from automata.core._runner import RunPlan, check_max_steps, run_steps
from automata.core._scope import RunScope
from automata.core._session import Session
from automata.core._steps import Step
from automata.core._structured import STRUCTURED_OUTPUT_TOOL, StructuredOutput
from automata.core._suggest import suggests_keywords
from automata.core._surface import RunSurface
from automata.core._threads import ThreadSlots
from automata.core._tools import FunctionTool, Tool, tool, tool_of
from automata.core._tracing import Tracing

__all__ = ["Agent"]

_NO_POLICY = ToolPolicy()


def _pre_send_hooks(hooks: Iterable[Hook]) -> tuple[Hook, ...]:
    return tuple(h for h in hooks if type(h).before_send is not Hook.before_send)


def _post_run_hooks(hooks: Iterable[Hook]) -> tuple[Hook, ...]:
    return tuple(h for h in hooks if type(h).after_run is not Hook.after_run)


def _input_guardrail(item: object) -> InputGuardrail[Any]:
    return item if isinstance(item, InputGuardrail) else InputGuardrail(item)  # type: ignore[arg-type]


def _output_guardrail(item: object) -> OutputGuardrail[Any]:
    return item if isinstance(item, OutputGuardrail) else OutputGuardrail(item)  # type: ignore[arg-type]


_NOT_SETTINGS = frozenset({"_plan_cache", "_system_message"})
"""Attributes an agent sets for itself that no plan is built from."""


class Agent(RunSurface[DepsT], Generic[DepsT]):
    """A model with a system prompt, tools and limits.

    `run` is one-shot: a fresh transcript per call. `session()` keeps a conversation
    across runs. `provider` is a provider object such as `AnthropicProvider(...)` from
    `automata.anthropic` or `OpenAIProvider(...)` from `automata.openai`, or a model
    string `"provider:model"` (`"anthropic:claude-sonnet-4-5"`, `"openai:gpt-4o"`)
    that an installed extension resolves with its defaults; anything else raises
    `ArgumentTypeError` here, and a prefix no installed extension provides raises
    `UnknownProviderError` naming the package to install. Per-run keywords (the fields of
    `PerRun`, and `deps`: L4) apply to that run only and never change the agent.

    `system_prompt` is text or a function of the `RunContext` evaluated when a run
    starts a transcript (L65); `instructions` (and `@agent.instructions`) are evaluated
    before every request and never stored (L66). `deps_type` declares the type of the
    run's `deps` (the agent is an `Agent[DepsT]`, `Agent[None]` without it), which
    `mypy` then checks at every call site. `usage_limits` are every run's default
    `UsageLimits`; `prices` (a `PriceTable`) prices every call, so results carry
    their `cost` (L95). `input_guardrails` and `output_guardrails` (or
    `@agent.input_guardrail` / `@agent.output_guardrail`) check every run's input and
    final output (L73-L78); `handoffs` (agents, or `handoff(...)` tools) let the model
    hand the conversation to another agent (L79-L85). Runs are traced through
    `tracer_provider` (default: OpenTelemetry's configured provider); message content
    is put on spans only with `trace_content=True`. An agent is safe to run many times
    concurrently; registering tools while it runs affects only later runs.
    """

    @suggests_keywords("Agent")
    def __init__(
        self,
        provider: Provider | str,
        *,
        name: str | None = None,
        system_prompt: str | PromptFunction[DepsT] | None = None,
        instructions: PromptPart[DepsT] | Iterable[PromptPart[DepsT]] = (),
        tools: Iterable[Tool | Callable[..., Any]] = (),
        max_steps: int = 10,
        call_options: CallOptions | None = None,
        tool_policy: ToolPolicy | None = None,
        approver: Approver | None = None,
        hooks: Iterable[Hook] = (),
        tracer_provider: TracerProvider | None = None,
        trace_content: bool = False,
        usage_limits: UsageLimits | None = None,
        prices: PriceTable | None = None,
        deps_type: type[DepsT] | None = None,
        input_guardrails: Iterable[InputGuardrail[DepsT] | InputGuardrailFunction[DepsT]] = (),
        output_guardrails: Iterable[OutputGuardrail[DepsT] | OutputGuardrailFunction[DepsT]] = (),
        handoffs: Iterable[Agent[Any] | Handoff] = (),
        fallback: Provider | str | Iterable[Provider | str] | None = None,
        labels: Mapping[str, str] | None = None,
    ) -> None:
        self.labels = RunLabels.of(labels)
        """Correlation labels of every run of this agent (a run may add its own); a
        mapping set later is checked when the next run starts."""
        self.tracing = Tracing.create(tracer_provider, capture_content=trace_content)
        self.provider: Provider = traced(
            with_fallback(as_provider(provider), fallback), self.tracing
        )
        self.name = name or "agent"
        self.deps_type = deps_type
        if system_prompt is not None:
            check_prompt_part(system_prompt, "system_prompt")
        self.system_prompt = system_prompt
        parts = (
            (instructions,)
            if isinstance(instructions, str) or callable(instructions)
            else tuple(instructions)
        )
        for part in parts:
            check_prompt_part(part, "instructions")
        self._instructions: tuple[PromptPart[DepsT], ...] = parts
        self._output_validators: tuple[OutputValidator[DepsT, Any], ...] = ()
        self._input_guardrails: tuple[InputGuardrail[Any], ...] = tuple(
            _input_guardrail(item) for item in input_guardrails
        )
        self._output_guardrails: tuple[OutputGuardrail[Any], ...] = tuple(
            _output_guardrail(item) for item in output_guardrails
        )
        self._handoffs: dict[str, Handoff] = {}
        self.max_steps = check_max_steps(max_steps)
        self.call_options = call_options or CallOptions()
        self.tool_policy = tool_policy or _NO_POLICY
        self.approver = approver
        self.hooks: tuple[Hook, ...] = tuple(hooks)
        self.usage_limits = usage_limits
        self.prices = check_price_table(prices)
        self._plan_cache: RunPlan | None = None
        self._system_message: Message | None = None
        self._tools: dict[str, Tool] = {}
        self._specs: tuple[ToolSpec, ...] = ()
        self._threads = ThreadSlots()
        for item in tools:
            self.add_tool(item)
        for target in handoffs:
            self.add_handoff(target)

    _surface_name = "agent"

    # -- tools -------------------------------------------------------------------

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The registered tools, in registration order."""
        return tuple(self._tools.values())

    def add_tool(self, new_tool: Tool | Callable[..., Any]) -> Tool:
        """Register a tool, or a plain function as `tool(function)` makes it one; returns
        the tool registered. Raises `ToolDefinitionError` for something that is neither,
        a duplicate name or the reserved name `automata_structured_output`."""
        new_tool = tool_of(new_tool)
        name = new_tool.name
        if name == STRUCTURED_OUTPUT_TOOL:
            raise ToolDefinitionError(
                f"{STRUCTURED_OUTPUT_TOOL!r} is reserved for typed output; rename the tool"
            )
        if name in self._tools:
            raise ToolDefinitionError(f"a tool named {name!r} is already registered")
        tools = dict(self._tools)
        tools[name] = new_tool
        self._tools = tools
        self._specs = (
            *self._specs,
            ToolSpec(
                name=name, description=new_tool.description, input_schema=new_tool.input_schema
            ),
        )
        return new_tool

    def remove_tool(self, name: str) -> Tool:
        """Unregister the tool `name` and return it; runs already going keep it, later
        runs do not offer it (L4). Raises `ToolDefinitionError` when no tool has that
        name or it is a handoff (remove handoffs with `replace`)."""
        if name not in self._tools or name in self._handoffs:
            raise ToolDefinitionError(f"no tool named {name!r} can be removed")
        tools = dict(self._tools)
        removed = tools.pop(name)
        self._tools = tools
        self._specs = tuple(spec for spec in self._specs if spec.name != name)
        return removed

    @suggests_keywords("Agent.replace")
    def replace(
        self,
        *,
        provider: Provider | str | None = None,
        tools: Iterable[Tool | Callable[..., Any]] | None = None,
        tool_policy: ToolPolicy | None = None,
        approver: Approver | None = None,
    ) -> Agent[DepsT]:
        """A copy of this agent with `provider`, `tools` (the whole list, in order; a
        `Handoff` in it is registered as a handoff), `tool_policy` or `approver` in
        place of its own. Everything not given (name, prompts, instructions, hooks,
        guardrails, output validators, limits, the other settings) is this agent's;
        this agent does not change (L91)."""
        clone = copy.copy(self)
        clone._plan_cache = None
        if provider is not None:
            clone.provider = traced(as_provider(provider), self.tracing)
        if tool_policy is not None:
            clone.tool_policy = tool_policy
        if approver is not None:
            clone.approver = approver
        if tools is not None:
            clone._tools, clone._specs, clone._handoffs = {}, (), {}
            for item in tools:
                if isinstance(item, Handoff):
                    clone.add_handoff(item)
                else:
                    clone.add_tool(item)
        return clone

    def add_handoff(self, target: Agent[Any] | Handoff) -> Handoff:
        """Offer the model a tool that hands the conversation to another agent: an
        `Agent` (tool `transfer_to_<its name>`) or a `handoff(...)`; returns the tool.
        Raises `ToolDefinitionError` for a duplicate name (L79)."""
        made = target if isinstance(target, Handoff) else Handoff(target)
        self.add_tool(made)
        self._handoffs = {**self._handoffs, made.name: made}
        return made

    @overload
    def tool(
        self,
        function: Callable[..., Any],
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        retries: int | None = None,
    ) -> FunctionTool: ...

    @overload
    def tool(
        self,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        retries: int | None = None,
    ) -> Callable[[Callable[..., Any]], FunctionTool]: ...

    def tool(
        self,
        function: Callable[..., Any] | None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        retries: int | None = None,
    ) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
        """Register a function as a tool: `@agent.tool`, `@agent.tool(name=...)` or
        `agent.tool(fn, name=...)` (see `automata.core.tool`); returns the tool."""

        def register(fn: Callable[..., Any]) -> FunctionTool:
            made = tool(fn, name=name, description=description, retries=retries)
            self.add_tool(made)
            return made

        if function is None:
            return register
        return register(function)

    # -- prompts -----------------------------------------------------------------

    def instructions(self, function: PromptFunction[DepsT], /) -> PromptFunction[DepsT]:
        """Register an instructions function (sync or async, taking the run context),
        as `@agent.instructions`; returns it. Instructions are evaluated before every
        provider call and sent after the system prompt, never stored (L66)."""
        check_prompt_part(function, "instructions")
        self._instructions = (*self._instructions, function)
        return function

    def output_validator(
        self, function: OutputValidator[DepsT, OutputT], /
    ) -> OutputValidator[DepsT, OutputT]:
        """Register an output validator (sync or async, taking the run context and the
        output, returning the output to keep), as `@agent.output_validator`; returns
        it. Validators run in registration order on every run's output before it is
        returned (the typed value, or the text of an untyped run), and may raise
        `ModelRetry` to give the model a correction turn (L69-L72)."""
        check_output_validator(function)
        self._output_validators = (*self._output_validators, function)
        return function

    # -- guardrails --------------------------------------------------------------

    @overload
    def input_guardrail(
        self, function: InputGuardrailFunction[DepsT], /
    ) -> InputGuardrail[DepsT]: ...

    @overload
    def input_guardrail(
        self, /, *, name: str | None = None, run_in_parallel: bool = False
    ) -> Callable[[InputGuardrailFunction[DepsT]], InputGuardrail[DepsT]]: ...

    def input_guardrail(
        self,
        function: InputGuardrailFunction[DepsT] | None = None,
        /,
        *,
        name: str | None = None,
        run_in_parallel: bool = False,
    ) -> InputGuardrail[DepsT] | Callable[[InputGuardrailFunction[DepsT]], InputGuardrail[DepsT]]:
        """Register an input guardrail (sync or async, taking the run context and the
        messages the run starts from, returning a `GuardrailResult`), as
        `@agent.input_guardrail` or `@agent.input_guardrail(run_in_parallel=True)`;
        returns the `InputGuardrail` (L73-L74)."""

        def register(fn: InputGuardrailFunction[DepsT]) -> InputGuardrail[DepsT]:
            made = InputGuardrail(fn, name=name or "", run_in_parallel=run_in_parallel)
            self._input_guardrails = (*self._input_guardrails, made)
            return made

        if function is None:
            return register
        return register(function)

    @overload
    def output_guardrail(
        self, function: OutputGuardrailFunction[DepsT], /
    ) -> OutputGuardrail[DepsT]: ...

    @overload
    def output_guardrail(
        self, /, *, name: str | None = None
    ) -> Callable[[OutputGuardrailFunction[DepsT]], OutputGuardrail[DepsT]]: ...

    def output_guardrail(
        self,
        function: OutputGuardrailFunction[DepsT] | None = None,
        /,
        *,
        name: str | None = None,
    ) -> (
        OutputGuardrail[DepsT] | Callable[[OutputGuardrailFunction[DepsT]], OutputGuardrail[DepsT]]
    ):
        """Register an output guardrail (sync or async, taking the run context and the
        final output, returning a `GuardrailResult`), as `@agent.output_guardrail`;
        returns the `OutputGuardrail` (L76)."""

        def register(fn: OutputGuardrailFunction[DepsT]) -> OutputGuardrail[DepsT]:
            made = OutputGuardrail(fn, name=name or "")
            self._output_guardrails = (*self._output_guardrails, made)
            return made

        if function is None:
            return register
        return register(function)

    # -- runs --------------------------------------------------------------------

    def _plan(self, options: PerRun = PLAIN_RUN, *, name: str | None = None) -> RunPlan:
        """Resolve a run's options over the agent's settings (nothing is mutated).
        `name` names the run's agent instead (a sub-agent tool's). The plan of a plain
        run is kept until a setting of the agent changes (`__setattr__`)."""
        if options is not PLAIN_RUN or name is not None:
            return self._build_plan(options, name)
        plan = self._plan_cache
        if plan is None:
            plan = self._plan_cache = self._build_plan(options, None)
        return plan

    def __setattr__(self, attribute: str, value: object) -> None:
        """Every setting is read when a run starts (L4): setting one (or registering a
        tool, a handoff, a validator, ...) drops the cached plan of a plain run."""
        object.__setattr__(self, attribute, value)
        if attribute not in _NOT_SETTINGS:
            object.__setattr__(self, "_plan_cache", None)

    def _build_plan(self, options: PerRun, name: str | None) -> RunPlan:
        all_hooks = (*self.hooks, *options.hooks)
        settings = RunSettings(
            provider=self.provider,
            agent=name or self.name,
            tools=self._tools,
            tool_specs=self._specs,
            options=self.call_options.merged(options.call_options),
            policy=self.tool_policy if options.tool_policy is None else options.tool_policy,
            approver=self.approver if options.approver is None else options.approver,
            pre_send=_pre_send_hooks(all_hooks),
            max_steps=self.max_steps if options.max_steps is None else options.max_steps,
            usage_limits=self.usage_limits
            if options.usage_limits is None
            else options.usage_limits,
            prices=self.prices,
            system_prompt=None if isinstance(self.system_prompt, str) else self.system_prompt,
            instructions=self._instructions,
            tracing=self.tracing,
            threads=self._threads,
            handoffs=self._handoffs,
        )
        output_type = options.output_type
        validators = (*self._output_validators, *options.output_validators)
        output = None
        if output_type is not None or validators or self._output_guardrails:
            output = OutputPlan(
                structured=None if output_type is None else StructuredOutput(output_type),
                max_correction_turns=options.max_correction_turns,
                native=options.native_structured_output,
                validators=validators,
                guardrails=self._output_guardrails,
            )
        return RunPlan(
            settings=settings,
            post_run=_post_run_hooks(all_hooks),
            output=output,
            input_guardrails=self._input_guardrails,
            labels=RunLabels.of(self.labels).merged(options.labels),
            host=options.host,
        )

    def _start_transcript(self, messages: Sequence[Message] = ()) -> list[Message]:
        """A transcript to run on: the given messages, led by the system prompt unless
        they already start with a system message."""
        transcript = list(messages)
        prompt = self.system_prompt
        if (
            isinstance(prompt, str)
            and prompt
            and not (transcript and transcript[0].role == "system")
        ):
            cached = self._system_message
            if cached is None or cached.text != prompt:
                cached = self._system_message = Message.system(prompt)
            transcript.insert(0, cached)
        return transcript

    def _plan_run(self, options: PerRun) -> RunPlan:
        return self._plan(options)

    def _steps(
        self,
        plan: RunPlan,
        task: Message | None,
        scope: RunScope,
        invocation_id: str,
        deps: Any,
    ) -> AsyncGenerator[Step | RunResult[Any], None]:
        return run_steps(
            plan,
            self._start_transcript(),
            task,
            scope=scope,
            invocation_id=invocation_id,
            deps=deps,
        )

    def session(self, messages: Sequence[Message] | None = None) -> Session[DepsT]:
        """A conversation with this agent, optionally resumed from a transcript (as
        `Session.messages` or `load_messages` gave it). Raises `TranscriptError` for a
        transcript that cannot be continued."""
        return Session(self, messages or ())
