"""Text a thread can store: valid Unicode, so that it encodes as UTF-8.

Python strings may hold lone surrogates (a JSON `\\ud800` escape, `os.fsdecode` of
undecodable bytes); no store can keep them and no provider accepts them. The service
refuses them at the call, naming the argument, before anything is committed; stores
turn an encoding failure into the same `InvalidArgumentError`.
"""

from __future__ import annotations

from automata.core import InvalidArgumentError

__all__ = ["check_text", "check_texts", "refused_text"]


def _surrogate(error: UnicodeEncodeError) -> str:
    found = error.object[error.start : error.end]
    return f"a lone surrogate ({found!r} at index {error.start})"


def check_text(value: str, what: str) -> str:
    """`value` when it is valid Unicode (or not a string at all: that is for other
    checks); else `InvalidArgumentError` naming `what`."""
    if not isinstance(value, str):
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidArgumentError(
            f"{what} holds {_surrogate(error)}, which is not valid Unicode text; nothing was stored"
        ) from None
    return value


def check_texts(value: object, what: str) -> None:
    """Check every string in a JSON-like `value` (strings, and lists, tuples and dicts
    of them, keys included) with `check_text`."""
    if isinstance(value, str):
        check_text(value, what)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_texts(key, what)
            check_texts(item, what)
    elif isinstance(value, list | tuple):
        for item in value:
            check_texts(item, what)


def refused_text(error: UnicodeEncodeError, store: str) -> InvalidArgumentError:
    """The error a store raises for text its database could not encode."""
    return InvalidArgumentError(
        f"text given to {store} holds {_surrogate(error)}, which is not valid Unicode "
        "text; nothing was stored"
    )
