"""What `compile` knows of types: when an output may be a next node's input, and how a
route tells at run time which member of a union an output is.

The rules are deliberately simple and conservative: `Any` and `object` accept
everything; a union is the set of its members; classes compare by subclassing;
parametrised generics (`list[int]`) by origin and then argument by argument, each
argument equal or `Any`. Anything else must be equal to be accepted.
"""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

__all__ = ["assignable", "members", "overlaps", "runtime_classes"]


def members(tp: Any) -> tuple[Any, ...]:
    """The members of a union (`A | B`, `Optional[A]`), or `(tp,)`."""
    if get_origin(tp) in (Union, types.UnionType):
        return get_args(tp)
    return (tp,)


def _none(tp: Any) -> Any:
    return type(None) if tp is None else tp


def assignable(given: Any, taken: Any) -> bool:
    """Whether every value of type `given` is a value of type `taken`."""
    given, taken = _none(given), _none(taken)
    if given is Any or taken is Any or taken is object or given == taken:
        return True
    given_members, taken_members = members(given), members(taken)
    if len(given_members) > 1:
        return all(assignable(member, taken) for member in given_members)
    if len(taken_members) > 1:
        return any(assignable(given, member) for member in taken_members)
    if get_origin(given) is Literal:
        return all(assignable(type(value), taken) for value in get_args(given))
    given_origin, taken_origin = get_origin(given), get_origin(taken)
    if given_origin is None and taken_origin is None:
        return isinstance(given, type) and isinstance(taken, type) and issubclass(given, taken)
    if taken_origin is None:
        # list[int] given where `list` is taken
        return (
            isinstance(taken, type)
            and isinstance(given_origin, type)
            and (issubclass(given_origin, taken))
        )
    if given_origin is None or not (
        isinstance(given_origin, type)
        and isinstance(taken_origin, type)
        and issubclass(given_origin, taken_origin)
    ):
        return False
    given_args, taken_args = get_args(given), get_args(taken)
    if len(given_args) != len(taken_args):
        return False
    return all(
        g is Any or t is Any or g == t or (g is not Ellipsis and assignable(g, t))
        for g, t in zip(given_args, taken_args, strict=True)
    )


def overlaps(given: Any, taken: Any) -> bool:
    """Whether some member of `given` is a value of `taken` (a route can fire)."""
    return any(assignable(member, taken) for member in members(_none(given)))


def runtime_classes(tp: Any) -> tuple[type, ...] | None:
    """The classes an `isinstance` check tells `tp` by, or None when it cannot."""
    found: list[type] = []
    for member in members(_none(tp)):
        origin = get_origin(member) or member
        if not isinstance(origin, type):
            return None
        found.append(origin)
    return tuple(found)
