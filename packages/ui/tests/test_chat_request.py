"""How an AI SDK chat request maps onto a run: steps, results, and the calls left
waiting."""

from __future__ import annotations

from typing import Any

from automata.core import Message, TextBlock, ToolResultBlock
from automata.ui import UILimits
from automata.ui._vercel_request import plan_chat_run, read_chat_request


def request(*messages: dict[str, Any]) -> Any:
    return plan_chat_run(read_chat_request({"id": "c", "messages": list(messages)}, UILimits()))


def tool_part(call_id: str, state: str, **fields: Any) -> dict[str, Any]:
    return {"type": "tool-lookup", "toolCallId": call_id, "state": state, "input": {}, **fields}


def test_each_step_of_an_assistant_message_is_one_model_turn_with_its_results() -> None:
    """U4: step-start splits the turns; outputs become the turn's results."""
    plan = request(
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "look"}]},
        {
            "id": "a1",
            "role": "assistant",
            "parts": [
                {"type": "step-start"},
                tool_part("c1", "output-available", output={"n": 1}),
                {"type": "step-start"},
                {"type": "text", "text": "found one"},
            ],
        },
        {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "thanks"}]},
    )
    assert [m.role for m in plan.history] == ["user", "assistant", "tool", "assistant"]
    result = plan.history[2].content[0]
    assert isinstance(result, ToolResultBlock)
    assert result.text == '{"n": 1}'
    assert plan.task == Message(role="user", content=(TextBlock(text="thanks"),))


def test_a_call_of_an_earlier_step_never_answered_is_told_it_did_not_run() -> None:
    """U4: the person typed on instead of answering the approval."""
    plan = request(
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "look"}]},
        {
            "id": "a1",
            "role": "assistant",
            "parts": [{"type": "step-start"}, tool_part("c1", "approval-requested")],
        },
        {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "never mind"}]},
    )
    result = plan.history[2].content[0]
    assert isinstance(result, ToolResultBlock)
    assert result.is_error
    assert result.text == "not run: no answer from the front end"
