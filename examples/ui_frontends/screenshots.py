"""Take the README's screenshots of both front ends: build them (if stale), run the
example's server, drive each page in headless Chromium at a desktop width and a
phone's, and write PNGs to examples/ui_frontends/docs/.

    uv run python examples/ui_frontends/screenshots.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from automata_browser_testing import headless_chromium
from playwright.sync_api import Page
from ui_frontends.app import FRONT_ENDS
from ui_frontends.build import build
from ui_frontends.process import running_server

DOCS = Path(__file__).resolve().parent / "docs"
WAIT_MS = 30_000


def _settle(page: Page, *statuses: str) -> None:
    page.wait_for_function(
        "(statuses) => statuses.includes(document.querySelector('#status').dataset.status)",
        arg=list(statuses),
        timeout=WAIT_MS,
    )


def _say(page: Page, text: str) -> None:
    page.fill("#message", text)
    page.press("#message", "Enter")
    page.wait_for_timeout(100)


def _shoot(page: Page, path: Path, shots: list[Path]) -> None:
    page.wait_for_timeout(200)  # the last paint
    page.screenshot(path=str(path))
    shots.append(path)


def _front_end(page: Page, url: str, name: str, docs: Path, shots: list[Path]) -> None:
    """Desktop: a weather question answered (its thinking open) and an email waiting
    for approval; then the approved email's result at a phone's width."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{url}/{name}/")
    page.wait_for_selector("body[data-ready]", state="attached")
    _say(page, "What's the weather in Tokyo?")
    _settle(page, "ready")
    page.locator(".reasoning summary").first.click()
    _say(page, "Please email the team an update")
    page.wait_for_selector('.tool-approval-requested[data-tool="send_email"]', timeout=WAIT_MS)
    _settle(page, "ready", "waiting")
    _shoot(page, docs / f"{name}-desktop.png", shots)

    page.set_viewport_size({"width": 390, "height": 844})
    page.click('.tool[data-tool="send_email"] button.approve')
    page.wait_for_selector('.tool-output-available[data-tool="send_email"]', timeout=WAIT_MS)
    _settle(page, "ready")
    _shoot(page, docs / f"{name}-mobile.png", shots)


def take(folder: Path, docs: Path) -> list[Path]:
    """Build, serve from `folder` and write the screenshots to `docs`; their paths."""
    for name in FRONT_ENDS:
        build(name)
    docs.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []
    with (
        running_server(folder / "server.log", pace=0.005) as url,
        headless_chromium(viewport=(1280, 800)) as browser,
    ):
        for name in FRONT_ENDS:
            page = browser.new_page()
            _front_end(page, url, name, docs, shots)
            page.close()
    return shots


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="ui-frontends-shots-") as folder:
        for shot in take(Path(folder), DOCS):
            print(shot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
