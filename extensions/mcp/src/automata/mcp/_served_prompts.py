"""The prompts an `MCPToolServer` serves: Python functions whose typed parameters are
the prompt's arguments, listed and got over MCP."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp import MCPError
from mcp import types as mcp_types

from automata.core import Message, ToolDefinitionError, ToolResult
from automata.mcp._results import to_mcp_result
from automata.mcp._served_functions import ServedFunction

__all__ = ["ServedPrompt", "ServedPrompts", "prompt_of"]


@dataclass(frozen=True, slots=True)
class ServedPrompt:
    """One served prompt: its name and the function that fills it."""

    name: str
    function: ServedFunction

    def listed(self) -> mcp_types.Prompt:
        """Each parameter is an argument, with the description `@tool` gives it
        (`Annotated[str, "..."]` or the docstring's `Args:`); one without a default is
        required."""
        schema = self.function.built.input_schema
        properties: Mapping[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        return mcp_types.Prompt(
            name=self.name,
            description=self.function.summary or None,
            arguments=[
                mcp_types.PromptArgument(
                    name=argument,
                    description=properties.get(argument, {}).get("description"),
                    required=argument in required,
                )
                for argument in self.function.parameters
            ],
        )

    async def get(self, arguments: Mapping[str, str]) -> mcp_types.GetPromptResult:
        """The function's value as prompt messages: a `str` is one user message, a
        `Message` or a list of them keep their roles (each block a message of its
        own, mapped as tool results' content is)."""
        value = await self.function.call(arguments)
        return mcp_types.GetPromptResult(
            description=self.function.summary or None,
            messages=_prompt_messages(self.name, value),
        )


def _prompt_messages(name: str, value: object) -> list[mcp_types.PromptMessage]:
    if isinstance(value, str):
        value = [Message.user(value)]
    elif isinstance(value, Message):
        value = [value]
    if not isinstance(value, Iterable) or isinstance(value, (bytes, Mapping)):
        raise MCPError(mcp_types.INTERNAL_ERROR, f"prompt {name!r} gave {type(value).__name__}")
    messages: list[mcp_types.PromptMessage] = []
    for message in value:
        if not isinstance(message, Message) or message.role not in ("user", "assistant"):
            raise MCPError(
                mcp_types.INTERNAL_ERROR,
                f"prompt {name!r} must give user or assistant messages",
            )
        shown = to_mcp_result(ToolResult(content=message.content))
        messages.extend(
            mcp_types.PromptMessage(role=message.role, content=block) for block in shown.content
        )
    return messages


class ServedPrompts:
    """Prompts by name, in the order they were added."""

    def __init__(self) -> None:
        self._by_name: dict[str, ServedPrompt] = {}

    def add(self, prompt: ServedPrompt) -> None:
        """Raises `ToolDefinitionError` for a name served already."""
        if prompt.name in self._by_name:
            raise ToolDefinitionError(f"the prompt {prompt.name!r} is served already")
        self._by_name = {**self._by_name, prompt.name: prompt}

    def __bool__(self) -> bool:
        return bool(self._by_name)

    def listing(self) -> mcp_types.ListPromptsResult:
        return mcp_types.ListPromptsResult(
            prompts=[prompt.listed() for prompt in self._by_name.values()]
        )

    async def get(self, name: str, arguments: Mapping[str, str]) -> mcp_types.GetPromptResult:
        """An unknown name, or arguments that do not fit, raise `MCPError(INVALID_PARAMS)`."""
        found = self._by_name.get(name)
        if found is None:
            raise MCPError(mcp_types.INVALID_PARAMS, f"no prompt {name!r}")
        return await found.get(arguments)


def prompt_of(
    function: Callable[..., Any], *, name: str | None, description: str | None
) -> ServedPrompt:
    prompt_name = name or getattr(function, "__name__", "")
    if not prompt_name:
        raise ToolDefinitionError("a prompt needs a name")
    served = ServedFunction.of(function, what="prompt", name=prompt_name, description=description)
    return ServedPrompt(name=prompt_name, function=served)
