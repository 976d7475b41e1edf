"""Load the recorded vendor traffic in tests/fixtures (VCR cassettes, see the README)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from automata_wire_testing import Interaction, load_recording

FIXTURES = Path(__file__).parent / "fixtures"


def load(name: str) -> list[Interaction]:
    """The interactions recorded in `fixtures/<name>`."""
    return load_recording(FIXTURES / name)


def normalized(body: dict[str, Any]) -> dict[str, Any]:
    """A request body in one canonical form: no `stream` flag, and the content of every
    turn and tool_result a list of blocks (the API reads a bare string as shorthand for
    one text block, and both forms occur in the recordings)."""
    body = copy.deepcopy(body)
    body.pop("stream", None)
    for message in body.get("messages", []):
        if isinstance(message["content"], str):
            message["content"] = [{"type": "text", "text": message["content"]}]
        for block in message["content"]:
            if block.get("type") == "tool_result" and isinstance(block.get("content"), str):
                block["content"] = [{"type": "text", "text": block["content"]}]
    return body
