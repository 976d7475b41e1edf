"""Loading recorded vendor traffic (VCR cassettes in YAML) as scripted replies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml  # type: ignore[import-untyped]

from automata.core.providers import ModelRequest, ProviderError, SDKProvider
from automata_wire_testing._server import Reply, WireServer

__all__ = ["Interaction", "RecordingChecks", "load_recording", "replay", "replayed_error"]

P = TypeVar("P")


@dataclass(frozen=True, slots=True)
class Interaction:
    """One recorded request body and the reply the vendor gave to it."""

    request: dict[str, Any]
    reply: Reply
    streamed: bool


def load_recording(path: Path) -> list[Interaction]:
    """The interactions of the cassette at `path`, in order: a streamed body becomes
    an SSE reply split at its blank lines, a raw body of another content type (a
    `text/plain` answer) that body as is with its status and content type, any other
    a JSON reply with its status."""
    data = yaml.safe_load(path.read_text())
    interactions = []
    for item in data["interactions"]:
        response = item["response"]
        content_type = (response.get("headers", {}).get("content-type") or [""])[0]
        raw = content_type and not content_type.startswith("text/event-stream")
        if "body" in response and raw:
            reply = Reply(
                status=response["status"]["code"],
                body=response["body"]["string"].encode(),
                headers={"content-type": content_type},
            )
        elif "body" in response:
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


async def replayed_error(
    server: WireServer,
    make_provider: Callable[..., SDKProvider[Any]],
    interaction: Interaction,
    request: ModelRequest,
) -> ProviderError:
    """The `ProviderError` that completing `request` raises when the server answers
    with the recorded (failed) reply of `interaction`."""
    provider = replay(server, make_provider, interaction)
    try:
        await provider.complete(request)
    except ProviderError as error:
        return error
    raise AssertionError("the recorded failure raised no ProviderError")


class RecordingChecks:
    """Checks every vendor's recordings need, as test methods: subclass it as
    `TestRecordings` beside the vendor's own replay tests and set the class attributes.
    Needs the `server` and `make_provider` fixtures."""

    fixtures: Path
    """The folder of the vendor's cassettes."""
    replayed: frozenset[str]
    """Every cassette the vendor's tests replay: none may be left unused."""
    failure: str
    """A cassette of one failed call."""
    failure_message: str
    """The exact message of the `ProviderError` that failure raises."""
    failure_status: int

    def first_request(self, recorded: dict[str, Any]) -> ModelRequest:
        """The request of a recorded body's first user message. Each vendor's subclass
        overrides it, since only the vendor knows its request shape."""
        raise NotImplementedError("override first_request() to read the vendor's request body")

    def test_every_recording_is_replayed(self) -> None:
        assert {path.name for path in self.fixtures.glob("*.yaml")} == set(self.replayed)

    async def test_a_recorded_failure_raises_at_once_with_the_vendor_message(
        self, server: WireServer, make_provider: Callable[..., SDKProvider[Any]]
    ) -> None:
        (only,) = load_recording(self.fixtures / self.failure)
        error = await replayed_error(server, make_provider, only, self.first_request(only.request))
        assert str(error) == self.failure_message
        assert (error.status, error.retryable) == (self.failure_status, False)
        assert len(server.received) == 1
