"""What a published wheel and sdist must hold, and must not.

Each check returns the problems it found (an empty list: nothing wrong); the release
script decides what to do with them. A wheel must carry the name, version and
automata requirements its `pyproject.toml` declares, a `py.typed` in every automata
package (PEP 561), a license file, and no `automata/__init__.py` (`automata` is a
PEP 420 namespace shared by every package). An sdist must not carry test fixtures.
"""

from __future__ import annotations

import re
import tarfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from email.message import Message
from email.parser import HeaderParser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

__all__ = [
    "NAMESPACE_INIT",
    "BuiltWheel",
    "automata_requirements",
    "read_wheel",
    "sdist_problems",
    "wheel_problems",
]

DIST_PREFIX = "automata-ai-"
NAMESPACE_INIT = "automata/__init__.py"
LICENSE_FILE = re.compile(r"\.dist-info/(?:licenses/|license_files/)?(?:LICEN[CS]E|COPYING)[^/]*$")
FIXTURES = re.compile(r"(?:^|/)tests/fixtures(?:/|$)")


@dataclass(frozen=True, slots=True)
class BuiltWheel:
    """A wheel's file names and its parsed METADATA headers."""

    name: str
    files: tuple[str, ...]
    meta: Message


def read_wheel(path: Path) -> BuiltWheel:
    """Open a wheel; ValueError when it has no METADATA."""
    with zipfile.ZipFile(path) as archive:
        files = tuple(archive.namelist())
        meta_name = next((n for n in files if n.endswith(".dist-info/METADATA")), None)
        if meta_name is None:
            raise ValueError(f"{path.name}: no METADATA")
        text = archive.read(meta_name).decode("utf-8")
    return BuiltWheel(path.name, files, HeaderParser().parsestr(text))


def automata_requirements(requirements: Iterable[str]) -> set[tuple[str, str]]:
    """(name, specifier) for each automata-* requirement, in comparable form.

    Markers are left out: the wheel adds `extra == ...` to optional requirements.
    """
    found: set[tuple[str, str]] = set()
    for text in requirements:
        req = Requirement(text)
        name = canonicalize_name(req.name)
        if name.startswith(DIST_PREFIX):
            found.add((name, ",".join(sorted(str(s) for s in req.specifier))))
    return found


def wheel_problems(
    wheel: BuiltWheel, name: str, version: Version, declared: Sequence[str]
) -> list[str]:
    """Everything wrong with a wheel built for `name` `version` whose pyproject declares
    the requirements `declared`."""
    meta = wheel.meta
    problems: list[str] = []
    if canonicalize_name(str(meta.get("Name", ""))) != name:
        problems.append(f"Name is {meta.get('Name')!r}, expected {name!r}")
    if _version(meta) != version:
        problems.append(f"Version is {meta.get('Version')!r}, expected {version}")
    if NAMESPACE_INIT in wheel.files:
        problems.append(f"ships {NAMESPACE_INIT} (automata must stay a namespace package)")
    problems += _requirement_problems(meta, declared)
    problems += _typed_problems(wheel.files)
    if not any(LICENSE_FILE.search(f) for f in wheel.files):
        problems.append("ships no license file (a LICENSE beside its pyproject.toml)")
    return problems


def sdist_problems(path: Path) -> list[str]:
    """Everything wrong with an sdist: it must not ship test fixtures."""
    with tarfile.open(path) as archive:
        names = archive.getnames()
    fixtures = sorted(n for n in names if FIXTURES.search(n))
    if fixtures:
        return [f"ships test fixtures ({fixtures[0]})"]
    return []


def _version(meta: Message) -> Version | None:
    try:
        return Version(str(meta.get("Version", "")))
    except InvalidVersion:
        return None


def _requirement_problems(meta: Message, declared: Sequence[str]) -> list[str]:
    wanted = automata_requirements(declared)
    shipped = automata_requirements(str(v) for v in meta.get_all("Requires-Dist") or [])
    problems = [f"missing requirement {r}" for r in sorted(wanted - shipped)]
    problems += [f"unexpected requirement {r}" for r in sorted(shipped - wanted)]
    problems += [f"unranged requirement on {n}" for n, spec in sorted(shipped) if not spec]
    return problems


def _typed_problems(files: Iterable[str]) -> list[str]:
    """PEP 561: each top-level automata package ships `py.typed`."""
    files = set(files)
    packages = sorted(
        {parts[1] for f in files if len(parts := f.split("/")) > 2 and parts[0] == "automata"}
    )
    if not packages:
        return ["ships no automata package, so no py.typed"]
    return [
        f"no automata/{p}/py.typed (type checkers would ignore its hints)"
        for p in packages
        if f"automata/{p}/py.typed" not in files
    ]
