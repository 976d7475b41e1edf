"""The browser scaffolding against the real Chromium: a served page loads, and the
watch reports console errors, page errors and missing files (so a clean page means
something)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.request import urlopen

import pytest
from automata_browser_testing import (
    ChromiumUnavailable,
    PageWatch,
    headless_chromium,
    require_chromium,
    serve_directory,
)
from playwright.sync_api import BrowserContext


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserContext]:
    try:
        with headless_chromium() as context:
            yield context
    except ChromiumUnavailable as missing:
        require_chromium(missing)


def test_serve_directory_serves_files_from_a_loopback_port(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hi")
    with serve_directory(tmp_path) as base_url:
        assert base_url.startswith("http://127.0.0.1:")
        with urlopen(f"{base_url}/hello.txt") as response:
            assert response.read() == b"hi"


def test_a_clean_page_has_no_problems(browser: BrowserContext, tmp_path: Path) -> None:
    (tmp_path / "ok.html").write_text(
        '<!DOCTYPE html><html><head><link rel="icon" href="data:,"><title>ok</title></head>'
        "<body><p id=greeting>hello</p></body></html>"
    )
    with serve_directory(tmp_path) as base_url:
        page = browser.new_page()
        watch = PageWatch.attach(page)
        page.goto(f"{base_url}/ok.html")
        assert page.text_content("#greeting") == "hello"
        page.close()
    watch.assert_clean()


def test_the_watch_reports_console_errors_script_errors_and_missing_files(
    browser: BrowserContext, tmp_path: Path
) -> None:
    (tmp_path / "bad.html").write_text(
        '<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head><body>'
        '<img src="missing.png"><script>console.error("boom"); undefinedName();</script>'
        "</body></html>"
    )
    with serve_directory(tmp_path) as base_url:
        page = browser.new_page()
        watch = PageWatch.attach(page)
        page.goto(f"{base_url}/bad.html")
        page.wait_for_load_state("load")
        page.close()
    assert any("boom" in line for line in watch.console_errors)
    assert any("undefinedName" in line for line in watch.page_errors)
    assert any("missing.png: HTTP 404" in line for line in watch.error_responses)
    with pytest.raises(AssertionError, match="boom"):
        watch.assert_clean()


def test_require_chromium_fails_in_ci_and_skips_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reason = ChromiumUnavailable("not installed")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="required in CI: not installed"):
        require_chromium(reason)
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="no Chromium: not installed"):
        require_chromium(reason)


def test_a_missing_binary_is_reported_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTOMATA_TEST_CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(ChromiumUnavailable, match="/nonexistent/chromium"), headless_chromium():
        pass
