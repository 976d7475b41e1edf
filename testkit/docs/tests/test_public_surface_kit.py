"""A public surface is derived from a package's modules and names each problem: a name
bound but not exported, one exported but not bound, one defined outside the package, a
snapshot missing, differing or stale; `write` makes the check pass."""

from __future__ import annotations

import importlib
import sys
import textwrap
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from automata_docs_testing import WRITE_COMMAND, PublicSurface

MakePackage = Callable[..., PublicSurface]


@pytest.fixture
def make_package(tmp_path: Path) -> Iterator[MakePackage]:
    """Builds `automata.<unique>`, a real package in the PEP 420 namespace, from the
    files of `GOOD` with `changes` (`{name}` in a file is the package's own name)."""
    sys.path.insert(0, str(tmp_path / "src"))
    made: list[str] = []

    def make(**changes: str) -> PublicSurface:
        name = f"surface_{uuid.uuid4().hex[:8]}"
        folder = tmp_path / "src" / "automata" / name
        folder.mkdir(parents=True)
        for file, text in {**GOOD, **changes}.items():
            (folder / file).write_text(textwrap.dedent(text).replace("{name}", name), "utf-8")
        importlib.invalidate_caches()
        made.append(f"automata.{name}")
        return PublicSurface(f"automata.{name}", tmp_path / "api")

    yield make
    sys.path.remove(str(tmp_path / "src"))
    for module in [m for m in sys.modules if any(m.startswith(p) for p in made)]:
        del sys.modules[module]


IMPL = '''
from __future__ import annotations

LIMIT = 3


class Widget:
    """A thing."""

    size: int = 1

    def grow(self, by: int = 1) -> Widget:
        return self

    async def fetch(self, *, url: str) -> bytes:
        return b""


def make(name: str, /, tags: frozenset[str] = frozenset({"b", "a"})) -> Widget:
    return Widget()
'''

GOOD = {
    "_impl.py": IMPL,
    "__init__.py": """
        from automata.{name}._impl import LIMIT, Widget, make

        __all__ = ["LIMIT", "Widget", "make"]
    """,
    "helpers.py": """
        from pathlib import Path

        def tidy(path: Path) -> Path:
            return path

        __all__ = ["tidy"]
    """,
}


def test_a_package_with_exact_exports_and_written_snapshots_passes(
    make_package: MakePackage,
) -> None:
    surface = make_package()
    assert surface.modules() == [surface.package, f"{surface.package}.helpers"]
    written = surface.write()
    assert sorted(p.name for p in written) == sorted(f"{m}.txt" for m in surface.modules())
    surface.check()
    text = surface.snapshot(surface.package).read_text(encoding="utf-8")
    assert "LIMIT: int = 3" in text
    assert "class Widget\n    ()\n" in text
    assert "    async def fetch(self, *, url: str) -> bytes" in text
    assert "    def grow(self, by: int = 1) -> Widget" in text
    assert "    size: int" in text
    assert "def make(name: str, /, tags: frozenset[str] = frozenset({'a', 'b'})) -> Widget" in text
    assert WRITE_COMMAND in text


def test_a_name_imported_from_a_private_module_but_not_exported_is_named(
    make_package: MakePackage,
) -> None:
    init = 'from automata.{name}._impl import LIMIT, Widget, make\n__all__ = ["Widget", "make"]\n'
    surface = make_package(**{"__init__.py": init})
    surface.write()
    with pytest.raises(AssertionError, match=r"binds public names not in `__all__`: \['LIMIT'\]"):
        surface.check()


def test_an_exported_name_the_module_does_not_bind_is_named(make_package: MakePackage) -> None:
    init = (
        "from automata.{name}._impl import LIMIT, Widget, make\n"
        '__all__ = ["LIMIT", "Widget", "make", "Gone"]\n'
    )
    surface = make_package(**{"__init__.py": init})
    problems = surface.export_problems(surface.package)
    assert f"{surface.package}.__all__ lists names the module does not bind: ['Gone']" in problems
    assert f"{surface.package}.Gone is exported but not defined" in problems


def test_an_export_defined_outside_the_package_is_named(make_package: MakePackage) -> None:
    helpers = 'from pathlib import Path\n__all__ = ["Path"]\n'
    surface = make_package(**{"helpers.py": helpers})
    assert surface.export_problems(f"{surface.package}.helpers") == [
        f"{surface.package}.helpers.Path is defined in pathlib, outside {surface.package}"
    ]


def test_a_changed_signature_fails_with_a_diff_and_the_command_that_regenerates(
    make_package: MakePackage,
) -> None:
    surface = make_package()
    surface.write()
    snapshot = surface.snapshot(surface.package)
    snapshot.write_text(snapshot.read_text().replace("by: int = 1", "by: int = 2"))
    with pytest.raises(AssertionError) as failure:
        surface.check()
    message = str(failure.value)
    assert "-    def grow(self, by: int = 2) -> Widget" in message
    assert "+    def grow(self, by: int = 1) -> Widget" in message
    assert f"run `{WRITE_COMMAND}`" in message


def test_a_missing_and_a_stale_snapshot_are_named_and_write_fixes_both(
    make_package: MakePackage,
) -> None:
    surface = make_package()
    surface.write()
    surface.snapshot(f"{surface.package}.helpers").unlink()
    stale = surface.snapshot(f"{surface.package}.gone")
    stale.write_text("old\n")
    assert surface.snapshot_problems() == [
        f"{surface.package}.helpers.txt is missing",
        f"{surface.package}.gone.txt is stale: no such public module",
    ]
    surface.write()
    assert not stale.exists()
    surface.check()
