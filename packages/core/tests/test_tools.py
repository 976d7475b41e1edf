"""The `tool` factory: schemas from type hints, validation, execution, results."""

from __future__ import annotations

import asyncio
import threading
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from automata.core import (
    ImageBlock,
    InvalidToolArguments,
    TextBlock,
    ToolContext,
    ToolDefinitionError,
    ToolResult,
    ToolUseBlock,
    tool,
)


def context(name: str = "t") -> ToolContext:
    return ToolContext(
        call=ToolUseBlock(id="c1", name=name, input={}), agent="a", invocation_id="r"
    )


def test_schema_comes_from_type_hints_defaults_and_annotated_descriptions() -> None:
    @tool
    def forecast(city: Annotated[str, "the city"], days: int = 3, unit: Literal["c", "f"] = "c"):  # type: ignore[no-untyped-def]
        """Forecast the weather."""

    assert forecast.name == "forecast"
    assert forecast.description == "Forecast the weather."
    assert forecast.input_schema == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "city": {"type": "string", "description": "the city"},
            "days": {"type": "integer", "default": 3},
            "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
        },
        "required": ["city"],
    }


def test_docstring_args_describe_parameters_and_summary_excludes_them() -> None:
    @tool
    def search(query: str, limit: int = 5) -> str:
        """Search the catalogue.

        Args:
            query: words to look for
                across two lines
            limit: how many hits
        """
        return query

    props = search.input_schema["properties"]
    assert search.description == "Search the catalogue."
    assert props["query"]["description"] == "words to look for across two lines"
    assert props["limit"]["description"] == "how many hits"


def test_name_and_description_can_be_given() -> None:
    made = tool(lambda x: x, name="echo", description="Echo back.")
    assert (made.name, made.description) == ("echo", "Echo back.")


class Person(BaseModel):
    """A person to greet."""

    name: str = Field(description="their name")
    age: int


def test_a_single_pydantic_model_parameter_takes_its_fields_as_arguments() -> None:
    @tool
    def greet(person: Person) -> str:
        return f"hi {person.name} ({person.age})"

    assert set(greet.input_schema["properties"]) == {"name", "age"}
    assert greet.input_schema["properties"]["name"]["description"] == "their name"
    result = asyncio.run(greet.execute({"name": "Ada", "age": 36}, context()))
    assert result.as_text() == "hi Ada (36)"


def test_model_parameters_among_others_become_nested_objects() -> None:
    @tool
    def register(person: Person, note: str) -> str:
        return f"{person.name}:{note}"

    assert set(register.input_schema["properties"]) == {"person", "note"}
    result = asyncio.run(
        register.execute({"person": {"name": "A", "age": 1}, "note": "n"}, context())
    )
    assert result.as_text() == "A:n"


def test_context_parameter_is_injected_and_hidden_from_the_schema() -> None:
    @tool
    async def whoami(ctx: ToolContext, shout: bool = False) -> str:
        return ctx.call.id.upper() if shout else ctx.call.id

    assert set(whoami.input_schema["properties"]) == {"shout"}
    assert asyncio.run(whoami.execute({"shout": True}, context())).as_text() == "C1"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "city: Field required"),
        ({"city": "x", "days": "many"}, "days: Input should be a valid integer"),
        ({"city": "x", "extra": 1}, "extra: Extra inputs are not permitted"),
    ],
)
def test_arguments_are_validated_before_the_function_runs(
    arguments: dict[str, object], message: str
) -> None:
    ran = []

    @tool
    def forecast(city: str, days: int = 1) -> str:
        ran.append(city)
        return city

    with pytest.raises(InvalidToolArguments, match=message):
        asyncio.run(forecast.execute(arguments, context()))
    assert ran == []


def test_sync_functions_run_off_the_event_loop_thread() -> None:
    seen: list[int] = []

    @tool
    def where() -> str:
        seen.append(threading.get_ident())
        return "ok"

    async def main() -> int:
        await where.execute({}, context())
        return threading.get_ident()

    loop_thread = asyncio.run(main())
    assert seen
    assert seen[0] != loop_thread


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, ""),
        (42, "42"),
        (3.5, "3.5"),
        (True, "true"),
        ({"a": [1, "é"]}, '{"a": [1, "é"]}'),
        ([1, 2], "[1, 2]"),
        (Person(name="A", age=1), '{"name":"A","age":1}'),
        ([Person(name="A", age=1)], '[{"name": "A", "age": 1}]'),
    ],
    ids=["none", "int", "float", "bool", "dict", "list", "model", "list-of-models"],
)
def test_non_string_return_values_become_json_text(value: object, text: str) -> None:
    made = tool(lambda: value, name="f")
    assert asyncio.run(made.execute({}, context())).as_text() == text


def test_a_return_value_that_cannot_be_shown_raises_type_error_naming_it() -> None:
    made = tool(lambda: object(), name="f")
    with pytest.raises(TypeError, match="tool returned a object"):
        asyncio.run(made.execute({}, context()))


def test_rich_results_keep_blocks_in_order() -> None:
    made = tool(
        lambda: ToolResult.blocks(
            TextBlock(text="a"), ImageBlock(media_type="image/png", data=b"x")
        ),
        name="shot",
    )
    result = asyncio.run(made.execute({}, context()))
    assert [b.type for b in result.content] == ["text", "image"]
    assert not result.is_error


def test_result_constructors() -> None:
    assert ToolResult.text("t").content == (TextBlock(text="t"),)
    assert ToolResult.error("bad").is_error
    captioned = ToolResult.image(b"png", media_type="image/png", caption="a cat")
    assert captioned.as_text() == "a cat"
    assert captioned.content[1] == ImageBlock(media_type="image/png", data=b"png")
    assert ToolResult.image(url="https://x/y.png").content == (ImageBlock(url="https://x/y.png"),)


@pytest.mark.parametrize("bad_name", ["", "has space", "x" * 65, "dots.not.ok"])
def test_invalid_tool_names_fail_at_definition(bad_name: str) -> None:
    with pytest.raises(ToolDefinitionError, match="invalid tool name"):
        tool(lambda: None, name=bad_name)


def test_variadic_parameters_fail_at_definition() -> None:
    def spread(*args: int) -> None: ...

    with pytest.raises(ToolDefinitionError, match=r"\*args and \*\*kwargs"):
        tool(spread)
