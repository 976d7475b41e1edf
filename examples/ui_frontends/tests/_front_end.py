"""A front end's page as a test sees it. Both pages draw the same structure (each
message an `li.message` of `#messages`, each call a `.tool` card with its state and,
while it waits, Approve and Deny), so one driver serves both."""

from __future__ import annotations

from dataclasses import dataclass

from automata_browser_testing import PageWatch
from playwright.sync_api import Page

WAIT_MS = 20_000


@dataclass
class FrontEnd:
    """One tab on a front end at `url`."""

    page: Page
    url: str
    watch: PageWatch

    @classmethod
    def open(cls, page: Page, url: str, *, width: int) -> FrontEnd:
        page.set_viewport_size({"width": width, "height": 844 if width < 700 else 900})
        watch = PageWatch.attach(page)
        page.goto(url)
        page.wait_for_selector("body[data-ready]", state="attached")
        return cls(page, url, watch)

    def send(self, text: str) -> None:
        self.page.fill("#message", text)
        self.page.press("#message", "Enter")

    def wait_for_status(self, *statuses: str) -> None:
        self.page.wait_for_function(
            "(statuses) => statuses.includes(document.querySelector('#status').dataset.status)",
            arg=list(statuses),
            timeout=WAIT_MS,
        )

    def wait_for_tool(self, name: str, state: str) -> None:
        self.page.wait_for_selector(f'.tool.tool-{state}[data-tool="{name}"]', timeout=WAIT_MS)

    def assistant_text(self) -> str:
        return "\n".join(self.page.locator(".message.assistant > .text").all_inner_texts())

    def tool_output(self, name: str) -> str:
        return self.page.locator(f'.tool[data-tool="{name}"] .tool-output').last.inner_text()

    def horizontal_overflow(self) -> int:
        """How many pixels the page is wider than the window (0: none)."""
        return int(
            self.page.evaluate(
                "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
        )
