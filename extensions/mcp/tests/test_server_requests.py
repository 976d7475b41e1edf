"""What servers ask of the client, against the asking server (a real stdio process on the
SDK): sampling answered by an automata provider, elicitation by a handler or an
approver, progress reported to a handler, and resources and prompts listed and read."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from automata.core import (
    Agent,
    Approval,
    ImageBlock,
    Message,
    ModelResponse,
    StopReason,
    StreamAccumulator,
    TextBlock,
    ToolContext,
    ToolUseBlock,
)
from automata.core.testing import FunctionProvider, ScriptedProvider, tool_call, tool_calls
from automata.mcp import (
    Elicitation,
    ElicitationReply,
    MCPProgress,
    MCPServer,
    MCPToolError,
    approve_elicitations,
)

ASKING = Path(__file__).resolve().parent / "servers" / "asking.py"


def asking(**options: Any) -> MCPServer:
    return MCPServer.stdio(sys.executable, [str(ASKING)], **options)


async def test_sampling_is_answered_by_the_provider_given() -> None:
    """P15"""
    model = ScriptedProvider(
        [ModelResponse(Message.assistant("a, b, c"), StopReason.END_TURN, model="small-1")]
    )
    async with asking(sampling=model) as server:
        answer = json.loads((await server.call("summarize", {})).as_text())
    assert answer == {"text": "a, b, c", "model": "small-1", "stop": "endTurn", "role": "assistant"}
    (request,) = model.requests
    assert request.system_prompt == "Be brief."
    assert request.messages[1] == Message.user("Summarize: a b c")
    assert request.options.max_tokens == 64
    assert request.options.temperature == 0.5
    assert request.options.stop_sequences == ("END",)


async def test_a_sampling_provider_that_fails_gives_the_server_an_error_naming_it() -> None:
    """P15"""
    async with asking(sampling=ScriptedProvider([RuntimeError("quota spent")])) as server:
        text = (await server.call("summarize", {})).as_text()
    assert text.startswith("refused -32603: ")
    assert "quota spent" in text


async def test_without_a_sampling_provider_the_request_is_refused() -> None:
    """P15"""
    async with asking() as server:
        text = (await server.call("summarize", {})).as_text()
    assert text == "refused -32600: Sampling not supported"


async def test_elicitation_is_answered_by_the_handler_given() -> None:
    """P16"""
    asked: list[Elicitation] = []

    async def handler(elicitation: Elicitation) -> ElicitationReply:
        asked.append(elicitation)
        return ElicitationReply.accept({"city": "Oslo"})

    async with asking(elicitation=handler) as server:
        answer = json.loads((await server.call("form", {})).as_text())
    assert answer == {"action": "accept", "content": {"city": "Oslo"}}
    (question,) = asked
    assert question.server == "asking"
    assert question.message == "form?"
    assert question.schema is not None
    assert question.schema["required"] == ["city"]


async def test_an_approver_decides_confirmations_and_declines_forms() -> None:
    """P16"""
    seen: list[ToolUseBlock] = []

    def approver(call: ToolUseBlock, context: ToolContext[Any]) -> Approval:
        seen.append(call)
        return Approval.allow()

    async with asking(elicitation=approve_elicitations(approver)) as server:
        confirmed = json.loads((await server.call("confirm", {})).as_text())
        form = json.loads((await server.call("form", {})).as_text())
    assert confirmed == {"action": "accept", "content": {}}
    assert form == {"action": "decline", "content": None}
    assert [call.name for call in seen] == ["mcp_elicitation", "mcp_elicitation"]
    assert seen[0].input["message"] == "confirm?"

    async with asking(
        elicitation=approve_elicitations(lambda call, context: Approval.deny("no"))
    ) as server:
        denied = json.loads((await server.call("confirm", {})).as_text())
    assert denied == {"action": "decline", "content": None}


async def test_without_an_elicitation_handler_the_request_is_refused() -> None:
    """P16"""
    async with asking() as server:
        text = (await server.call("confirm", {})).as_text()
    assert text == "refused -32600: Elicitation not supported"


async def test_progress_of_an_agents_tool_call_reaches_the_handler_naming_the_call() -> None:
    """P17"""
    reports: list[MCPProgress] = []
    async with asking(on_progress=reports.append) as server:
        agent = Agent(
            ScriptedProvider([tool_calls(tool_call("c1", "box_count")), "done"]),
            tools=await server.tools(prefix="box_"),
        )
        await agent.run("go")
    assert reports == [
        MCPProgress("asking", "box_count", "c1", step, 3.0, f"step {step}") for step in (1, 2, 3)
    ]


async def test_progress_of_an_agents_tool_call_shows_as_its_activity_rows_without_a_handler() -> (
    None
):
    """P17: each report is a row of the call's activity, and its status the last one."""
    async with asking() as server:
        agent = Agent(
            ScriptedProvider([tool_calls(tool_call("c1", "box_count")), "done"]),
            tools=await server.tools(prefix="box_"),
        )
        folded = StreamAccumulator()
        async with agent.stream("go") as stream:
            async for event in stream:
                folded.add(event)
    (call,) = folded.views()[0].tool_calls
    assert call.activity is not None
    assert [row.text for row in call.activity.rows] == [f"step {n} ({n}/3)" for n in (1, 2, 3)]
    assert call.activity.status == "3/3"
    assert call.result == "counted"


async def test_resources_are_listed_across_pages_and_read() -> None:
    """P18"""
    async with asking() as server:
        listed = await server.resources()
        (notes,) = await server.read_resource("file:///notes.txt")
        (pixel,) = await server.read_resource("file:///pixel.png")
        with pytest.raises(MCPToolError, match="no resource file:///missing"):
            await server.read_resource("file:///missing")
    assert [(r.uri, r.name, r.mime_type) for r in listed] == [
        ("file:///notes.txt", "notes", "text/plain"),
        ("file:///pixel.png", "pixel", "image/png"),
    ]
    assert notes.text == "line one"
    assert notes.as_block() == TextBlock(text="line one")
    assert pixel.data is not None
    assert pixel.as_block() == ImageBlock(media_type="image/png", data=pixel.data)


async def test_prompts_are_listed_and_filled_as_messages() -> None:
    """P18"""
    async with asking() as server:
        (prompt,) = await server.prompts()
        messages = await server.get_prompt("review", {"path": "a.py"})
        with pytest.raises(MCPToolError, match="review needs a path"):
            await server.get_prompt("review")
        # The filled prompt starts a transcript as it is.
        model = FunctionProvider(lambda request: f"{len(request.messages)} messages")
        result = await Agent(model).session(messages).run("Go on.")
    assert prompt.name == "review"
    assert [(a.name, a.required) for a in prompt.arguments] == [("path", True)]
    assert messages == (Message.user("Review a.py."), Message.assistant("Reading it now."))
    assert result.output == "3 messages"
