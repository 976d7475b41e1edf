"""A real headless Chromium for tests: the distribution's browser driven by Playwright.

`headless_chromium()` launches the system's Chromium (`AUTOMATA_TEST_CHROMIUM`, else
`chromium` on PATH, else `/usr/bin/chromium`) through Playwright's synchronous API with
a fresh profile in a temporary directory and everything that would reach the network on
its own switched off; Playwright's bundled browsers are never downloaded or used.
`serve_directory()` serves a folder over HTTP on a free loopback port, from a thread.
`PageWatch` records what went wrong in a page: console errors, uncaught page errors,
failed requests and HTTP error responses.

When no browser can be had, `ChromiumUnavailable` says why; `require_chromium` turns
that into a skip outside CI and a failure in CI (`CI` set), where nothing may skip for
want of a browser.

The synchronous API runs its own event loop: call these from synchronous tests, never
from inside a running asyncio loop.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, Request, Response, sync_playwright
from playwright.sync_api import Error as PlaywrightError

__all__ = [
    "CHROMIUM_ARGS",
    "CHROMIUM_ENV",
    "ChromiumUnavailable",
    "PageWatch",
    "find_chromium",
    "headless_chromium",
    "require_chromium",
    "serve_directory",
]

CHROMIUM_ENV = "AUTOMATA_TEST_CHROMIUM"
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
"""The flags every browser runs with: headless, no sandbox (tests may run as root in
containers), and nothing that phones home."""

_DEFAULT_PATH = Path("/usr/bin/chromium")


class ChromiumUnavailable(RuntimeError):
    """No Chromium can be used here; the message says why and what to do."""


def find_chromium() -> Path | None:
    """The Chromium binary to use: `AUTOMATA_TEST_CHROMIUM` when set (even if it does
    not exist, so a wrong setting is reported, not ignored), else `chromium` on PATH,
    else `/usr/bin/chromium`; None when none of these exists."""
    given = os.environ.get(CHROMIUM_ENV)
    if given:
        return Path(given)
    on_path = shutil.which("chromium")
    if on_path is not None:
        return Path(on_path)
    return _DEFAULT_PATH if _DEFAULT_PATH.exists() else None


@contextlib.contextmanager
def headless_chromium(*, viewport: tuple[int, int] = (1280, 900)) -> Iterator[BrowserContext]:
    """Yield a browser context of a fresh headless Chromium, closed (and its profile
    removed) when the context ends.

    Raises `ChromiumUnavailable` when no binary is found or it fails to start (the
    launch error is in the message)."""
    binary = find_chromium()
    if binary is None:
        raise ChromiumUnavailable(
            f"no Chromium found (set {CHROMIUM_ENV}, or install the distribution's package: "
            "apt-get install chromium)"
        )
    if not binary.exists():
        raise ChromiumUnavailable(f"{CHROMIUM_ENV} names {binary}, which does not exist")
    profile = Path(tempfile.mkdtemp(prefix="automata-chromium-"))
    try:
        with sync_playwright() as playwright:
            try:
                browser = playwright.chromium.launch_persistent_context(
                    str(profile),
                    executable_path=str(binary),
                    headless=True,
                    args=list(CHROMIUM_ARGS),
                    viewport={"width": viewport[0], "height": viewport[1]},
                )
            except PlaywrightError as failed:
                raise ChromiumUnavailable(f"{binary} did not start: {failed}") from failed
            try:
                yield browser
            finally:
                browser.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean: requests are not logged."""


@contextlib.contextmanager
def serve_directory(root: Path) -> Iterator[str]:
    """Serve `root` over HTTP on a free port of 127.0.0.1 from a background thread;
    yield the base URL (no trailing slash). The server stops when the context ends."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="serve-directory", daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host!s}:{port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@dataclass
class PageWatch:
    """What went wrong in one page since `attach`: console messages of type `error`,
    uncaught exceptions, requests that failed outright, and responses with an HTTP
    status of 400 or more."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    error_responses: list[str] = field(default_factory=list)

    @classmethod
    def attach(cls, page: Page) -> PageWatch:
        """Start recording `page`'s problems."""
        watch = cls()
        page.on(
            "console",
            lambda message: (
                watch.console_errors.append(f"{message.text} ({message.location})")
                if message.type == "error"
                else None
            ),
        )
        page.on("pageerror", lambda error: watch.page_errors.append(str(error)))

        def on_failed(request: Request) -> None:
            watch.failed_requests.append(f"{request.url}: {request.failure}")

        def on_response(response: Response) -> None:
            if response.status >= 400:
                watch.error_responses.append(f"{response.url}: HTTP {response.status}")

        page.on("requestfailed", on_failed)
        page.on("response", on_response)
        return watch

    @property
    def problems(self) -> list[str]:
        """Everything recorded, each line prefixed with its kind."""
        return (
            [f"console: {line}" for line in self.console_errors]
            + [f"page error: {line}" for line in self.page_errors]
            + [f"request failed: {line}" for line in self.failed_requests]
            + [f"response: {line}" for line in self.error_responses]
        )

    def assert_clean(self) -> None:
        """Fail (AssertionError listing them) when anything was recorded."""
        problems = self.problems
        assert not problems, "the page had problems:\n" + "\n".join(problems)


def require_chromium(reason: ChromiumUnavailable) -> None:
    """Skip the calling test with `reason` outside CI; fail it in CI (`CI` set), where a
    missing browser is a broken setup, not a reason to skip. Needs pytest."""
    import pytest

    if os.environ.get("CI"):
        pytest.fail(f"Chromium is required in CI: {reason}")
    pytest.skip(f"no Chromium: {reason}")
