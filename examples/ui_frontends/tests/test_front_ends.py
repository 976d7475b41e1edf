"""Both example front ends, driven in headless Chromium at a desktop width and a
phone's: each is the protocol's own npm client (the AI SDK's `useChat`, AG-UI's
`HttpAgent`) on the example's server, so these tests show the clients and the
`automata.ui` streams work together in a real browser."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext

from ._front_end import FrontEnd

FRONT_ENDS = ["ai-sdk", "ag-ui"]
WIDTHS = [1280, 390]


@pytest.fixture(
    params=[(name, width) for name in FRONT_ENDS for width in WIDTHS],
    ids=lambda case: f"{case[0]}-{case[1]}px",
)
def front_end(
    request: pytest.FixtureRequest, browser: BrowserContext, server: str
) -> Iterator[FrontEnd]:
    """A new tab on one front end at one width; after the test, the page had no
    console errors, page errors or failed requests, and nothing wider than the
    window."""
    name, width = request.param
    page = browser.new_page()
    try:
        front = FrontEnd.open(page, f"{server}/{name}/", width=width)
        yield front
        assert front.horizontal_overflow() == 0
        front.watch.assert_clean()
    finally:
        page.close()


def test_a_question_gets_the_streamed_answer_with_its_thinking(front_end: FrontEnd) -> None:
    front_end.send("How do I keep a project on track?")
    front_end.page.wait_for_selector(".message.user >> text=keep a project on track")
    front_end.wait_for_status("ready")
    answer = front_end.assistant_text()
    assert "You asked about How do I keep a project on track" in answer
    assert "Finally, pick the next step" in answer
    assert front_end.page.locator(".reasoning").count() >= 1
    assert front_end.page.inner_text("#usage").endswith("out")


def test_an_approved_call_runs_and_its_result_appears(front_end: FrontEnd) -> None:
    front_end.send("Please email the team an update")
    front_end.wait_for_tool("send_email", "approval-requested")
    assert "team@example.com" in front_end.page.inner_text('.tool[data-tool="send_email"] pre')
    front_end.page.click('.tool[data-tool="send_email"] button.approve')
    front_end.wait_for_tool("send_email", "output-available")
    front_end.wait_for_status("ready")
    assert "sent to team@example.com" in front_end.tool_output("send_email")
    assert "Done: the email was sent to team@example.com" in front_end.assistant_text()


def test_a_denied_call_is_not_run_and_the_model_is_told(front_end: FrontEnd) -> None:
    front_end.send("Please email the team an update")
    front_end.wait_for_tool("send_email", "approval-requested")
    front_end.page.click('.tool[data-tool="send_email"] button.deny')
    front_end.wait_for_tool("send_email", "output-denied")
    front_end.wait_for_status("ready")
    assert "I did not send the email" in front_end.assistant_text()
    assert "Done: the email was sent" not in front_end.assistant_text()


def test_markup_from_the_model_and_a_tool_is_shown_as_text_and_runs_nothing(
    front_end: FrontEnd,
) -> None:
    front_end.send("Say something hostile")
    front_end.wait_for_tool("read_note", "output-available")
    front_end.wait_for_status("ready")
    assert "<script>" in front_end.assistant_text()
    assert '<img src="https://example.com/x.png" onerror=' in front_end.tool_output("read_note")
    page = front_end.page
    assert page.evaluate("() => window.pwned") is None
    assert page.locator("#messages script, #messages img, #messages a").count() == 0
