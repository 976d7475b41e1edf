"""Loading recorded vendor traffic (VCR cassettes in YAML) as scripted replies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml  # type: ignore[import-untyped]

from automata_wire_testing._server import Reply, WireServer

__all__ = ["Interaction", "load_recording", "replay"]

P = TypeVar("P")


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


def replay(server: WireServer, make_provider: Callable[..., P], *interactions: Interaction) -> P:
    """Script `server` to answer with the recorded replies of `interactions`, in order,
    and build a provider asking for the model the first one was recorded with."""
    server.enqueue(*(interaction.reply for interaction in interactions))
    return make_provider(model=interactions[0].request["model"])
