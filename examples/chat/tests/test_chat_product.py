"""The chat page as a product, in a real headless Chromium at a desktop width (1280 px)
and a phone's (390 px): markdown with highlighted code that copies, hostile markup
shown as text, no sideways scrolling, scrolling that stays where the reader put it,
Stop that keeps the text, edit-and-resend as a fork, questions answered from the
message box, approvals in the call's card, Delete that asks first. Each test ends
with no console errors, page errors or failed requests."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator

import pytest
from chat.process import ChatProcess
from playwright.sync_api import BrowserContext

from ._chat_page import ChatPage

WIDTHS = [1280, 390]


@pytest.fixture(params=WIDTHS, ids=[f"{width}px" for width in WIDTHS])
def sized_chat(
    request: pytest.FixtureRequest, browser: BrowserContext, server: ChatProcess
) -> Iterator[ChatPage]:
    """A new tab on the shared server's page, `request.param` pixels wide."""
    page = browser.new_page()
    page.set_viewport_size({"width": request.param, "height": 800})
    try:
        yield ChatPage.attach(page, server.url).open()
    finally:
        page.close()


def server_users(server: ChatProcess, thread_id: str) -> list[str]:
    with urllib.request.urlopen(f"{server.url}/threads/{thread_id}") as response:
        view = json.load(response)
    return [item["text"] for item in view["items"] if item["kind"] == "user"]


def test_markdown_is_rendered_with_a_heading_a_table_and_code_that_copies(
    sized_chat: ChatPage, browser: BrowserContext, server: ChatProcess
) -> None:
    chat = sized_chat
    browser.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    chat.new_chat()
    chat.send("Show me some markdown")
    chat.wait_status("done")
    answer = chat.page.locator("#items > li.assistant").last
    assert answer.locator("h2").inner_text() == "A plan in three steps"
    assert answer.locator("ol > li").count() == 3
    assert answer.locator("strong").first.inner_text() == "List"
    assert answer.locator("table th").all_inner_texts() == ["Step", "Time"]
    assert answer.locator("table tbody tr").count() == 2
    code = answer.locator(".code-block pre code")
    assert code.inner_text().rstrip() == "def next_step(tasks):\n    return min(tasks, key=len)"
    assert answer.locator(".code-block pre code .hljs-keyword").first.inner_text() == "def"
    assert answer.locator(".code-language").inner_text() == "python"
    link = answer.locator("a", has_text="the guide")
    assert link.get_attribute("href") == "https://example.com/guide"
    assert link.get_attribute("target") == "_blank"
    assert "noopener" in (link.get_attribute("rel") or "").split()

    copy = answer.locator(".code-bar button.copy")
    copy.click()
    chat.page.wait_for_selector("#items .code-bar button.copy[data-copied='true']")
    assert copy.inner_text() == "Copied"
    copied = chat.page.evaluate("navigator.clipboard.readText()")
    assert copied == "def next_step(tasks):\n    return min(tasks, key=len)"
    assert chat.horizontal_overflow() == []
    chat.assert_clean()


def test_hostile_markup_from_the_model_or_a_tool_runs_nothing_and_shows_as_text(
    sized_chat: ChatPage,
) -> None:
    chat = sized_chat
    chat.new_chat()
    chat.send("Show me something hostile")
    chat.wait_status("done")
    items = chat.page.locator("#items")
    for link in items.locator("a").all():
        link.click()  # the javascript: link, left as text, does nothing either
    assert chat.page.evaluate("window.pwned") is None
    assert items.locator("script").count() == 0
    assert items.locator("img").count() == 0
    assert items.locator("[onerror]").count() == 0
    assert items.locator("a[href^='javascript']").count() == 0
    reply = chat.texts("assistant")[0]
    assert '<script>window.pwned = "script"</script>' in reply
    assert '<img src="https://example.com/x.png" onerror="window.pwned = \'img\'">' in reply
    assert "<a href=\"javascript:window.pwned='raw'\">a raw link</a>" in reply
    result = chat.page.locator("#items > li.tool_call .tool-result").inner_text()
    assert result.startswith('note inbox: Careful: <script>window.pwned = "script"</script>')
    after = chat.texts("assistant")[-1]
    assert after.startswith("read_note answered: note inbox: Careful: <script>window.pwned")
    assert chat.horizontal_overflow() == []
    chat.assert_clean()


def test_at_390_px_nothing_scrolls_sideways_and_the_chats_open_from_a_toggle(
    chat: ChatPage,
) -> None:
    chat.page.set_viewport_size({"width": 390, "height": 800})
    chat.open()
    assert chat.page.is_hidden("#sidebar")
    chat.new_chat()
    chat.send("Please email the team an update")
    chat.wait_status("waiting")
    assert chat.horizontal_overflow() == []
    assert chat.page.evaluate("document.querySelector('#items').clientWidth") >= 360
    chat.page.click("#toggle-threads")
    chat.page.wait_for_selector("#sidebar", state="visible")
    assert chat.page.get_attribute("#toggle-threads", "aria-expanded") == "true"
    chat.page.locator("#threads li.current button").click()
    chat.page.wait_for_selector("#sidebar", state="hidden")
    chat.page.set_viewport_size({"width": 1280, "height": 800})
    assert chat.page.is_visible("#sidebar")
    assert chat.page.is_hidden("#toggle-threads")
    chat.assert_clean()


def test_scrolling_up_during_a_stream_stays_put_and_the_bottom_follows_again(
    sized_chat: ChatPage,
) -> None:
    chat = sized_chat
    chat.new_chat()
    chat.send("Give me a long answer")
    chat.page.wait_for_function(
        """() => { const l = document.querySelector("#items");
        return document.querySelector("#items > li.assistant.live")
            && l.scrollHeight > l.clientHeight + 300; }""",
        timeout=20_000,
    )
    assert chat.at_bottom()
    box = chat.page.locator("#items").bounding_box()
    assert box is not None
    chat.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    chat.page.mouse.wheel(0, -250)
    held = chat.settled_scroll()
    assert held > 0
    grown_from = len(chat.texts("assistant")[-1])
    chat.page.wait_for_timeout(400)
    assert len(chat.texts("assistant")[-1]) > grown_from, "the answer stopped streaming"
    assert chat.page.evaluate("document.querySelector('#items').scrollTop") == held
    assert chat.status() == "running"
    # back to the bottom (at once, not a smooth scroll racing the stream): it follows again
    chat.page.evaluate(
        "() => { const l = document.querySelector('#items'); l.scrollTop = l.scrollHeight; }"
    )
    chat.wait_status("done")
    assert chat.texts("assistant")[-1].endswith(
        "Paragraph 40: one more short line of a long answer."
    )
    assert chat.at_bottom()
    chat.assert_clean()


def test_finished_items_keep_their_nodes_while_the_next_answer_streams(chat: ChatPage) -> None:
    chat.new_chat()
    chat.send("Weather in Tokyo?")
    chat.wait_status("done")
    chat.page.evaluate(
        "() => document.querySelectorAll('#items > li').forEach((n) => { n.__kept = true; })"
    )
    finished = chat.page.locator("#items > li").count()
    chat.send("How should I plan my week?")
    chat.wait_live_answer()
    chat.wait_status("done")
    kept = chat.page.evaluate(
        "() => [...document.querySelectorAll('#items > li')].map((n) => n.__kept === true)"
    )
    assert kept[:finished] == [True] * finished
    assert not any(kept[finished:])
    chat.assert_clean()


def test_stop_keeps_the_partial_text_marks_it_stopped_and_offers_regenerate(
    sized_chat: ChatPage, browser: BrowserContext, server: ChatProcess
) -> None:
    chat = sized_chat
    chat.new_chat()
    chat.send("Tell me about stopping")
    chat.wait_live_answer(at_least=40)
    chat.page.keyboard.press("Escape")  # Esc stops
    chat.wait_status("cancelled")
    stopped = chat.page.locator("#items > li.assistant.stopped")
    assert stopped.count() == 1
    kept = stopped.locator(".text").inner_text()
    assert kept.startswith("You asked about Tell me about stopping")
    assert stopped.locator(".stopped-note").inner_text() == "stopped: the answer so far"
    assert "kept above" in chat.page.inner_text("#outcome-text")
    address = chat.page.url
    chat.page.reload()  # the server keeps it (docs/threads.md T26), not the tab
    chat.page.wait_for_selector("#items > li.assistant.stopped")
    assert chat.page.locator("#items > li.assistant.stopped .text").inner_text() == kept
    assert browser.browser is not None
    elsewhere = browser.browser.new_context()  # another browser's storage and session
    try:
        other = ChatPage.attach(elsewhere.new_page(), server.url)
        other.page.goto(address)
        other.page.wait_for_selector("#items > li.assistant.stopped")
        assert other.page.locator("#items > li.assistant.stopped .text").inner_text() == kept
        other.assert_clean()
    finally:
        elsewhere.close()
    chat.page.click("#regenerate")
    chat.wait_status("done")
    assert chat.texts("user") == ["Tell me about stopping", "Tell me about stopping"]
    answers = chat.page.locator("#items > li.assistant:not(.stopped) .text").all_inner_texts()
    assert answers[-1].endswith("Everything else can wait until that step is done.")
    assert chat.page.locator("#items > li.assistant.stopped").count() == 1
    chat.assert_clean()


def test_an_edited_message_is_resent_in_a_fork(sized_chat: ChatPage, server: ChatProcess) -> None:
    chat = sized_chat
    original = chat.new_chat()
    chat.send("Weather in Tokyo?")
    chat.wait_status("done")
    chat.send("Weather in Paris?")
    chat.page.wait_for_function(
        "() => document.querySelectorAll('#items > li.user').length === 2"
        " && document.querySelector('#status').dataset.status === 'done'",
        timeout=20_000,
    )
    second = chat.page.locator("#items > li.user").nth(1)
    second.hover()
    second.locator("button.edit").click()
    second.locator("textarea").fill("Weather in Berlin?")
    second.locator("button.save").click()
    chat.page.wait_for_function("(id) => location.hash.slice(1) !== id", arg=original)
    chat.page.wait_for_function(
        "() => document.querySelectorAll('#items > li.user').length === 2"
        " && document.querySelector('#status').dataset.status === 'done'",
        timeout=20_000,
    )
    forked = str(chat.page.evaluate("location.hash.slice(1)"))
    assert chat.texts("user") == ["Weather in Tokyo?", "Weather in Berlin?"]
    assert chat.texts("assistant")[-1] == "In Berlin it is cloudy, 17°C today."
    assert server_users(server, forked) == ["Weather in Tokyo?", "Weather in Berlin?"]
    assert server_users(server, original) == ["Weather in Tokyo?", "Weather in Paris?"]
    chat.assert_clean()


def test_a_typed_answer_reaches_the_pending_question(sized_chat: ChatPage) -> None:
    chat = sized_chat
    chat.new_chat()
    chat.send("Help me plan a trip")
    chat.wait_status("waiting")
    assert chat.page.inner_text("#answering-text") == "Which city would you like to visit?"
    assert chat.page.inner_text("#send") == "Answer"
    where = chat.page.locator("#items > li.interaction .where")
    assert where.inner_text() == "Answer in the message box below."
    chat.page.fill("#message", "Lisbon")
    chat.page.keyboard.press("Enter")  # Enter sends (answers)
    chat.wait_status("done")
    assert chat.texts("assistant")[-1].startswith("Lisbon, then.")
    assert chat.page.locator("#queue li").count() == 0
    assert chat.page.inner_text("#items > li.interaction .answer-given") == "you answered: Lisbon"
    assert chat.page.is_hidden("#answering")
    assert chat.page.input_value("#message") == ""
    chat.assert_clean()


def test_an_approval_is_asked_in_the_calls_card_with_its_arguments_readable(
    chat: ChatPage,
) -> None:
    chat.new_chat()
    chat.send("Please email the team an update")
    chat.wait_status("waiting")
    card = chat.page.locator("#items > li.tool_call .tool-card")
    assert card.locator(".tool-args dt").all_inner_texts() == ["body", "subject", "to"]
    assert card.locator(".tool-args dd").all_inner_texts() == [
        "Hello team, a quick update: Please email the team an update",
        "Update",
        "team@example.com",
    ]
    assert card.locator(".approval .question").inner_text() == (
        "Allow send_email with these arguments?"
    )
    assert card.locator(".badge").inner_text() == "needs approval"
    assert chat.page.is_visible("#composer-hint")
    card.locator("button.approve").click()
    chat.wait_status("done")
    assert card.locator(".approval .answer-given").inner_text() == "you approved this"
    assert card.locator(".tool-result").inner_text() == "sent to team@example.com: 'Update'"
    chat.assert_clean()


def test_delete_asks_first(chat: ChatPage) -> None:
    thread_id = chat.new_chat()
    chat.page.click("#delete")
    chat.page.wait_for_selector("#confirm-delete[open]")
    chat.page.click("#confirm-delete button[value='keep']")
    chat.page.wait_for_selector("#confirm-delete", state="hidden")
    assert chat.page.evaluate("location.hash.slice(1)") == thread_id
    chat.page.click("#delete")
    chat.page.click("#confirm-delete-button")
    chat.page.wait_for_selector("#empty:not([hidden])")
    chat.page.wait_for_function(
        "(id) => !document.querySelector(`#threads li[data-id='${id}']`)", arg=thread_id
    )
    chat.assert_clean()


def test_usage_counts_while_the_first_answer_streams(chat: ChatPage) -> None:
    chat.new_chat()
    chat.send("How should I plan my week?")
    chat.wait_live_answer(at_least=30)
    during = chat.page.inner_text("#usage")
    assert during.startswith("≈"), during
    assert during.endswith("out so far"), during
    chat.wait_status("done")
    assert not chat.page.inner_text("#usage").startswith("0 in")
    chat.assert_clean()


def test_shift_enter_breaks_the_line_and_sends_nothing(chat: ChatPage) -> None:
    chat.new_chat()
    chat.page.click("#message")
    chat.page.keyboard.type("first line")
    chat.page.keyboard.press("Shift+Enter")
    chat.page.keyboard.type("second line")
    assert chat.page.input_value("#message") == "first line\nsecond line"
    assert chat.page.locator("#items > li").count() == 0
    chat.page.keyboard.press("Enter")
    chat.wait_status("done")
    assert chat.texts("user") == ["first line\nsecond line"]
    chat.assert_clean()
