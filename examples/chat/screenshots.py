"""Take the README's screenshots of the chat app: run the demo server on a fresh SQLite
file, drive the page in headless Chromium, and write PNGs to examples/chat/docs/.

    uv run python examples/chat/screenshots.py
"""

from __future__ import annotations

import signal
import sys
import tempfile
from pathlib import Path

from automata_browser_testing import headless_chromium
from chat.process import ChatProcess
from playwright.sync_api import Page

DOCS = Path(__file__).resolve().parent / "docs"
WAIT_MS = 30_000


def _settle(page: Page, status: str) -> None:
    page.wait_for_function(
        "(status) => document.querySelector('#status').dataset.status === status",
        arg=status,
        timeout=WAIT_MS,
    )


def _chat(page: Page, *messages: str) -> None:
    """A new chat with `messages` sent one after the other, each answered."""
    page.click("#new-thread")
    page.wait_for_selector("#thread:not([hidden])")
    page.wait_for_function("() => document.querySelector('#title').textContent !== ''")
    for message in messages:
        count = page.locator("#items > li.user").count()
        page.fill("#message", message)
        page.click("#send")
        page.wait_for_function(
            "(count) => document.querySelectorAll('#items > li.user').length > count",
            arg=count,
        )
        page.wait_for_function(
            "() => !['running'].includes(document.querySelector('#status').dataset.status)",
            timeout=WAIT_MS,
        )


def take(folder: Path, docs: Path) -> list[Path]:
    """Run the server in `folder` and write the screenshots to `docs`; their paths."""
    docs.mkdir(parents=True, exist_ok=True)
    server = ChatProcess(folder / "chat.db", folder / "server.log", pace=0.005)
    server.start()
    shots: list[Path] = []
    try:
        with headless_chromium(viewport=(1200, 760)) as browser:
            page = browser.new_page()
            page.goto(server.url + "/")
            _chat(page, "Weather in Tokyo?")
            _chat(page, "Help me plan a trip")
            page.fill("#items > li.interaction input", "Lisbon")
            page.click("#items > li.interaction form button")
            _settle(page, "done")
            _chat(page, "How do I keep a project on track?")
            _settle(page, "done")
            page.click("#items > li.thinking summary")
            shots.append(docs / "conversation.png")
            page.screenshot(path=str(shots[-1]))

            _chat(page, "What's the weather in Paris?", "Please email the team an update")
            _settle(page, "waiting")
            shots.append(docs / "approval.png")
            page.screenshot(path=str(shots[-1]))

            page.click("#items > li.interaction button.approve")
            _settle(page, "done")
            shots.append(docs / "tools.png")
            page.screenshot(path=str(shots[-1]))
    finally:
        server.stop(signal.SIGTERM)
    return shots


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="chat-shots-") as folder:
        for shot in take(Path(folder), DOCS):
            print(shot.relative_to(Path.cwd()) if shot.is_relative_to(Path.cwd()) else shot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
