"""Write or check the committed public surface of every published package.

    uv run python scripts/api_surface.py --write   # regenerate docs/api/*.txt
    uv run python scripts/api_surface.py           # check them; exit 1 naming each problem

One text file per public module of each published distribution (the workspace members
`scripts/_workspace.py` counts as published), made by `automata_docs_testing.PublicSurface`;
a snapshot of a module that is no longer public is removed by `--write` and reported by
the check. Each package's own tests run the same check for that package.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from _workspace import load_members
from automata_docs_testing import SNAPSHOT_FOLDER, WRITE_COMMAND, PublicSurface

ROOT = Path(__file__).resolve().parent.parent


def published_packages(root: Path) -> Iterator[str]:
    """The import package of each published distribution (`automata.core`, ...)."""
    for member in load_members(root):
        if member.published:
            for init in sorted((member.directory / "src" / "automata").glob("*/__init__.py")):
                yield f"automata.{init.parent.name}"


def surfaces(root: Path, folder: Path) -> list[PublicSurface]:
    return [PublicSurface(package, folder) for package in published_packages(root)]


def orphans(folder: Path, known: Sequence[PublicSurface]) -> list[Path]:
    """Snapshots that belong to no published package at all."""
    packages = [surface.package for surface in known]
    return [
        path
        for path in sorted(folder.glob("*.txt"))
        if not any(path.stem == p or path.stem.startswith(f"{p}.") for p in packages)
    ]


def write(root: Path, folder: Path) -> list[Path]:
    """Regenerate every snapshot in `folder`; the files changed or removed."""
    known = surfaces(root, folder)
    changed = [path for surface in known for path in surface.write()]
    for path in orphans(folder, known):
        path.unlink()
        changed.append(path)
    return changed


def problems(root: Path, folder: Path) -> list[str]:
    """Every surface problem of every published package, and every orphaned snapshot."""
    known = surfaces(root, folder)
    found: list[str] = []
    for surface in known:
        found.extend(
            problem for module in surface.modules() for problem in surface.export_problems(module)
        )
        found.extend(surface.snapshot_problems())
    found.extend(f"{path.name} is stale: no published package" for path in orphans(folder, known))
    return found


def main(argv: Sequence[str] | None = None, *, root: Path = ROOT) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="regenerate the snapshots")
    parser.add_argument(
        "--folder", type=Path, default=root / SNAPSHOT_FOLDER, help="where the snapshots live"
    )
    options = parser.parse_args(argv)
    if options.write:
        for path in write(root, options.folder):
            shown = path.relative_to(options.folder.parent)
            print(f"{'wrote' if path.exists() else 'removed'} {shown}")
        return 0
    found = problems(root, options.folder)
    for problem in found:
        print(f"- {problem}")
    if found:
        print(f"if the change is intended, run `{WRITE_COMMAND}` and commit the diff")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
