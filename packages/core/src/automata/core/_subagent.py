"""Sub-agents as tools: an agent becomes a tool another agent can call.

The tool's arguments are a pydantic params model; invalid arguments are reported to
the calling model as `invalid args: ...` and never start the sub-agent. When the
parent streams, the sub-agent streams into the same stream, its events tagged with
the tool's name and the parent's tool-call id. The sub-agent draws on the parent's
total tool-call budget. Its usage is its own, not added to the parent's.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar, overload

from pydantic import BaseModel, ConfigDict, ValidationError

from automata.core._agent import Agent
from automata.core._blocks import Message
from automata.core._errors import ToolDefinitionError
from automata.core._runner import execute_run
from automata.core._schema import model_schema
from automata.core._tools import (
    InvalidToolArguments,
    ToolContext,
    ToolResult,
    format_validation_error,
    to_tool_result,
)

__all__ = ["SubAgentTool", "TaskParams", "as_tool", "as_tool_func"]

P = TypeVar("P", bound=BaseModel)


class TaskParams(BaseModel):
    """The default sub-agent arguments: one task in natural language."""

    model_config = ConfigDict(defer_build=True)
    task: str


@dataclass(frozen=True, slots=True)
class SubAgentTool(Generic[P]):
    """A tool that runs an agent. Built by `as_tool` / `as_tool_func`."""

    agent: Agent[Any]
    name: str
    description: str
    params: type[P]
    render: Callable[[P], str] = field(repr=False)
    input_schema: Mapping[str, Any] = field(default_factory=dict)
    share_usage_limits: bool = False
    """Whether the sub-agent's usage counts against its parent run's limits."""

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolResult:
        try:
            params = self.params.model_validate(arguments)
        except ValidationError as exc:
            raise InvalidToolArguments(format_validation_error(exc)) from None
        task = Message.user(self.render(params))
        scope = context.scope
        if not self.share_usage_limits and scope.usage is not None:
            scope = replace(scope, usage=None)
        result = await execute_run(
            self.agent._plan(name=self.name),
            self.agent._start_transcript(),
            task,
            scope=scope,
            invocation_id=context.call.id,
            depth=context.depth + 1,
            deps=context.deps,
        )
        return to_tool_result(result.output)  # typed outputs arrive as JSON


def _as_json(params: BaseModel) -> str:
    return params.model_dump_json()


@overload
def as_tool(
    agent: Agent[Any], name: str, description: str, *, share_usage_limits: bool = False
) -> SubAgentTool[TaskParams]: ...


@overload
def as_tool(
    agent: Agent[Any],
    name: str,
    description: str,
    params: type[P],
    *,
    share_usage_limits: bool = False,
) -> SubAgentTool[P]: ...


def as_tool(
    agent: Agent[Any],
    name: str,
    description: str,
    params: type[BaseModel] = TaskParams,
    *,
    share_usage_limits: bool = False,
) -> SubAgentTool[Any]:
    """A tool that runs `agent` with the validated arguments, as JSON, as its task.
    The sub-agent's run gets its parent's `deps`. With `share_usage_limits` its
    requests and tokens also count against the parent run's `UsageLimits` (L61).
    Raises `ToolDefinitionError` for something that is not an `Agent`, a name a model
    cannot call, or params that are not a pydantic model."""
    return _sub_agent_tool(
        "as_tool", agent, name, description, params, _as_json, share_usage_limits
    )


@overload
def as_tool_func(
    agent: Agent[Any],
    name: str,
    description: str,
    *,
    render: Callable[[TaskParams], str] | None = None,
    share_usage_limits: bool = False,
) -> SubAgentTool[TaskParams]: ...


@overload
def as_tool_func(
    agent: Agent[Any],
    name: str,
    description: str,
    params: type[P],
    render: Callable[[P], str] | None = None,
    *,
    share_usage_limits: bool = False,
) -> SubAgentTool[P]: ...


def as_tool_func(
    agent: Agent[Any],
    name: str,
    description: str,
    params: type[BaseModel] = TaskParams,
    render: Callable[[Any], str] | None = None,
    *,
    share_usage_limits: bool = False,
) -> SubAgentTool[Any]:
    """A tool that runs `agent` with `render(params)` as its task, so the sub-agent
    reads natural language instead of JSON. Without `render`, a `TaskParams` task is
    passed as is and other params as JSON. Raises `ToolDefinitionError` for something
    that is not an `Agent`, a name a model cannot call, or params that are not a
    pydantic model. `share_usage_limits` is as for `as_tool`."""
    return _sub_agent_tool(
        "as_tool_func",
        agent,
        name,
        description,
        params,
        render or _default_render,
        share_usage_limits,
    )


def _sub_agent_tool(
    function: str,
    agent: Agent[Any],
    name: str,
    description: str,
    params: type[BaseModel],
    render: Callable[[Any], str],
    share_usage_limits: bool,
) -> SubAgentTool[Any]:
    if not isinstance(agent, Agent):
        if agent is None or isinstance(agent, str):
            got = "None" if agent is None else f"the string {agent!r}"
        else:
            got = f"an object of type {type(agent).__name__}"
        raise ToolDefinitionError(
            f"{function}() needs an Agent as its first argument, got {got}; "
            f"pass the agent the tool should run, e.g. {function}(Agent(provider), "
            f'"researcher", "Research a topic.")'
        )
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        raise ToolDefinitionError(
            f"invalid tool name {name!r}: use 1-64 letters, digits, '_' or '-'"
        )
    if not (inspect.isclass(params) and issubclass(params, BaseModel)):
        raise ToolDefinitionError(
            f"sub-agent tool {name!r}: params must be a pydantic model, got {params!r}"
        )
    return SubAgentTool(
        agent=agent,
        name=name,
        description=description,
        params=params,
        render=render,
        input_schema=model_schema(params),
        share_usage_limits=share_usage_limits,
    )


def _default_render(params: BaseModel) -> str:
    if isinstance(params, TaskParams):
        return params.task
    return params.model_dump_json()
