"""What a module binds at its top level, read from its source.

Only public names count: no leading underscore, or `__version__`. A module's `__all__`
must hold every name it *must* export and only names it *may* export:

- it must export what it defines (`def`, `class`, an assignment; type variables made
  with `TypeVar`, `ParamSpec` or `TypeVarTuple` are typing helpers, not names), and, in
  a package's `__init__`, what it imports from a private module of its own distribution
  (that is how a facade re-exports; one imported for the package's own use is imported
  under an underscored alias);
- it may also export any other name it imports with `from ... import` (a leaf module
  such as `testing.py` re-exporting a kit, or a vendor package re-exporting a core
  constant); such imports are otherwise the module's own business.

Statements under `if` and `try` count, so `if TYPE_CHECKING:` imports of a lazily
loading package do.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

PUBLIC_DUNDERS = frozenset({"__version__"})
"""Dunder names that are part of a surface when a module binds them."""


def is_public_name(name: str) -> bool:
    """A name a surface may hold: no leading underscore, or one of `PUBLIC_DUNDERS`."""
    return not name.startswith("_") or name in PUBLIC_DUNDERS


def is_private_module(name: str, distribution_package: str) -> bool:
    """`name` lies inside `distribution_package` under an underscored component."""
    if not name.startswith(distribution_package + "."):
        return False
    inner = name.removeprefix(distribution_package + ".").split(".")
    return any(part.startswith("_") for part in inner)


_TYPE_VARIABLES = frozenset({"TypeVar", "ParamSpec", "TypeVarTuple"})


@dataclass(frozen=True)
class Bindings:
    """The public names a module must export, and those it may export besides."""

    required: frozenset[str]
    optional: frozenset[str]

    @property
    def allowed(self) -> frozenset[str]:
        return self.required | self.optional


def _makes_type_variable(value: ast.expr) -> bool:
    if not isinstance(value, ast.Call):
        return False
    function = value.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    return name in _TYPE_VARIABLES


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from _statements(node.body)
            yield from _statements(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _statements(block)
            for handler in node.handlers:
                yield from _statements(handler.body)


def _targets(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _targets(element)


def _source_module(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def read_bindings(
    source: str, *, module: str, is_package: bool, distribution_package: str
) -> Bindings:
    """The public bindings of `module` (whose text is `source`); `distribution_package`
    is the top package of its distribution, e.g. `automata.core`."""
    required: set[str] = set()
    optional: set[str] = set()
    for node in _statements(ast.parse(source).body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            required.add(node.name)
        elif isinstance(node, ast.Assign) and not _makes_type_variable(node.value):
            for target in node.targets:
                required.update(_targets(target))
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            required.update(_targets(node.target))
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            origin = _source_module(node, module, is_package)
            names = {alias.asname or alias.name for alias in node.names}
            facade = is_package and is_private_module(origin, distribution_package)
            (required if facade else optional).update(names)
    required.discard("__all__")
    return Bindings(
        required=frozenset(filter(is_public_name, required)),
        optional=frozenset(filter(is_public_name, optional - required)),
    )
