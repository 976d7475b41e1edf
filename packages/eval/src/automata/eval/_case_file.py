"""Reading one case file into a YAML document, refusing hostile input before any run.

A case file is refused with `CaseFileError` when it is not UTF-8 text, is not valid
YAML (or nests too deep to parse), uses aliases that expand it beyond
`MAX_ALIAS_EXPANSION`, or an alias that contains itself. The bound is checked on
PyYAML's node graph, after composing and before constructing, so a billion-laughs file
is refused in milliseconds whatever it would have expanded to. `lone_surrogate` finds
text that cannot be written as UTF-8 (a `"\\ud800"` escape), which would make the run's
report unwritable.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

from automata.eval._text import encodable

__all__ = ["MAX_ALIAS_EXPANSION", "CaseFileError", "lone_surrogate", "read_document"]

MAX_ALIAS_EXPANSION = 1_000_000
"""How much aliases may add to a file: nodes plus scalar characters, each use of an
alias counting everything its anchor holds (beyond the file's own nodes and text)."""


class CaseFileError(ValueError):
    """A case file cannot be read as cases. `path` is the file; `case` names the case
    (its name, or `#<index>` when it has none) or is None when the file as a whole is
    at fault. The message says what is wrong and where."""

    def __init__(self, message: str, *, path: Path, case: str | None = None) -> None:
        where = f"{path}: case {case}: " if case is not None else f"{path}: "
        super().__init__(where + message)
        self.path = path
        self.case = case


class _AliasBoundError(Exception):
    """The composed document breaks the alias rules (the message says how)."""


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        yield from node.value
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield key
            yield value


def _weight(node: yaml.Node) -> int:
    return 1 + len(node.value) if isinstance(node, yaml.ScalarNode) else 1


def _check_aliases(root: yaml.Node, limit: int) -> None:
    """Raise `_AliasBoundError` if expanding every alias of `root` adds more than
    `limit` (nodes plus scalar characters) or an alias contains its own anchor.
    Iterative, each distinct node visited once: linear in the file's size."""
    expanded: dict[int, int] = {}
    open_nodes: set[int] = set()
    own = 0
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            expanded[key] = _weight(node) + sum(expanded[id(c)] for c in _children(node))
            continue
        if key in expanded:
            continue
        if key in open_nodes:
            raise _AliasBoundError(
                f"an alias at line {node.start_mark.line + 1} contains its own anchor; "
                "recursive aliases are not allowed"
            )
        open_nodes.add(key)
        own += _weight(node)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in expanded)
    added = expanded[id(root)] - own
    if added > limit:
        raise _AliasBoundError(
            f"aliases expand the file by {added:,} nodes and characters, over the limit "
            f"of {limit:,}; repeat less through anchors"
        )


class _CaseLoader(yaml.SafeLoader):  # type: ignore[misc]
    """PyYAML's safe loader, checking the alias rules between composing and
    constructing the document."""

    def construct_document(self, node: yaml.Node) -> Any:
        _check_aliases(node, MAX_ALIAS_EXPANSION)
        return super().construct_document(node)


def read_document(path: Path) -> Any:
    """The YAML document of the file at `path` (None for an empty file), built by the
    safe loader. Raises `CaseFileError` (no case) for a file that cannot be read, is not
    UTF-8, is not valid YAML, nests too deep, or breaks the alias rules."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise CaseFileError(
            f"not UTF-8 text (byte {error.start}: {error.reason}); case files are UTF-8",
            path=path,
        ) from None
    except OSError as error:
        raise CaseFileError(f"cannot be read: {error.strerror or error}", path=path) from None
    loader = _CaseLoader(text)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as error:
        raise CaseFileError(f"not valid YAML: {error}", path=path) from error
    except _AliasBoundError as error:
        raise CaseFileError(str(error), path=path) from None
    except RecursionError:
        raise CaseFileError("nests too deep to be read as YAML", path=path) from None
    finally:
        loader.dispose()


def _shown(key: object) -> str:
    text = str(key)
    return text if text.isprintable() else repr(text)


def lone_surrogate(value: object) -> str | None:
    """Where in `value` (a loaded document: mappings, lists, strings) text holds a lone
    surrogate, as a dotted path (`expect.required_args.search`), or None when all its
    text can be written as UTF-8. Each container is visited once."""
    seen: set[int] = set()
    stack: list[tuple[object, str]] = [(value, "")]
    while stack:
        item, at = stack.pop()
        if isinstance(item, str):
            if not encodable(item):
                return at or "(text)"
            continue
        if not isinstance(item, dict | list) or id(item) in seen:
            continue
        seen.add(id(item))
        pairs = item.items() if isinstance(item, dict) else enumerate(item)
        for key, child in pairs:
            place = f"{at}.{_shown(key)}" if at else _shown(key)
            stack.append((child, place))
            if isinstance(key, str):
                stack.append((key, f"{place} (a key)"))
    return None
