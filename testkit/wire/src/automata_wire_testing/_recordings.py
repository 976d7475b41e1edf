"""Loading recorded vendor traffic (VCR cassettes in YAML) as scripted replies."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

from automata_wire_testing._server import Reply

__all__ = ["Interaction", "load_recording"]


@dataclass(frozen=True, slots=True)
class Interaction:
    """One recorded request body and the reply the vendor gave to it."""

    request: dict[str, Any]
    reply: Reply
    streamed: bool


def load_recording(path: Path) -> list[Interaction]:
    """The interactions of the cassette at `path`, in order: a streamed body becomes
    an SSE reply split at its blank lines, any other a JSON reply with its status."""
    data = yaml.safe_load(path.read_text())
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
