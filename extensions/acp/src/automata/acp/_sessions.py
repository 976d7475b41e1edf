"""A connection's live sessions, bounded: the least recently used idle one makes room."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from acp import RequestError

__all__ = ["DEFAULT_MAX_SESSIONS", "SessionTable"]

DEFAULT_MAX_SESSIONS = 64
"""How many sessions one connection keeps live unless the server says otherwise."""

S = TypeVar("S")


class SessionTable(Generic[S]):
    """At most `limit` sessions by id, kept in order of last use (creation, load and
    the start and end of a prompt count as use). `make_room()` is called before a
    session is added: when the table is full it drops the least recently used session
    that `busy` says has no prompt in flight, and when every session is busy it refuses
    with an invalid-request error naming the limit. A dropped session is gone for this
    connection: its id then gets resource-not-found (a thread-backed one can be loaded
    again with `session/load`)."""

    __slots__ = ("_busy", "_limit", "_sessions")

    def __init__(self, limit: int, busy: Callable[[S], bool]) -> None:
        if limit < 1:
            raise ValueError(f"max_sessions must be at least 1, got {limit}")
        self._limit = limit
        self._busy = busy
        self._sessions: OrderedDict[str, S] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._sessions

    def use(self, session_id: str) -> S:
        """The session, now the most recently used; resource-not-found if it is not live."""
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        self._sessions.move_to_end(session_id)
        return session

    def touch(self, session_id: str) -> None:
        """Make the session, if it is live, the most recently used."""
        if session_id in self._sessions:
            self._sessions.move_to_end(session_id)

    def peek(self, session_id: str) -> S | None:
        """The session if it is live, its place in the order unchanged."""
        return self._sessions.get(session_id)

    def make_room(self) -> None:
        """Make room for one more session (see the class)."""
        while len(self._sessions) >= self._limit:
            idle = next((sid for sid, s in self._sessions.items() if not self._busy(s)), None)
            if idle is None:
                raise RequestError.invalid_request(
                    {
                        "reason": f"all {self._limit} sessions of this connection are answering "
                        "prompts; wait for one to finish or cancel one"
                    }
                )
            del self._sessions[idle]

    def add(self, session_id: str, session: S) -> None:
        """Add (or replace) a session as the most recently used; call `make_room` first."""
        self._sessions[session_id] = session
        self._sessions.move_to_end(session_id)
