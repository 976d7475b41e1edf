"""The chat page as a test sees it: what a user does (click, type) and what the page
shows (items, status, prompts), through Playwright."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from automata_browser_testing import PageWatch
from playwright.sync_api import Page

WAIT_MS = 20_000


@dataclass
class ChatPage:
    """One browser tab on the chat app at `url`."""

    page: Page
    url: str
    watch: PageWatch

    @classmethod
    def attach(cls, page: Page, url: str) -> ChatPage:
        """The page, with its problems recorded from now on (`assert_clean`)."""
        return cls(page, url, PageWatch.attach(page))

    def assert_clean(self) -> None:
        """No console errors, page errors, failed requests or error responses so far,
        but for event streams the page ended itself (`net::ERR_ABORTED`: it closes a
        chat's stream when another chat is opened, and a reload ends the old page's)."""
        self.forget_failed_streams("net::ERR_ABORTED")
        self.watch.assert_clean()

    def forget_failed_streams(self, *errors: str) -> list[str]:
        """Take the event-stream requests that failed with one of `errors` off the
        page's record (the failed request, and the browser's console line for it:
        `Failed to load resource: <error>`), and return them."""
        failed = [
            line
            for line in self.watch.failed_requests
            if "/events" in line and line.endswith(tuple(f": {error}" for error in errors))
        ]
        logged = [
            line
            for line in self.watch.console_errors
            if "/events" in line
            and line.startswith(tuple(f"Failed to load resource: {error} (" for error in errors))
        ]
        self.watch.failed_requests = [
            line for line in self.watch.failed_requests if line not in failed
        ]
        self.watch.console_errors = [
            line for line in self.watch.console_errors if line not in logged
        ]
        return failed + logged

    def open(self) -> ChatPage:
        self.page.goto(self.url + "/")
        self.page.wait_for_selector("body[data-ready]", state="attached")
        return self

    def new_chat(self) -> str:
        """Start a chat; its thread id (from the address bar)."""
        before = self.page.evaluate("location.hash")
        self.page.locator(".new-chat:visible").last.click()  # the top bar's when narrow
        self.page.wait_for_function(
            "(before) => location.hash && location.hash !== before", arg=before
        )
        self.page.wait_for_selector("#thread:not([hidden])")
        return str(self.page.evaluate("location.hash.slice(1)"))

    def send(self, text: str) -> None:
        self.page.fill("#message", text)
        self.page.click("#send")

    def status(self) -> str:
        return str(self.page.get_attribute("#status", "data-status") or "")

    def wait_status(self, *statuses: str, timeout: int = WAIT_MS) -> str:
        self.page.wait_for_function(
            "(statuses) => statuses.includes(document.querySelector('#status').dataset.status)",
            arg=list(statuses),
            timeout=timeout,
        )
        return self.status()

    def items(self) -> list[dict[str, Any]]:
        """The conversation's items in order: id, kind, live, text."""
        found: list[dict[str, Any]] = self.page.eval_on_selector_all(
            "#items > li",
            """(nodes) => nodes.map((node) => ({
                id: node.dataset.id,
                kind: node.dataset.kind,
                live: node.classList.contains("live"),
                text: (node.querySelector(":scope > .text") || node).innerText,
            }))""",
        )
        return found

    def texts(self, kind: str) -> list[str]:
        return [item["text"] for item in self.items() if item["kind"] == kind]

    def wait_live_answer(self, *, at_least: int = 10) -> str:
        """Wait until a reply is streaming with some text; that text."""
        handle = self.page.wait_for_function(
            """(least) => {
                const node = document.querySelector("#items > li.assistant.live .text");
                const text = node ? node.innerText.trim() : "";
                return text.length >= least ? text : null;
            }""",
            arg=at_least,
            timeout=WAIT_MS,
        )
        return str(handle.json_value())

    def watch_answers(self, until_status: str = "done", timeout: float = 20.0) -> list[str]:
        """The assistant text seen at each poll (every 20 ms) until the status is
        `until_status`: how the answer grew."""
        seen: list[str] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            texts = self.texts("assistant")
            if texts and (not seen or seen[-1] != texts[-1]):
                seen.append(texts[-1])
            if self.status() == until_status:
                return seen
            self.page.wait_for_timeout(20)
        raise AssertionError(f"status is still {self.status()!r}; answers seen: {seen}")

    def wait_done_or(self, *statuses: str) -> str:
        return self.wait_status("done", *statuses)

    def at_bottom(self) -> bool:
        return bool(
            self.page.evaluate(
                """() => { const l = document.querySelector("#items");
                return l.scrollHeight - l.scrollTop - l.clientHeight < 24; }"""
            )
        )

    def settled_scroll(self) -> int:
        """The conversation's scrollTop once a (smooth) scroll has come to rest."""
        handle = self.page.wait_for_function(
            """() => new Promise((resolve) => {
                const list = document.querySelector("#items");
                let last = list.scrollTop;
                const check = () => {
                    if (list.scrollTop === last) return resolve(last);
                    last = list.scrollTop;
                    setTimeout(check, 150);
                };
                setTimeout(check, 150);
            })""",
            timeout=WAIT_MS,
        )
        return int(handle.json_value())

    def horizontal_overflow(self) -> list[str]:
        """What sticks out of the window sideways: the page itself when it scrolls
        sideways, and every element whose box ends right of the window."""
        found: list[str] = self.page.evaluate(
            """() => {
                const width = document.documentElement.clientWidth;
                const out = [];
                if (document.documentElement.scrollWidth > width) {
                    out.push("the page scrolls sideways");
                }
                for (const node of document.querySelectorAll("main *")) {
                    const box = node.getBoundingClientRect();
                    const scrolls = node.closest(".code-block pre, .table-wrap");
                    if (box.width && box.right > width + 1 && !scrolls) {
                        out.push(`${node.tagName} ${node.className} ends at ${box.right}`);
                    }
                }
                return out;
            }"""
        )
        return found

    def thread_titles(self) -> list[str]:
        titles: list[str] = self.page.eval_on_selector_all(
            "#threads li button", "(nodes) => nodes.map((node) => node.textContent)"
        )
        return titles
