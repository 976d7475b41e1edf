"""Fixtures: the front ends built (by the example's build script), a headless Chromium
shared by a module's tests, and the example's server in a process of its own."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from automata_browser_testing import ChromiumUnavailable, headless_chromium, require_chromium
from playwright.sync_api import BrowserContext
from ui_frontends.app import FRONT_ENDS
from ui_frontends.build import NodeUnavailable, build
from ui_frontends.process import running_server


@pytest.fixture(scope="session")
def built() -> dict[str, Path]:
    """Each front end's dist/ folder, built if it is missing or stale. Without npm the
    test is skipped with the reason, but fails in CI (CI=true), where .ci/run
    installs node."""
    try:
        return {name: build(name).dist for name in FRONT_ENDS}
    except NodeUnavailable as missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{missing} (CI installs node in .ci/run)")
        pytest.skip(str(missing))


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserContext]:
    """A headless Chromium (Debian's), shared by a module's tests (each opens its own
    tab)."""
    try:
        with headless_chromium() as context:
            yield context
    except ChromiumUnavailable as missing:
        require_chromium(missing)


@pytest.fixture(scope="module")
def server(built: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The example's server on the demo agent (fast words), its base URL."""
    log = tmp_path_factory.mktemp("ui-frontends") / "server.log"
    with running_server(log, pace=0.005) as url:
        yield url
