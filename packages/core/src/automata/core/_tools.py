"""Tools: what a model may call, and how a Python function becomes one.

`tool` derives the JSON schema from type hints (`Annotated[T, "description"]`, pydantic
models, defaults) and the docstring, validates the model's arguments before the function
runs, runs sync functions on the agent's own bounded threads (see `_threads`), and
turns whatever the function returns into a `ToolResult`.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import (
    Annotated,
    Any,
    Generic,
    Protocol,
    cast,
    get_args,
    get_origin,
    get_type_hints,
    overload,
)

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from automata.core._artifacts import Artifact, preview_block
from automata.core._blocks import (
    Block,
    DocumentBlock,
    ImageBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from automata.core._deps import DepsT
from automata.core._errors import AutomataError, ToolDefinitionError
from automata.core._labels import RunLabels
from automata.core._schema import model_schema, type_name
from automata.core._scope import RunScope
from automata.core._threads import ThreadSlots, ToolThreads
from automata.core._tool_activity import ToolActivity
from automata.core._tool_warnings import warn_undescribed_tool

__all__ = [
    "InvalidToolArguments",
    "Tool",
    "ToolContext",
    "ToolResult",
    "format_validation_error",
    "tool",
    "tool_of",
]


class InvalidToolArguments(AutomataError, ValueError):
    """The model's arguments do not fit the tool's schema. The loop reports it to the
    model as a recoverable `invalid args: ...` result; the tool never runs."""


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool hands back: ordered text and image blocks, and an error flag.

    `artifacts` are full contents kept beside the transcript (see `Artifact`): the
    model sees only what `content` holds (for `of_artifact`, the preview), the call's
    `ToolResultEvent` carries the artifacts whole."""

    content: tuple[Block, ...] = ()
    is_error: bool = False
    artifacts: tuple[Artifact, ...] = ()

    @classmethod
    def of_artifact(cls, artifact: Artifact, *, note: str | None = None) -> ToolResult:
        """A result the model sees as `artifact`'s preview (after `note`, when given),
        with the artifact whole beside it."""
        head = () if note is None else (TextBlock(text=note),)
        return cls(content=(*head, preview_block(artifact)), artifacts=(artifact,))

    @classmethod
    def text(cls, text: str) -> ToolResult:
        return cls(content=(TextBlock(text=text),))

    @classmethod
    def blocks(cls, *blocks: Block) -> ToolResult:
        return cls(content=tuple(blocks))

    @classmethod
    def error(cls, message: str) -> ToolResult:
        """A failed call the model should see as such (`is_error`)."""
        return cls(content=(TextBlock(text=message),), is_error=True)

    @classmethod
    def image(
        cls,
        data: bytes | None = None,
        *,
        media_type: str = "",
        url: str | None = None,
        caption: str | None = None,
    ) -> ToolResult:
        """An image inline (`data` + `media_type`) or by `url`, optionally captioned."""
        image = ImageBlock(media_type=media_type, data=data, url=url)
        if caption is None:
            return cls(content=(image,))
        return cls(content=(TextBlock(text=caption), image))

    def as_text(self) -> str:
        """The text blocks joined by newlines; images are left out."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))


@dataclass(frozen=True, slots=True)
class ToolContext(Generic[DepsT]):
    """Where a tool call runs: the call itself and the run it belongs to.

    A tool function receives it by declaring a parameter annotated `ToolContext` (or
    `ToolContext[Deps]`, the agent's deps type); that parameter never appears in the
    schema the model sees. `deps` is the object the run was given as `deps=` (None
    when it was given none).
    """

    call: ToolUseBlock
    agent: str
    invocation_id: str
    depth: int = 0
    scope: RunScope = field(default_factory=RunScope, repr=False, compare=False)
    """The run's event sink and shared call budget, which sub-agent tools pass on to
    the runs they start; the default is a run nobody streams, without a budget."""
    threads: ToolThreads | None = field(default=None, repr=False, compare=False)
    """The agent's sync-tool threads, bounded by the run's `ToolPolicy.max_sync_threads`;
    None outside a run, where a sync tool gets a thread of its own."""
    deps: DepsT = field(default=None, compare=False)  # type: ignore[assignment]
    """The run's dependencies, as passed to `run(..., deps=...)`; None without them."""
    retries: int = 0
    """How many times this tool has raised `ModelRetry` so far in this run (0 on its
    first call; L87)."""
    activity: ToolActivity = field(default=None, repr=False, compare=False)  # type: ignore[assignment]
    """What the call shows a person (`label`, `row`, `status`, `operation`), streamed
    as `ActivityEvent`s of the call; made for the call when none is given."""

    @property
    def labels(self) -> RunLabels:
        """The run's correlation labels (its agent's and its own)."""
        return self.scope.labels

    @property
    def host(self) -> Mapping[str, Any]:
        """The run's opaque host map, read-only (empty when it was given none); an
        approver sees it through the same context."""
        return self.scope.host

    def __post_init__(self) -> None:
        if self.activity is None:
            handle = ToolActivity(
                self.call,
                agent=self.agent,
                invocation_id=self.invocation_id,
                depth=self.depth,
                emit=self.scope.emit,
            )
            object.__setattr__(self, "activity", handle)


InvalidLabel = Callable[[Mapping[str, Any]], "str | None"]
"""Makes a display label from arguments that failed a tool's schema."""


class Tool(Protocol):
    """A callable capability offered to the model.

    `execute` receives the model's arguments as parsed JSON. It may raise
    `InvalidToolArguments` (reported as `invalid args: ...`) or any other exception
    (reported as an error result with the exception's message); the run goes on.
    """

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def input_schema(self) -> Mapping[str, Any]: ...

    async def execute(
        self, arguments: Mapping[str, Any], context: ToolContext
    ) -> ToolResult | str: ...


def format_validation_error(error: ValidationError) -> str:
    """One line per problem: `field.path: message`."""
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item.get("loc", ())) or "<arguments>"
        parts.append(f"{where}: {item.get('msg', 'invalid')}")
    return "; ".join(parts)


def to_tool_result(value: object) -> ToolResult:
    """Turn a tool function's return value into a `ToolResult`.

    Strings are text; `ToolResult` is kept; blocks become content; `None` is empty text;
    pydantic models and JSON values are serialized to JSON text. Anything else raises
    `TypeError` naming the type, which the loop reports to the model as an error; so
    does a malformed `ToolResult` (content that is not a tuple or list of blocks, an
    `is_error` that is not a bool), as a tool implementing `Tool` itself may return.
    """
    if isinstance(value, ToolResult):
        return _checked_result(value)
    if isinstance(value, str):
        return ToolResult.text(value)
    if value is None:
        return ToolResult.text("")
    if isinstance(value, TextBlock | ImageBlock | DocumentBlock):
        return ToolResult(content=(value,))
    if isinstance(value, BaseModel):
        return ToolResult.text(value.model_dump_json())
    if (
        isinstance(value, Sequence)
        and value
        and all(isinstance(v, TextBlock | ImageBlock | DocumentBlock) for v in value)
    ):
        return ToolResult(content=tuple(cast(Sequence[Block], value)))
    try:
        return ToolResult.text(json.dumps(value, ensure_ascii=False, default=_json_default))
    except (TypeError, ValueError):
        raise TypeError(
            f"tool returned a {type(value).__name__}, which cannot be shown to the model; "
            "return str, ToolResult, blocks, a pydantic model or JSON-serializable data"
        ) from None


_BLOCK_CLASSES = (
    TextBlock,
    ImageBlock,
    DocumentBlock,
    RawBlock,
    ThinkingBlock,
    ToolUseBlock,
    ToolResultBlock,
)


def _checked_result(result: ToolResult) -> ToolResult:
    """`result` if it is well formed (its fields hold what their types say), else a
    `TypeError` naming what is wrong."""
    content: object = result.content
    fix = (
        "which cannot be shown to the model; "
        "its content must be blocks (TextBlock, ImageBlock, ...)"
    )
    if not isinstance(content, tuple | list):
        raise TypeError(
            f"tool returned a ToolResult whose content is a {type(content).__name__}, {fix}"
        )
    for item in content:
        if not isinstance(item, _BLOCK_CLASSES):
            raise TypeError(
                f"tool returned a ToolResult whose content holds a {type(item).__name__}, {fix}"
            )
    if not isinstance(result.is_error, bool):
        raise TypeError(
            f"tool returned a ToolResult whose is_error is a {type(result.is_error).__name__}, "
            "not a bool"
        )
    artifacts: object = result.artifacts
    if not isinstance(artifacts, tuple | list) or not all(
        isinstance(item, Artifact) for item in artifacts
    ):
        raise TypeError("tool returned a ToolResult whose artifacts are not Artifact values")
    if isinstance(content, list) or isinstance(artifacts, list):
        return ToolResult(
            content=tuple(content), is_error=result.is_error, artifacts=tuple(artifacts)
        )
    return result


def _json_default(value: object) -> object:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(type(value).__name__)


_DOC_PARAM = re.compile(r"^\s*(?::param\s+)?(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


def _parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """The summary (text before any Args/Parameters section) and per-parameter text."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    in_args = False
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        if stripped.lower() in {"args:", "arguments:", "parameters:", "params:"}:
            in_args = True
            current = None
            continue
        if stripped.startswith(":param "):
            match = _DOC_PARAM.match(stripped)
            if match:
                current = match.group(1)
                params[current] = match.group(2).strip()
            continue
        if stripped.startswith(":") or stripped.lower() in {"returns:", "raises:", "yields:"}:
            in_args = False
            current = None
            continue
        if in_args:
            match = _DOC_PARAM.match(line)
            if match and (len(line) - len(line.lstrip())) <= 4:
                current = match.group(1)
                params[current] = match.group(2).strip()
            elif current and stripped:
                params[current] += " " + stripped
            elif not stripped:
                current = None
            continue
        if not params:
            summary.append(line)
    return "\n".join(summary).strip(), params


def _is_context_param(annotation: Any) -> bool:
    return annotation is ToolContext or get_origin(annotation) is ToolContext


def _is_model_type(annotation: Any) -> bool:
    return inspect.isclass(annotation) and issubclass(annotation, BaseModel)


@dataclass(frozen=True, slots=True)
class FunctionTool:
    """A tool backed by a Python function; built by `tool`."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    function: Callable[..., Any] = field(repr=False)
    arguments_model: type[BaseModel] = field(repr=False)
    model_parameter: str | None = field(default=None, repr=False)
    context_parameter: str | None = field(default=None, repr=False)
    is_async: bool = field(default=False, repr=False)
    retries: int | None = None
    """How many times per run this tool may raise `ModelRetry` (None: the policy's)."""
    idempotent: bool = False
    """The tool declares that running one call twice has the effect of running it once
    (it passes a stable key to the outside world, or it has no effect). A durable
    runtime may re-run such a call whose outcome was lost; the loop itself never does
    (L13). Other `Tool` implementations declare it with an `idempotent` attribute."""
    invalid_label: InvalidLabel | None = field(default=None, repr=False)
    """Given the arguments of a call that parsed as a JSON object but failed the
    schema, a safe display label for the call (or None), set as its activity label.
    Display only: the call still fails with `invalid args: ...` and the function never
    runs; a label function that raises is ignored."""

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolResult:
        try:
            parsed = self.arguments_model.model_validate(arguments)
        except ValidationError as exc:
            self._label_invalid(arguments, context)
            raise InvalidToolArguments(format_validation_error(exc)) from None
        if self.model_parameter is not None:
            kwargs: dict[str, Any] = {self.model_parameter: parsed}
        else:
            kwargs = {name: getattr(parsed, name) for name in type(parsed).model_fields}
        if self.context_parameter is not None:
            kwargs[self.context_parameter] = context
        if self.is_async:
            value = await self.function(**kwargs)
        else:
            threads = context.threads or ToolThreads(ThreadSlots())
            value = await threads.run(f"automata-tool-{self.name}", self.function, **kwargs)
        return to_tool_result(value)

    def _label_invalid(self, arguments: Mapping[str, Any], context: ToolContext) -> None:
        if self.invalid_label is None or not isinstance(arguments, Mapping):
            return
        try:
            label = self.invalid_label(arguments)
        except Exception:  # display only: a failing label changes nothing
            return
        if isinstance(label, str) and label:
            context.activity.label(label)


def _build_function_tool(
    function: Callable[..., Any], name: str | None, description: str | None
) -> FunctionTool:
    if not callable(function):
        raise ToolDefinitionError(f"tool needs a function, got {type(function).__name__}")
    tool_name = name or getattr(function, "__name__", "")
    if not tool_name or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", tool_name):
        raise ToolDefinitionError(
            f"invalid tool name {tool_name!r}: use 1-64 letters, digits, '_' or '-'"
        )
    summary, param_docs = _parse_docstring(inspect.getdoc(function))
    try:
        hints = get_type_hints(function, include_extras=True)
    except Exception as exc:
        raise ToolDefinitionError(f"tool {tool_name!r}: cannot read type hints: {exc}") from exc
    signature = inspect.signature(function)
    context_parameter: str | None = None
    fields: dict[str, Any] = {}
    unannotated: list[str] = []
    for param in signature.parameters.values():
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise ToolDefinitionError(f"tool {tool_name!r}: *args and **kwargs are not supported")
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise ToolDefinitionError(
                f"tool {tool_name!r}: positional-only parameter {param.name!r} is not supported"
            )
        if param.name not in hints:
            unannotated.append(param.name)
        annotation = hints.get(param.name, Any)
        if _is_context_param(annotation):
            context_parameter = param.name
            continue
        text = param_docs.get(param.name)
        if get_origin(annotation) is Annotated:
            base, *extras = get_args(annotation)
            described = [e for e in extras if isinstance(e, str)]
            others = [e for e in extras if not isinstance(e, str)]
            if described:
                text = described[0]
            annotation = Annotated[(base, *others)] if others else base
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, Field(default, description=text))

    model_parameter: str | None = None
    if len(fields) == 1:
        only, (annotation, _) = next(iter(fields.items()))
        if _is_model_type(annotation):
            model_parameter = only
    if model_parameter is not None:
        arguments_model = cast(type[BaseModel], fields[model_parameter][0])
    else:
        try:
            arguments_model = create_model(
                f"{tool_name}_arguments",
                __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=False),
                **fields,
            )
        except Exception:
            raise _unsupported(tool_name, fields) from None
    try:
        schema = model_schema(arguments_model)
    except Exception:
        raise _unsupported(tool_name, fields) from None
    text_description = description if description is not None else summary
    if not text_description and model_parameter is not None:
        text_description = inspect.getdoc(arguments_model) or ""
    warn_undescribed_tool(tool_name, unannotated=unannotated, described=bool(text_description))
    return FunctionTool(
        name=tool_name,
        description=text_description,
        input_schema=schema,
        function=function,
        arguments_model=arguments_model,
        model_parameter=model_parameter,
        context_parameter=context_parameter,
        is_async=inspect.iscoroutinefunction(function),
    )


def _unsupported(tool_name: str, fields: Mapping[str, tuple[Any, Any]]) -> ToolDefinitionError:
    """One line naming the first parameter whose type has no JSON schema."""
    for parameter, (annotation, _) in fields.items():
        try:
            TypeAdapter(annotation).json_schema()
        except Exception:
            return ToolDefinitionError(
                f"tool {tool_name!r}: parameter {parameter!r} has type "
                f"{type_name(_unannotated(annotation))}, which has no JSON schema; use str, "
                "int, float, bool, lists, dicts, Literal, Enum, a pydantic model, a "
                "dataclass or a TypedDict"
            )
    return ToolDefinitionError(f"tool {tool_name!r}: its parameters have no JSON schema")


def _unannotated(annotation: Any) -> Any:
    if get_origin(annotation) is Annotated:
        return get_args(annotation)[0]
    return annotation


@overload
def tool(function: Callable[..., Any], /) -> FunctionTool: ...


@overload
def tool(
    function: Callable[..., Any],
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    retries: int | None = None,
    idempotent: bool = False,
    invalid_label: InvalidLabel | None = None,
) -> FunctionTool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    retries: int | None = None,
    idempotent: bool = False,
    invalid_label: InvalidLabel | None = None,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    function: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    retries: int | None = None,
    idempotent: bool = False,
    invalid_label: InvalidLabel | None = None,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a tool from a function: `@tool`, `@tool(name=...)` or `tool(fn, ...)`.

    The name defaults to the function's name and the description to its docstring
    summary. Parameters become the schema; `Annotated[T, "text"]` or an `Args:` entry
    in the docstring describes one. A function whose only parameter is a pydantic model
    takes that model's fields as its arguments. A parameter annotated `ToolContext`
    receives the call's context. `retries` is how many times per run the tool may
    raise `ModelRetry` (None: the tool policy's; a policy's `per_tool` limits win).
    `idempotent=True` declares that running a call twice does no more than running it
    once (see `FunctionTool.idempotent`); it changes nothing in the loop.
    `invalid_label` gives a call whose arguments fail the schema a display label (see
    `FunctionTool.invalid_label`). Raises `ToolDefinitionError` for what cannot
    work, `ValueError` for negative `retries`.
    """
    if retries is not None and retries < 0:
        raise ValueError(f"retries must be >= 0, got {retries}")

    def decorate(fn: Callable[..., Any]) -> FunctionTool:
        made = _build_function_tool(fn, name, description)
        if idempotent:
            made = replace(made, idempotent=True)
        if invalid_label is not None:
            made = replace(made, invalid_label=invalid_label)
        return made if retries is None else replace(made, retries=retries)

    if function is None:
        return decorate
    return decorate(function)


_TOOL_ATTRIBUTES = ("name", "description", "input_schema", "execute")


def tool_of(item: object) -> Tool:
    """`item` as a tool to register: a `Tool` as it is, a plain function made one with
    `tool(item)` (so `Agent(provider, tools=[get_weather])` works). Raises
    `ToolDefinitionError` for anything else, naming what it lacks."""
    missing = [attribute for attribute in _TOOL_ATTRIBUTES if not hasattr(item, attribute)]
    if not missing:
        return cast(Tool, item)
    if callable(item):
        return tool(item)
    lacking = f" lacking {', '.join(missing)}" if len(missing) < len(_TOOL_ATTRIBUTES) else ""
    raise ToolDefinitionError(
        "a tool must be a function or a Tool (with name, description, input_schema and "
        f"execute), got {_kind(item)}{lacking}"
    )


def _kind(value: object) -> str:
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiouAEIOU' else 'a'} {name}"
