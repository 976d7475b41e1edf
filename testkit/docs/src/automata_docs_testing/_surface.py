"""A published package's public surface, derived from its modules and pinned by a
committed snapshot.

Each public module (the package and every submodule with no underscored component)
is checked: its `__all__` holds each name once and equals the public names it binds
(as `_bindings` reads them), every name resolves, every exported class and function is defined
inside the package, and its surface text (`_render`) equals the committed file
`docs/api/<module>.txt`. A change of the surface therefore shows as a diff of that
file, which `WRITE_COMMAND` regenerates.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import pkgutil
import types
from dataclasses import dataclass
from pathlib import Path

from automata_docs_testing._bindings import read_bindings
from automata_docs_testing._render import render_surface
from automata_docs_testing._root import repository_root

WRITE_COMMAND = "uv run python scripts/api_surface.py --write"
"""The command that regenerates every snapshot."""

SNAPSHOT_FOLDER = "docs/api"
"""Where the snapshots live, from the repository root."""

_DIFF_LINES = 40


def _is_public_module(name: str, package: str) -> bool:
    inner = name.removeprefix(package).lstrip(".")
    return not any(part.startswith("_") for part in inner.split(".") if part)


@dataclass(frozen=True)
class PublicSurface:
    """The public surface of `package` (e.g. `automata.core`), snapshotted in `folder`."""

    package: str
    folder: Path

    @classmethod
    def of(cls, package: str) -> PublicSurface:
        """The surface of `package`, with its snapshots in the repository's `docs/api/`."""
        source = inspect.getfile(importlib.import_module(package))
        return cls(package, repository_root(Path(source).parent) / SNAPSHOT_FOLDER)

    def modules(self) -> list[str]:
        """The package and its public submodules, sorted."""
        root = importlib.import_module(self.package)
        found = [self.package]
        for info in pkgutil.walk_packages(root.__path__, prefix=f"{self.package}."):
            if _is_public_module(info.name, self.package):
                found.append(info.name)
        return sorted(found)

    def snapshot(self, module: str) -> Path:
        return self.folder / f"{module}.txt"

    def render(self, module: str) -> str:
        """What `snapshot(module)` must hold."""
        return render_surface(importlib.import_module(module), self.package, WRITE_COMMAND)

    def export_problems(self, module: str) -> list[str]:
        """What is wrong with `module`'s `__all__`, one sentence a problem."""
        loaded = importlib.import_module(module)
        exported = getattr(loaded, "__all__", None)
        if not isinstance(exported, list | tuple) or not all(isinstance(n, str) for n in exported):
            return [f"{module} has no `__all__` list of names"]
        problems: list[str] = []
        repeated = sorted({name for name in exported if exported.count(name) > 1})
        if repeated:
            problems.append(f"{module}.__all__ repeats {repeated}")
        bound = read_bindings(
            inspect.getsource(loaded),
            module=module,
            is_package=hasattr(loaded, "__path__"),
            distribution_package=self.package,
        )
        if unlisted := sorted(bound.required - set(exported)):
            problems.append(f"{module} binds public names not in `__all__`: {unlisted}")
        if unbound := sorted(set(exported) - bound.allowed):
            problems.append(f"{module}.__all__ lists names the module does not bind: {unbound}")
        for name in exported:
            try:
                value = getattr(loaded, name)
            except AttributeError:
                problems.append(f"{module}.{name} is exported but not defined")
                continue
            home = getattr(value, "__module__", None)
            defines = isinstance(value, type | types.FunctionType)
            if defines and not (home == self.package or str(home).startswith(f"{self.package}.")):
                problems.append(f"{module}.{name} is defined in {home}, outside {self.package}")
        return problems

    def snapshot_problems(self) -> list[str]:
        """Each public module whose snapshot is missing or differs, and each snapshot left
        from a module that is no longer public."""
        problems: list[str] = []
        modules = self.modules()
        for module in modules:
            path = self.snapshot(module)
            expected = self.render(module)
            committed = path.read_text(encoding="utf-8") if path.exists() else None
            if committed is None:
                problems.append(f"{path.name} is missing")
            elif committed != expected:
                diff = difflib.unified_diff(
                    committed.splitlines(),
                    expected.splitlines(),
                    f"{path.name} (committed)",
                    f"{path.name} (the code)",
                    lineterm="",
                )
                shown = list(diff)[:_DIFF_LINES]
                problems.append(f"{path.name} differs from the code:\n" + "\n".join(shown))
        problems.extend(f"{path.name} is stale: no such public module" for path in self.stale())
        return problems

    def stale(self) -> list[Path]:
        """Snapshots of this package for modules that are not public (any more)."""
        public = set(self.modules())
        return [
            path
            for path in sorted(self.folder.glob(f"{self.package}*.txt"))
            if path.stem not in public
            and (path.stem == self.package or path.stem.startswith(f"{self.package}."))
        ]

    def check(self) -> None:
        """Raise `AssertionError` naming every problem; a snapshot problem says which
        command regenerates the snapshots."""
        problems = [
            problem for module in self.modules() for problem in self.export_problems(module)
        ]
        snapshots = self.snapshot_problems()
        if snapshots:
            snapshots.append(
                f"if the change is intended, run `{WRITE_COMMAND}` and commit the diff"
            )
        if problems or snapshots:
            raise AssertionError(
                f"public surface of {self.package}:\n- " + "\n- ".join([*problems, *snapshots])
            )

    def write(self) -> list[Path]:
        """Write every snapshot of the package and remove its stale ones; the files
        changed (written anew, or removed)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        changed: list[Path] = []
        for module in self.modules():
            path = self.snapshot(module)
            text = self.render(module)
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                changed.append(path)
        for path in self.stale():
            path.unlink()
            changed.append(path)
        return changed
