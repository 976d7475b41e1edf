"""Warnings for tools the model will understand poorly, given when the tool is made.

A function tool whose parameter has no type annotation offers the model an empty
schema (`{}`) for it, and one without a docstring (or `description=`) an empty
description: both run, and both leave the model guessing. `tool` warns once per tool,
when it is built, with a `ToolDefinitionWarning` naming the tool, the parameters and
the fix; the warning points at the user's line (the first frame outside
`automata.core`).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence

__all__ = ["ToolDefinitionWarning", "warn_undescribed_tool"]


class ToolDefinitionWarning(UserWarning):
    """A tool was built that works but tells the model too little: a parameter without
    a type annotation (its schema is `{}`) or no description at all. Silence it with
    `warnings.filterwarnings("ignore", category=ToolDefinitionWarning)`."""


def warn_undescribed_tool(name: str, *, unannotated: Sequence[str], described: bool) -> None:
    """Warn about what tool `name` leaves undescribed: its `unannotated` parameters (one
    warning naming them all) and, when not `described`, its missing description."""
    level = _user_level()
    if unannotated:
        plural = "s" if len(unannotated) > 1 else ""
        names = ", ".join(repr(p) for p in unannotated)
        warnings.warn(
            f"tool {name!r}: parameter{plural} {names} ha{'ve' if plural else 's'} no type "
            f"annotation, so the model is offered any value (schema {{}}); annotate "
            f"{'them' if plural else 'it'}, e.g. `{unannotated[0]}: str`",
            ToolDefinitionWarning,
            stacklevel=level,
        )
    if not described:
        warnings.warn(
            f"tool {name!r} has no description (no docstring, no description=), so the "
            "model sees only its name; give the function a docstring saying what it does",
            ToolDefinitionWarning,
            stacklevel=level,
        )


def _user_level() -> int:
    """The `stacklevel` of the first caller outside `automata.core`, as seen from
    `warn_undescribed_tool`."""
    level = 1
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith(
        "automata.core."
    ):
        frame = frame.f_back
        level += 1
    return level
