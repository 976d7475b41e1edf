"""The build script: it says why when npm is missing, and does nothing when the front
ends are up to date."""

from __future__ import annotations

from pathlib import Path

import pytest
from ui_frontends.app import FRONT_ENDS
from ui_frontends.build import NodeUnavailable, build


def test_without_npm_the_build_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(NodeUnavailable, match="npm is not installed"):
        build("ag-ui")


def test_an_unknown_front_end_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="the front ends are ai-sdk, ag-ui"):
        build("vue")


def test_a_second_build_of_unchanged_sources_installs_and_builds_nothing(
    built: dict[str, Path],
) -> None:
    for name in FRONT_ENDS:
        again = build(name)
        assert again.install_seconds is None
        assert again.build_seconds is None
        assert (again.dist / "index.html").is_file()
        assert (again.dist / "assets" / "main.js").is_file()
