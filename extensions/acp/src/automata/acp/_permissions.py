"""Permission requests to the client, as an automata `Approver`."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Collection
from typing import Protocol

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from automata.acp._updates import tool_kind, tool_title
from automata.core import Approval, Approver, ToolContext, ToolUseBlock

__all__ = [
    "ALLOW_ALWAYS",
    "ALLOW_ONCE",
    "REJECT_ONCE",
    "ClientApprover",
    "PermissionClient",
    "PermissionRule",
    "permission_rule",
]

ALLOW_ONCE = "allow_once"
ALLOW_ALWAYS = "allow_always"
REJECT_ONCE = "reject_once"

OPTIONS = (
    PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once"),
    PermissionOption(option_id=ALLOW_ALWAYS, name="Always allow", kind="allow_always"),
    PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"),
)

PermissionRule = Callable[[ToolUseBlock], bool]
"""Decides whether a call needs the client's permission."""


def permission_rule(ask: bool | Collection[str]) -> PermissionRule:
    """`True`: every call asks; `False`: none; a collection: the calls of those tools."""
    if isinstance(ask, bool):
        return lambda _call: ask
    names = frozenset(ask)
    return lambda call: call.name in names


class PermissionClient(Protocol):
    """The part of the SDK's client connection a `ClientApprover` uses."""

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse: ...


class ClientApprover:
    """An `Approver` for one ACP session.

    Each call first passes `inner` (the agent's own approver, if any); a call it denies
    is denied without asking. A call `rule` selects is then put to the client with
    `session/request_permission` and the options allow once, always allow and reject:
    allow once runs it, always allow runs it and every later call of the same tool in
    this session without asking again, reject (or a request the client answers as
    cancelled) denies it with `denied: rejected by the user` (or `... cancelled`).
    `before_request` runs before each request (the server uses it to flush the updates
    announcing the call), and `on_allowed` is told the id of every call cleared to run.
    """

    def __init__(
        self,
        client: PermissionClient,
        session_id: str,
        rule: PermissionRule,
        *,
        inner: Approver | None = None,
        before_request: Callable[[], Awaitable[None]] | None = None,
        on_allowed: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        self._client = client
        self._session_id = session_id
        self._rule = rule
        self._inner = inner
        self._before_request = before_request
        self._on_allowed = on_allowed
        self._always: set[str] = set()

    @property
    def always_allowed(self) -> frozenset[str]:
        """The tools the client allowed for the rest of the session."""
        return frozenset(self._always)

    async def __call__(self, call: ToolUseBlock, context: ToolContext) -> Approval:
        if self._inner is not None:
            decision = self._inner(call, context)
            approval = await decision if inspect.isawaitable(decision) else decision
            if not approval.allowed:
                return approval
        if self._rule(call) and call.name not in self._always:
            approval = await self._ask(call)
            if not approval.allowed:
                return approval
        if self._on_allowed is not None:
            await self._on_allowed(call.id)
        return Approval.allow()

    async def _ask(self, call: ToolUseBlock) -> Approval:
        if self._before_request is not None:
            await self._before_request()
        response = await self._client.request_permission(
            session_id=self._session_id,
            tool_call=ToolCallUpdate(
                tool_call_id=call.id,
                title=tool_title(call),
                kind=tool_kind(call),
                status="pending",
                raw_input=dict(call.input),
            ),
            options=list(OPTIONS),
        )
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return Approval.deny("cancelled")
        if outcome.option_id == ALLOW_ALWAYS:
            self._always.add(call.name)
            return Approval.allow()
        if outcome.option_id == ALLOW_ONCE:
            return Approval.allow()
        return Approval.deny("rejected by the user")
