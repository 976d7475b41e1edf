"""Ids of runs, sessions, activations and lease owners: who makes them, and what is valid.

Each id kind has its own generator. The id used is, in order of precedence: one given
explicitly (`run_id=`, `session_id=`), then the invocation's generator (`invoke(ids=)`),
then the workflow's (`compile(ids=)`), then a random UUID. Every id, whoever made it, is
validated: non-empty UTF-8, at most 191 bytes, no NUL, no trailing space; anything
else raises `InvalidIdError`. Generators may be called concurrently and are responsible
for uniqueness.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Literal

from automata.workflow._errors import InvalidIdError

__all__ = ["MAX_ID_BYTES", "IdGenerator", "IdKind", "Ids", "make_id", "validate_id"]

MAX_ID_BYTES = 191
"""The longest id, in UTF-8 bytes (what fits an indexed column everywhere)."""

IdKind = Literal["run", "session", "activation", "lease_owner"]
"""The kinds of ids a workflow makes."""

IdGenerator = Callable[[], str]
"""Makes one id of a kind."""

Ids = Mapping[IdKind, IdGenerator]
"""Generators by id kind; kinds left out fall through to the next level."""

_KINDS: frozenset[str] = frozenset({"run", "session", "activation", "lease_owner"})


def validate_id(kind: str, value: object) -> str:
    """`value` when it is a valid id, else `InvalidIdError` naming the kind."""
    if not isinstance(value, str):
        raise InvalidIdError(kind, value, "not a string")
    if not value:
        raise InvalidIdError(kind, value, "empty")
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidIdError(kind, value, "not valid UTF-8") from None
    if size > MAX_ID_BYTES:
        raise InvalidIdError(kind, value, f"{size} bytes, more than {MAX_ID_BYTES}")
    if "\x00" in value:
        raise InvalidIdError(kind, value, "holds a NUL")
    if value.endswith(" "):
        raise InvalidIdError(kind, value, "ends in a space")
    return value


def check_ids(ids: Ids | None) -> Ids:
    """`ids`, after refusing unknown kinds."""
    if ids is None:
        return {}
    unknown = set(ids) - _KINDS
    if unknown:
        raise ValueError(f"unknown id kinds {sorted(unknown)}; known: {sorted(_KINDS)}")
    return ids


def make_id(
    kind: IdKind,
    *,
    explicit: str | None = None,
    invocation: Ids | None = None,
    workflow: Ids | None = None,
) -> str:
    """The id of `kind` by precedence: explicit > invocation > workflow > UUID."""
    if explicit is not None:
        return validate_id(kind, explicit)
    for level in (invocation, workflow):
        if level is not None and kind in level:
            return validate_id(kind, level[kind]())
    return str(uuid.uuid4())
