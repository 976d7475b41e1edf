"""Elicitation: a server asking the user for input in the middle of a request, answered
by a handler the user gives, or by an `Approver`.

An elicitation arrives while the server holds a request (usually a tool call) open on a
live connection, so it is answered in this process, while the call waits; it cannot be
parked in a thread's journal the way an approval before a call is."""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from mcp import types as mcp_types
from mcp.client.session import ClientRequestContext, ElicitationFnT
from mcp_types import INTERNAL_ERROR

from automata.core import Approver, ToolContext, ToolUseBlock
from automata.mcp._connection import describe

__all__ = [
    "ELICITATION_CALL",
    "Elicitation",
    "ElicitationHandler",
    "ElicitationReply",
    "approve_elicitations",
    "elicitation_callback",
]

ELICITATION_CALL = "mcp_elicitation"
"""The tool name of the call an `Approver` is shown for an elicitation."""


@dataclass(frozen=True, slots=True)
class Elicitation:
    """What a server asks: `message` for the user, and either `schema` (form mode: the
    flat JSON schema the answer must follow) or `url` (URL mode: a page the user
    should open; the answer carries no content). `call` is the agent's tool call the
    server holds open while it asks: the one call of an agent to this server in
    flight then; None when there is none, or several (the protocol does not say
    which one asks)."""

    server: str
    message: str
    schema: Mapping[str, Any] | None = None
    url: str | None = None
    call: ToolContext[Any] | None = None


@dataclass(frozen=True, slots=True)
class ElicitationReply:
    """The user's answer: `accept` (with `content` following the schema, in form
    mode), `decline` or `cancel`."""

    action: Literal["accept", "decline", "cancel"]
    content: Mapping[str, str | int | float | bool | list[str]] | None = None

    @classmethod
    def accept(
        cls, content: Mapping[str, str | int | float | bool | list[str]] | None = None
    ) -> ElicitationReply:
        return cls("accept", content)

    @classmethod
    def decline(cls) -> ElicitationReply:
        return cls("decline")

    @classmethod
    def cancel(cls) -> ElicitationReply:
        return cls("cancel")


ElicitationHandler: TypeAlias = Callable[
    [Elicitation], Awaitable[ElicitationReply] | ElicitationReply
]
"""Answers a server's elicitation: a function, sync or async, taking the `Elicitation`
and returning an `ElicitationReply`."""


def approve_elicitations(approver: Approver) -> ElicitationHandler:
    """An elicitation handler deciding with `approver` (an agent's approver, for
    instance): it is shown a call named `mcp_elicitation` whose input holds the server,
    the message and the schema or URL. Allowed, a confirmation (a form whose schema
    requires no field, or a URL) is accepted with no content; denied, or a form that
    needs answers an approver cannot give, is declined."""

    async def decide(asked: Elicitation) -> ElicitationReply:
        shown: dict[str, Any] = {"server": asked.server, "message": asked.message}
        if asked.schema is not None:
            shown["schema"] = dict(asked.schema)
        if asked.url is not None:
            shown["url"] = asked.url
        call = ToolUseBlock(id=f"mcp_{uuid.uuid4().hex}", name=ELICITATION_CALL, input=shown)
        context: ToolContext[None] = ToolContext(
            call=call, agent=asked.server, invocation_id=uuid.uuid4().hex
        )
        verdict = approver(call, context)
        approval = await verdict if inspect.isawaitable(verdict) else verdict
        required = (asked.schema or {}).get("required") or ()
        if approval.allowed and not required:
            return ElicitationReply.accept({} if asked.schema is not None else None)
        return ElicitationReply.decline()

    return decide


def elicitation_callback(
    handler: ElicitationHandler,
    server: Callable[[], str],
    call: Callable[[], ToolContext[Any] | None] = lambda: None,
) -> ElicitationFnT:
    """The SDK elicitation callback answering with `handler` (`call` gives the agent's
    call in flight, if one); a handler that raises is answered with `INTERNAL_ERROR`
    naming the error."""

    async def answer(
        context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        if isinstance(params, mcp_types.ElicitRequestURLParams):
            asked = Elicitation(server(), params.message, url=params.url, call=call())
        else:
            schema = params.requested_schema
            asked = Elicitation(server(), params.message, schema=dict(schema), call=call())
        try:
            reply = handler(asked)
            if inspect.isawaitable(reply):
                reply = await reply
        except Exception as error:
            return mcp_types.ErrorData(
                code=INTERNAL_ERROR, message=f"the elicitation failed: {describe(error)}"
            )
        content = dict(reply.content) if reply.content is not None else None
        return mcp_types.ElicitResult(action=reply.action, content=content)

    return answer
