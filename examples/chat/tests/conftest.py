"""Fixtures: a headless Chromium shared by the module's tests, and the chat app in a
process of its own (`python -m chat`, demo model, a SQLite file)."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from automata_browser_testing import ChromiumUnavailable, headless_chromium, require_chromium
from chat.process import ChatProcess
from playwright.sync_api import BrowserContext

from ._chat_page import ChatPage


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserContext]:
    """A headless Chromium (Debian's), shared by a module's tests (each opens its own
    tab). Not longer: Playwright's synchronous API keeps an event loop running in this
    thread while the browser is open, and later modules' `asyncio.run` would fail."""
    try:
        with headless_chromium() as context:
            yield context
    except ChromiumUnavailable as missing:
        require_chromium(missing)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChatProcess]:
    """The app on a fresh SQLite file, shared by the module's tests (each test makes
    its own chats)."""
    folder = tmp_path_factory.mktemp("chat")
    process = ChatProcess(folder / "chat.db", folder / "server.log", pace=0.02)
    process.start()
    yield process
    process.stop(signal.SIGTERM)


@pytest.fixture(scope="module")
def restartable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChatProcess]:
    """The app on a SQLite file of its own, for the tests that stop and restart it (a
    killed server's turns are resumed 2 s later, when its lease has expired)."""
    folder = tmp_path_factory.mktemp("restarted")
    process = ChatProcess(folder / "chat.db", folder / "server.log", pace=0.02, lease_ttl=2.0)
    process.start()
    yield process
    process.stop(signal.SIGKILL)


@pytest.fixture
def chat(browser: BrowserContext, server: ChatProcess) -> Iterator[ChatPage]:
    """A new tab on the shared server's page, closed after the test."""
    page = browser.new_page()
    try:
        yield ChatPage.attach(page, server.url).open()
    finally:
        page.close()
