"""Test helpers for code built on automata: providers that answer from a script or a
function, so agents can be tested without a network or an API key."""

from automata.core.testing._builders import tool_call, tool_calls, tool_results
from automata.core.testing._scripted import (
    BrokenStream,
    FunctionProvider,
    Reply,
    ReplyFunction,
    ScriptedProvider,
    ScriptExhaustedError,
    response_for,
)

__all__ = [
    "BrokenStream",
    "FunctionProvider",
    "Reply",
    "ReplyFunction",
    "ScriptExhaustedError",
    "ScriptedProvider",
    "response_for",
    "tool_call",
    "tool_calls",
    "tool_results",
]
