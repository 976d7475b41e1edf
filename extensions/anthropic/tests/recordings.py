"""Load the recorded vendor traffic in tests/fixtures (VCR cassettes, see the README)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

from .wire_server import Reply

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class Interaction:
    """One recorded request body and the reply the vendor gave to it."""

    request: dict[str, Any]
    reply: Reply
    streamed: bool


def load(name: str) -> list[Interaction]:
    data = yaml.safe_load((FIXTURES / name).read_text())
    interactions = []
    for item in data["interactions"]:
        response = item["response"]
        if "body" in response:
            reply = Reply.sse(response["body"]["string"])
        else:
            reply = Reply(status=response["status"]["code"], json_body=response["parsed_body"])
        request = item["request"]["parsed_body"]
        interactions.append(Interaction(request, reply, bool(request.get("stream"))))
    return interactions


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
