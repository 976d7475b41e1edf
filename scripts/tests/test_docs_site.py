"""The documentation site builds with `--strict`, opens clean in headless Chromium, starts
with the Getting started guide, and has one API reference page per public module (one
per snapshot in docs/api/), rendered from the docstrings."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from automata_browser_testing import (
    ChromiumUnavailable,
    PageWatch,
    headless_chromium,
    require_chromium,
    serve_directory,
)

ROOT = Path(__file__).resolve().parents[2]
SITE_BUILD = ROOT / "docs" / "_site" / "screenshots.py"
PUBLIC_MODULES = sorted(path.stem for path in (ROOT / "docs" / "api").glob("*.txt"))


def site_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("automata_site_build", SITE_BUILD)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built: Path = site_build().build_site(tmp_path_factory.mktemp("site"))
    return built


@pytest.fixture(scope="module")
def base_url(site: Path) -> Iterator[str]:
    with serve_directory(site) as url:
        yield url


def test_every_public_module_has_a_reference_page_and_no_snapshot_is_a_page(site: Path) -> None:
    pages = sorted(path.parent.name for path in (site / "reference").glob("*/index.html"))
    assert pages == PUBLIC_MODULES
    assert len(pages) > 15
    assert not (site / "api").exists()


def test_the_site_loads_no_web_fonts(site: Path) -> None:
    assert "fonts.googleapis" not in (site / "index.html").read_text(encoding="utf-8")


def test_the_guide_and_a_reference_page_open_clean_with_their_content(base_url: str) -> None:
    try:
        with headless_chromium() as browser:
            page = browser.new_page()
            watch = PageWatch.attach(page)
            page.goto(f"{base_url}/index.html")
            assert page.locator("h1").first.inner_text().rstrip("¶ ") == "Getting started"
            assert "ScriptedProvider" in page.locator("pre").first.inner_text()
            nav = page.locator("nav.md-nav--primary").inner_text()
            assert all(module in nav for module in PUBLIC_MODULES)
            page.goto(f"{base_url}/reference/automata.core/index.html")
            assert page.locator("h1").first.inner_text().rstrip("¶ ") == "automata.core"
            # Agent's docstring, rendered under its own anchor
            assert page.locator("[id='automata.core.Agent']").count() == 1
            assert "A model with a system prompt, tools and limits." in page.inner_text("body")
            watch.assert_clean()
    except ChromiumUnavailable as missing:
        require_chromium(missing)


def test_a_guide_page_links_to_the_contract_pages_as_pages_of_the_site(site: Path) -> None:
    """A `../loop.md` link from docs/guide/ stays inside docs/: a site link, not a
    repository path."""
    html = (site / "guide" / "tools-and-output" / "index.html").read_text(encoding="utf-8")
    assert 'href="../../loop/#2-tool-batches"' in html
    assert "docs/loop.md" not in html
