"""Load the recorded vendor traffic in tests/fixtures (VCR cassettes, see the README)."""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

from automata_wire_testing import Interaction, load_recording

FIXTURES = Path(__file__).parent / "fixtures"


def load(name: str) -> list[Interaction]:
    """The interactions recorded in `fixtures/<name>`."""
    return load_recording(FIXTURES / name)


def normalized(body: dict[str, Any]) -> dict[str, Any]:
    """A request body in one canonical form: no `stream` flag or `n=1` (defaults), an
    assistant message's absent content written as null, no per-tool `strict` flag
    (the recorder's client set it; ToolSpec has no such notion), tool-call arguments
    as parsed JSON (spacing aside, the same arguments), and no empty
    `reasoning_content` (what the recorder's client wrote on an assistant turn it made
    up itself, which had no reasoning)."""
    body = copy.deepcopy(body)
    body.pop("stream", None)
    if body.get("n") == 1:
        del body["n"]
    for message in body.get("messages", []):
        if message["role"] == "assistant":
            message.setdefault("content", None)
            if message.get("reasoning_content") == "":
                del message["reasoning_content"]
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                with contextlib.suppress(json.JSONDecodeError):
                    function["arguments"] = json.loads(function.get("arguments", ""))
    for tool in body.get("tools", []):
        tool["function"].pop("strict", None)
    return body
