"""The public surface of `automata.eval`: every exported name resolves (names are
imported on first use), and every other module is internal."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import automata.eval


def test_every_exported_name_resolves_and_is_listed_in_dir() -> None:
    for name in automata.eval.__all__:
        assert getattr(automata.eval, name) is not None, name
    assert set(automata.eval.__all__) <= set(dir(automata.eval))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = automata.eval.nothing


def test_the_exports_are_the_engines_entry_points() -> None:
    assert automata.eval.evaluate is importlib.import_module("automata.eval._runner").evaluate
    for name in ["load_cases", "select", "evaluate", "evaluate_sync", "write_report"]:
        assert name in automata.eval.__all__
    for name in ["load_report", "compare", "export_failed", "graduates", "judge_agreement"]:
        assert name in automata.eval.__all__


def test_every_module_but_the_package_is_internal() -> None:
    modules = [m.name for m in pkgutil.iter_modules(automata.eval.__path__)]
    assert [m for m in modules if not m.startswith("_")] == []


def test_the_command_line_has_help_for_each_command(capsys: pytest.CaptureFixture[str]) -> None:
    from automata.eval._cli import main

    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert all(command in out for command in ("run", "compare", "report", "export"))
