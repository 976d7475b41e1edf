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
    """A request body in one canonical form: no `stream` flag or `n=1` (defaults), an
    assistant message's absent content written as null, and no per-tool `strict` flag
    (the recorder's client set it; ToolSpec has no such notion)."""
    body = copy.deepcopy(body)
    body.pop("stream", None)
    if body.get("n") == 1:
        del body["n"]
    for message in body.get("messages", []):
        if message["role"] == "assistant":
            message.setdefault("content", None)
    for tool in body.get("tools", []):
        tool["function"].pop("strict", None)
    return body
