"""The vendor-neutral pieces of reading a reply's JSON, written once for every vendor's
reader: a tool call's argument text as its input, a token count, a field of the
expected type, and a quote of what could not be read.

- `read_arguments(text)`: the JSON object a tool call's arguments spell, or `{}` and
  why they spell none: `arguments were cut off: ...`, `arguments are not valid JSON:
  ...` (`NaN` and `Infinity` included: they are not JSON, and no API takes them back),
  `arguments are not a JSON object: ...`. The reason becomes the block's
  `input_error`, so the loop answers the model with it instead of calling the tool.
- `count(value)`: a token count as the wire sent it; anything but a positive integer
  (a missing field, `null`, a string, a boolean, a negative number) counts 0, so a
  reply can never lower a run's usage.
- `typed(value, kind)`: `value` when it is a `kind` (a boolean is never an `int`),
  else None.
- `clip(text, limit)`: `text` quoted, cut to `limit` characters (saying how long it
  was) when longer, for error messages that quote what the server sent.
- `json_of(value)`: an SDK model dumped to the JSON it was read from, anything else
  as it is: how a reply that came through an SDK's models reaches the same reader as
  a raw reply's JSON.

Nothing here raises but `json_of`, on a model nested too deep to dump (`ValueError`):
each other function says what it read, or what was wrong with it.
"""

from __future__ import annotations

import json
from typing import Any, Final

__all__ = ["CLIP", "clip", "count", "json_of", "read_arguments", "typed"]

CLIP: Final = 200
"""How many characters of a server's text an error message quotes, by default."""


def clip(text: str, limit: int = CLIP) -> str:
    """`text` quoted (its `repr`), cut to `limit` characters and followed by its length
    when longer: `'{"city": "Os'... (510 characters)`."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def count(value: object) -> int:
    """A token count from a reply: `value` when it is a positive `int` (not a `bool`),
    else 0."""
    return value if type(value) is int and value > 0 else 0


def typed(value: object, kind: type[Any]) -> Any:
    """`value` when it is an instance of `kind` (a `bool` is never taken for an `int`),
    else None."""
    return value if isinstance(value, kind) and not isinstance(value, bool) else None


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def read_arguments(text: str) -> tuple[dict[str, Any], str | None]:
    """The input a tool call's argument text spells, and why it spells none (None when
    it is a JSON object). No text at all reads as `{}`. Text that ends inside a value
    `were cut off`; text that is not JSON (or holds `NaN` / `Infinity`, or nests past
    the interpreter's recursion limit) `are not valid JSON`; JSON that is not an object
    `are not a JSON object`. Each reason quotes the text through `clip`."""
    if not text:
        return {}, None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        cut = isinstance(error, json.JSONDecodeError) and (
            error.msg.startswith("Unterminated") or error.pos >= len(text.rstrip())
        )
        why = "were cut off" if cut else "are not valid JSON"
        return {}, f"arguments {why}: {clip(text)}"
    if isinstance(value, dict):
        return value, None
    return {}, f"arguments are not a JSON object: {clip(text)}"


def json_of(value: object) -> Any:
    """`value` as the JSON it was read from: an SDK model (anything with the SDKs'
    `to_dict`) dumped with the fields the server sent (`to_dict(mode="json")`, by their
    wire names, unset ones left out; a value of another type than the model's field, as
    the SDKs' lenient reading keeps it, is dumped as it came, without pydantic's
    serializer warning), anything else as it is. A model nested past what pydantic
    dumps raises `ValueError` (the reader reports a malformed reply)."""
    to_dict = getattr(value, "to_dict", None)
    if type(value) is dict or not callable(to_dict):
        return value
    try:
        return to_dict(mode="json", warnings=False)
    except RecursionError as error:
        raise ValueError(f"the reply nests too deep to read: {error}") from error
