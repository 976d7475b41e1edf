"""`scripts/api_surface.py` writes one snapshot per public module of every published
package, checks them, and reports and removes snapshots of no published package; every
published package's tests run the same check."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "api_surface.py"
ROOT = SCRIPT.parents[1]
COMMITTED = ROOT / "docs" / "api"

Run = Callable[..., tuple[int, str]]


@pytest.fixture
def script() -> Iterator[ModuleType]:
    """The script, loaded in this process (importing every package once, not per run)."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        spec = importlib.util.spec_from_file_location("automata_api_surface_script", SCRIPT)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(SCRIPT.parent))


@pytest.fixture
def run(script: ModuleType, capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*arguments: str) -> tuple[int, str]:
        code: int = script.main(list(arguments))
        return code, capsys.readouterr().out

    return run


def test_written_snapshots_are_the_committed_ones_and_an_orphan_is_reported_then_removed(
    run: Run, tmp_path: Path
) -> None:
    assert run("--write", "--folder", str(tmp_path))[0] == 0
    committed = {path.name: path.read_text(encoding="utf-8") for path in COMMITTED.glob("*.txt")}
    fresh = {path.name: path.read_text(encoding="utf-8") for path in tmp_path.glob("*.txt")}
    assert fresh == committed

    (tmp_path / "automata.gone.txt").write_text("old\n", encoding="utf-8")
    code, output = run("--folder", str(tmp_path))
    assert code == 1
    assert "- automata.gone.txt is stale: no published package" in output
    assert "run `uv run python scripts/api_surface.py --write`" in output

    code, output = run("--write", "--folder", str(tmp_path))
    assert f"removed {tmp_path.name}/automata.gone.txt" in output
    assert not (tmp_path / "automata.gone.txt").exists()
    assert run("--folder", str(tmp_path)) == (0, "")


def test_every_published_package_has_a_test_that_checks_its_surface() -> None:
    packages = {path.name.split(".")[1] for path in COMMITTED.glob("automata.*.txt")}
    assert len(packages) >= 12
    unpinned = []
    for package in sorted(packages):
        (source,) = ROOT.glob(f"*/*/src/automata/{package}/__init__.py")
        tests = source.parents[3] / "tests"
        call = f'PublicSurface.of("automata.{package}").check()'
        if not any(call in path.read_text(encoding="utf-8") for path in tests.glob("test_*.py")):
            unpinned.append(package)
    assert unpinned == []
