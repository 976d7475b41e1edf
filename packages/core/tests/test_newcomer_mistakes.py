"""Mistakes a new user makes with an agent's keywords and tools explain themselves:
a misspelt keyword is met with the one meant, a plain function is accepted as a tool,
and a tool that tells the model too little is warned about once, when it is made.
Every test asserts the exact message."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from automata.core import (
    Agent,
    ArgumentTypeError,
    ToolDefinitionError,
    ToolDefinitionWarning,
    tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results

AGENT_KEYWORDS = (
    "approver, call_options, deps_type, fallback, handoffs, hooks, input_guardrails, instructions, "
    "labels, max_steps, name, output_guardrails, prices, provider, system_prompt, tool_policy, "
    "tools, trace_content, tracer_provider, usage_limits"
)


def test_a_misspelt_agent_keyword_is_answered_with_the_keyword_meant() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        Agent(ScriptedProvider([]), system_promt="Be brief.")  # type: ignore[call-arg]
    assert str(caught.value) == (
        "Agent() got an unexpected keyword argument 'system_promt'; did you mean 'system_prompt'?"
    )


def test_an_agent_keyword_close_to_nothing_lists_the_keywords_agent_takes() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        Agent(ScriptedProvider([]), verbose=True)  # type: ignore[call-arg]
    assert str(caught.value) == (
        f"Agent() got an unexpected keyword argument 'verbose'; it accepts: {AGENT_KEYWORDS}"
    )


def test_several_misspelt_agent_keywords_are_each_answered() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        Agent(ScriptedProvider([]), system_promt="x", tool=[])  # type: ignore[call-arg]
    assert str(caught.value) == (
        "Agent() got unexpected keyword arguments 'system_promt', 'tool'; "
        "did you mean 'system_prompt' for 'system_promt', 'tools' for 'tool'?"
    )


def test_a_misspelt_replace_keyword_names_agent_replace() -> None:
    agent = Agent(ScriptedProvider([]))
    with pytest.raises(ArgumentTypeError) as caught:
        agent.replace(tool=[])  # type: ignore[call-arg]
    assert str(caught.value) == (
        "Agent.replace() got an unexpected keyword argument 'tool'; did you mean 'tools'?"
    )


def test_the_agent_signature_seen_by_inspect_is_the_constructors_own() -> None:
    import inspect

    assert "system_prompt" in inspect.signature(Agent).parameters


def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


async def test_a_plain_function_is_accepted_as_a_tool_and_runs() -> None:
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("c1", "weather", city="Oslo")), "done"]),
        tools=[weather],
    )
    assert [(t.name, t.description, dict(t.input_schema)) for t in agent.tools] == [
        (t.name, t.description, dict(t.input_schema)) for t in [tool(weather)]
    ]
    result = await agent.run("weather?")
    assert tool_results(result.messages) == [("c1", "sunny in Oslo", False)]


def test_add_tool_and_replace_accept_plain_functions_too() -> None:
    agent = Agent(ScriptedProvider([]))
    added = agent.add_tool(weather)
    assert added.name == "weather"
    assert [t.name for t in agent.replace(tools=[weather]).tools] == ["weather"]


@pytest.mark.parametrize(
    ("item", "described"),
    [(42, "an int"), (None, "None"), ("weather", "a str")],
)
def test_what_is_neither_a_function_nor_a_tool_is_refused_naming_it(
    item: Any, described: str
) -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        Agent(ScriptedProvider([]), tools=[item])
    assert str(caught.value) == (
        "a tool must be a function or a Tool (with name, description, input_schema and "
        f"execute), got {described}"
    )


def test_a_tool_like_object_missing_part_of_tool_is_refused_naming_what_it_lacks() -> None:
    class HalfTool:
        name = "half"
        description = "Half a tool."

    with pytest.raises(ToolDefinitionError) as caught:
        Agent(ScriptedProvider([]), tools=[HalfTool()])  # type: ignore[list-item]
    assert str(caught.value) == (
        "a tool must be a function or a Tool (with name, description, input_schema and "
        "execute), got a HalfTool lacking input_schema, execute"
    )


def test_a_parameter_without_an_annotation_is_warned_about_naming_it() -> None:
    def lookup(city, days: int = 3, unit=None) -> str:  # type: ignore[no-untyped-def]
        """Look up the forecast."""
        return ""

    with pytest.warns(ToolDefinitionWarning) as caught:
        made = tool(lookup)
    assert [str(w.message) for w in caught] == [
        "tool 'lookup': parameters 'city', 'unit' have no type annotation, so the model is "
        "offered any value (schema {}); annotate them, e.g. `city: str`"
    ]
    assert made.input_schema["properties"]["city"] == {}


def test_a_tool_without_a_description_is_warned_about_naming_it() -> None:
    def lookup(city: str) -> str:
        return city

    with pytest.warns(ToolDefinitionWarning) as caught:
        Agent(ScriptedProvider([]), tools=[lookup])
    assert [str(w.message) for w in caught] == [
        "tool 'lookup' has no description (no docstring, no description=), so the model "
        "sees only its name; give the function a docstring saying what it does"
    ]
    assert caught[0].filename == __file__


def test_a_single_unannotated_parameter_is_worded_in_the_singular() -> None:
    def echo(text):  # type: ignore[no-untyped-def]
        """Say it back."""
        return text

    with pytest.warns(ToolDefinitionWarning) as caught:
        tool(echo)
    assert [str(w.message) for w in caught] == [
        "tool 'echo': parameter 'text' has no type annotation, so the model is offered any "
        "value (schema {}); annotate it, e.g. `text: str`"
    ]


def test_a_described_and_annotated_tool_is_built_without_a_warning() -> None:
    def lookup(city: str) -> str:
        return city

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tool(weather)
        tool(lookup, description="Look a city up.")
        Agent(ScriptedProvider([]), tools=[weather])


def test_the_warning_is_given_once_when_the_tool_is_made_not_at_each_run() -> None:
    def lookup(city: str) -> str:
        return city

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent = Agent(
            ScriptedProvider([tool_calls(tool_call("1", "lookup", city="x")), "a", "b"]),
            tools=[lookup],
        )
        agent.run_sync("one")
        agent.run_sync("two")
    assert [type(w.message) for w in caught] == [ToolDefinitionWarning]
