"""Take the README's screenshots of the chat app: run the demo server on a fresh SQLite
file, drive the page in headless Chromium at a desktop width and a phone's, and write
PNGs to examples/chat/docs/.

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
    page.locator(".new-chat:visible").last.click()  # the top bar's when narrow
    page.wait_for_selector("#thread:not([hidden])")
    page.wait_for_function("() => document.querySelector('#title').textContent !== ''")
    for message in messages:
        _say(page, message)


def _say(page: Page, message: str) -> None:
    count = page.locator("#items > li.user").count()
    page.fill("#message", message)
    page.click("#send")
    page.wait_for_function(
        "(count) => document.querySelectorAll('#items > li.user').length > count",
        arg=count,
    )
    page.wait_for_function(
        "() => document.querySelector('#status').dataset.status !== 'running'",
        timeout=WAIT_MS,
    )


def _shoot(page: Page, path: Path, shots: list[Path]) -> None:
    page.wait_for_timeout(300)  # let the sidebar's slide and the last paint finish
    page.screenshot(path=str(path))
    shots.append(path)


def _open_page(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready]", state="attached")


def take(folder: Path, docs: Path) -> list[Path]:
    """Run the server in `folder` and write the screenshots to `docs`; their paths."""
    docs.mkdir(parents=True, exist_ok=True)
    server = ChatProcess(folder / "chat.db", folder / "server.log", pace=0.005)
    server.start()
    shots: list[Path] = []
    try:
        with headless_chromium(viewport=(1280, 800)) as browser:
            page = browser.new_page()
            _open_page(page, server.url + "/")
            _chat(page, "Weather in Tokyo?")
            _chat(page, "Help me plan a trip")
            _settle(page, "waiting")
            page.fill("#message", "Lisbon")  # the message box answers the question
            page.click("#send")
            _settle(page, "done")
            _chat(page, "How do I keep a project on track?", "Now as markdown, please")
            _settle(page, "done")
            page.locator("#items > li.thinking summary").last.click()
            page.evaluate(
                "() => { const l = document.querySelector('#items');"
                " l.scrollTop = l.scrollHeight; }"
            )
            _shoot(page, docs / "conversation.png", shots)

            _chat(page, "What's the weather in Paris?", "Please email the team an update")
            _settle(page, "waiting")
            _shoot(page, docs / "approval.png", shots)

            page.click("#items > li.tool_call button.approve")
            _settle(page, "done")
            _shoot(page, docs / "tools.png", shots)

            page.set_viewport_size({"width": 390, "height": 844})
            _open_page(page, server.url + "/" + str(page.evaluate("location.hash")))
            _chat(page, "Show me some markdown")
            _settle(page, "done")
            _shoot(page, docs / "mobile.png", shots)
            page.click("#toggle-threads")
            page.wait_for_selector("#sidebar", state="visible")
            _shoot(page, docs / "mobile-chats.png", shots)
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
