"""Suggesting the name meant when a call is given one it does not know.

`close_match` is the one place a misspelt name is matched against the accepted ones
(difflib's ratio, cutoff 0.6); `unexpected_keywords` words the error for unknown
keyword arguments; `suggests_keywords` makes a function refuse unknown keywords with
that message, as an `ArgumentTypeError`, before its body runs.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import ParamSpec, TypeVar

from automata.core._errors import ArgumentTypeError

__all__ = ["close_match", "suggests_keywords", "unexpected_keywords"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def close_match(word: str, accepted: Iterable[str]) -> str | None:
    """The accepted name closest to `word` when one is close enough to be what was
    meant (difflib ratio at least 0.6), else None."""
    found = difflib.get_close_matches(word, list(accepted), n=1, cutoff=0.6)
    return found[0] if found else None


def unexpected_keywords(label: str, unknown: Sequence[str], accepted: Iterable[str]) -> str:
    """The message for `label(...)` given the keywords `unknown`: a suggestion for each
    that is close to an accepted name (`did you mean 'system_prompt'?`), or, when none
    is, every accepted name in sorted order."""
    names = sorted(accepted)
    plural = "s" if len(unknown) > 1 else ""
    article = "" if plural else "an "
    head = (
        f"{label}() got {article}unexpected keyword argument{plural} "
        f"{', '.join(repr(key) for key in unknown)}"
    )
    meant = {key: close_match(key, names) for key in unknown}
    found = {key: match for key, match in meant.items() if match is not None}
    if not found:
        return f"{head}; it accepts: {', '.join(names)}"
    if len(unknown) == 1:
        return f"{head}; did you mean {found[unknown[0]]!r}?"
    pairs = ", ".join(f"{match!r} for {key!r}" for key, match in found.items())
    return f"{head}; did you mean {pairs}?"


def suggests_keywords(label: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorate a function (or `__init__`) so that a keyword it has no parameter for
    raises `ArgumentTypeError` worded by `unexpected_keywords` (as `label(...)`), not
    Python's bare `TypeError`. The signature seen by type checkers and `inspect` is
    the function's own; a function taking `**kwargs` is left as it is."""

    def decorate(function: Callable[_P, _R]) -> Callable[_P, _R]:
        parameters = inspect.signature(function).parameters.values()
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
            return function
        keywords = frozenset(
            p.name
            for p in parameters
            if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
            and p.name != "self"
        )

        @functools.wraps(function)
        def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            unknown = [key for key in kwargs if key not in keywords]
            if unknown:
                raise ArgumentTypeError(unexpected_keywords(label, unknown, keywords))
            return function(*args, **kwargs)

        return checked

    return decorate
