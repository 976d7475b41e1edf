"""The workspace as the release script sees it: its members, read from their
pyproject.toml files, which of them are published, and the ones a release names."""

from __future__ import annotations

import subprocess
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _errors import Refusal
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import InvalidVersion, Version

DIST_PREFIX = "automata-ai-"
PRIVATE_CLASSIFIER = "Private :: Do Not Upload"
EXAMPLES_DIR = "examples"


@dataclass(frozen=True)
class Member:
    """One workspace member, as read from its pyproject.toml."""

    name: NormalizedName
    directory: Path
    relpath: str
    version: Version
    published: bool
    requirements: tuple[str, ...]
    urls: tuple[str, ...] = ()

    @property
    def pyproject(self) -> Path:
        return self.directory / "pyproject.toml"

    @property
    def short(self) -> str:
        return self.name.removeprefix(DIST_PREFIX)


# ---------------------------------------------------------------- workspace


def find_root() -> Path:
    result = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], check=False, capture_output=True, text=True
    )
    if result.returncode != 0:
        raise Refusal("not inside a git repository")
    root = Path(result.stdout.strip())
    if not (root / "pyproject.toml").is_file():
        raise Refusal(f"no pyproject.toml at the repository root {root}")
    return root


def read_toml(path: Path) -> dict[str, Any]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


def member_dirs(root: Path) -> list[Path]:
    """Expand the workspace's member globs, minus its excludes, in a stable order."""
    workspace = read_toml(root / "pyproject.toml").get("tool", {}).get("uv", {})
    workspace = workspace.get("workspace", {})
    excluded = {p.resolve() for g in workspace.get("exclude", []) for p in root.glob(g)}
    found: list[Path] = []
    for pattern in workspace.get("members", []):
        for path in sorted(root.glob(pattern)):
            pyproject = path / "pyproject.toml"
            if pyproject.is_file() and path.resolve() not in excluded and path not in found:
                found.append(path)
    return found


def load_member(root: Path, directory: Path) -> Member:
    project = read_toml(directory / "pyproject.toml").get("project", {})
    relpath = directory.relative_to(root).as_posix()
    try:
        version = Version(str(project["version"]))
    except (KeyError, InvalidVersion) as exc:
        raise Refusal(f"{relpath}/pyproject.toml: no valid static project.version") from exc
    optional = project.get("optional-dependencies", {})
    requirements = [*project.get("dependencies", [])]
    requirements += [req for group in optional.values() for req in group]
    classifiers = project.get("classifiers", [])
    urls = project.get("urls", {})
    return Member(
        name=canonicalize_name(str(project["name"])),
        directory=directory,
        relpath=relpath,
        version=version,
        published=is_published(relpath, classifiers),
        requirements=tuple(requirements),
        urls=tuple(str(u) for u in urls.values()) if isinstance(urls, dict) else (),
    )


def is_published(relpath: str, classifiers: Iterable[str]) -> bool:
    in_examples = relpath.split("/", 1)[0] == EXAMPLES_DIR
    return not in_examples and PRIVATE_CLASSIFIER not in classifiers


def load_members(root: Path) -> list[Member]:
    members = [load_member(root, directory) for directory in member_dirs(root)]
    if not any(member.published for member in members):
        raise Refusal("the workspace has no published packages")
    return members


def select(members: Sequence[Member], names: Sequence[str] | None) -> list[Member]:
    """The published members named (by short or distribution name), in workspace order."""
    published = [member for member in members if member.published]
    if names is None:
        return published
    lookup = {m.short: m for m in published} | {str(m.name): m for m in published}
    unknown = [name for name in names if canonicalize_name(name) not in lookup]
    if unknown:
        known = ", ".join(m.short for m in published)
        raise Refusal(f"unknown package(s): {', '.join(unknown)} (published: {known})")
    chosen = {lookup[canonicalize_name(name)].name for name in names}
    return [member for member in published if member.name in chosen]
