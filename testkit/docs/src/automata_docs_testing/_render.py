"""A module's public surface as text: each exported name with its kind and signature.

The text is stable from run to run: names are sorted, memory addresses are dropped, set
members are sorted, and the private module a name lives in (`automata.core._blocks.`)
is left out, so only a change a user can see changes it. A class lists its constructor
and the public members it and its bases inside the package define; members inherited
from elsewhere (`Exception`, `pydantic.BaseModel`, another package's base class, whose
own snapshot pins them) are left out.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import inspect
import re
import types
from collections.abc import Callable, Iterator
from typing import Any

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_PRIVATE_PATH = re.compile(r"\bautomata(?:\.\w+)*?\._\w+(?:\.\w+)*?\.(?=\w+\b(?!\.))")
_INDENT = "    "


def stable(text: str) -> str:
    """`text` without memory addresses or private module paths."""
    return _PRIVATE_PATH.sub("", _ADDRESS.sub("", text))


def stable_repr(value: object) -> str:
    """`repr(value)` with set members sorted, so it does not change with hashing."""
    if isinstance(value, set | frozenset):
        members = ", ".join(sorted(stable_repr(member) for member in value))
        return f"{type(value).__name__}({{{members}}})" if members else f"{type(value).__name__}()"
    if isinstance(value, tuple) and type(value) is tuple:
        parts = [stable_repr(member) for member in value]
        return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"
    if isinstance(value, list) and type(value) is list:
        return f"[{', '.join(stable_repr(member) for member in value)}]"
    if isinstance(value, dict) and type(value) is dict:
        items = (f"{stable_repr(k)}: {stable_repr(v)}" for k, v in value.items())
        return f"{{{', '.join(items)}}}"
    return stable(repr(value))


class _Shown:
    """An annotation or default shown as the given text in a signature."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _annotation_text(annotation: object) -> str:
    if isinstance(annotation, str):
        return annotation
    return stable(inspect.formatannotation(annotation))


def signature_text(target: Callable[..., Any]) -> str:
    """`target`'s signature as it reads in source, or `(...)` when it has none."""
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return "(...)"
    empty = inspect.Parameter.empty
    parameters = [
        parameter.replace(
            annotation=empty
            if parameter.annotation is empty
            else _Shown(_annotation_text(parameter.annotation)),
            default=empty if parameter.default is empty else _Shown(stable_repr(parameter.default)),
        )
        for parameter in signature.parameters.values()
    ]
    returns = signature.return_annotation
    shown = signature.replace(
        parameters=parameters,
        return_annotation=empty if returns is empty else _Shown(_annotation_text(returns)),
    )
    return stable(str(shown))


def _function_line(name: str, function: Callable[..., Any], prefix: str = "") -> str:
    asynchronous = inspect.iscoroutinefunction(function) or inspect.isasyncgenfunction(function)
    keyword = "async def" if asynchronous else "def"
    return f"{prefix}{keyword} {name}{signature_text(function)}"


def _member_line(name: str, value: object) -> str | None:
    if isinstance(value, staticmethod | classmethod):
        kind = "staticmethod" if isinstance(value, staticmethod) else "classmethod"
        return _function_line(name, value.__func__, f"{kind} ")
    if isinstance(value, property | functools.cached_property):
        getter = value.fget if isinstance(value, property) else value.func
        returns = inspect.signature(getter).return_annotation if getter else inspect.Signature.empty
        shown = "" if returns is inspect.Signature.empty else f": {_annotation_text(returns)}"
        return f"property {name}{shown}"
    if inspect.isfunction(value):
        return _function_line(name, value)
    if isinstance(value, type):
        return f"class {name}"
    if isinstance(value, types.MemberDescriptorType | types.GetSetDescriptorType):
        return f"attribute {name}"
    if callable(value) and not isinstance(value, enum.Enum):
        return f"{name}: {type(value).__name__}"
    return f"{name} = {stable_repr(value)}"


def _is_inside(cls: type, package: str) -> bool:
    return cls.__module__ == package or cls.__module__.startswith(f"{package}.")


def _build_model(cls: type) -> None:
    """Build a pydantic model that defers its build (`defer_build`): its signature is
    `(**data)` until it is built, so without this a snapshot would depend on whether
    something in the process used the model before."""
    rebuild = getattr(cls, "model_rebuild", None)
    if callable(rebuild) and getattr(cls, "__pydantic_complete__", True) is False:
        with contextlib.suppress(Exception):  # a forward reference not yet defined
            rebuild()


def _class_lines(name: str, cls: type, package: str) -> Iterator[str]:
    _build_model(cls)
    bases = ", ".join(base.__qualname__ for base in cls.__bases__ if base is not object)
    yield f"class {name}({bases})" if bases else f"class {name}"
    if not issubclass(cls, enum.Enum):
        yield f"{_INDENT}{signature_text(cls)}"
    seen: dict[str, str] = {}
    for klass in cls.__mro__:
        if not _is_inside(klass, package):
            continue
        for member, annotation in vars(klass).get("__annotations__", {}).items():
            if not member.startswith("_") and member not in seen:
                seen[member] = f"{member}: {_annotation_text(annotation)}"
        for member, value in vars(klass).items():
            if member.startswith("_") or member in seen:
                continue
            line = _member_line(member, value)
            if line is not None:
                seen[member] = line
    for member in sorted(seen):
        yield f"{_INDENT}{seen[member]}"


_TYPING_MODULES = frozenset(
    {"typing", "typing_extensions", "types", "collections.abc", "_collections_abc"}
)


def _is_type_alias(value: object) -> bool:
    return not isinstance(value, type) and type(value).__module__ in _TYPING_MODULES


def entry_lines(name: str, value: object, package: str) -> Iterator[str]:
    """The lines that describe one exported name of a module of `package`."""
    if isinstance(value, type):
        yield from _class_lines(name, value, package)
    elif inspect.isfunction(value) or isinstance(value, types.BuiltinFunctionType):
        yield _function_line(name, value)
    elif _is_type_alias(value):
        yield f"alias {name} = {stable_repr(value)}"
    else:
        yield f"{name}: {type(value).__name__} = {stable_repr(value)}"


def render_surface(module: types.ModuleType, package: str, command: str) -> str:
    """The surface text of `module` (of `package`), whose `__all__` names what it
    exports; the header names `command`, which writes the file."""
    lines = [f"# {module.__name__}: the public surface. Generated by `{command}`; do not edit."]
    for name in sorted(module.__all__):
        lines.append("")
        lines.extend(entry_lines(name, getattr(module, name), package))
    return "\n".join(lines) + "\n"
