"""The chat page in a real headless Chromium, on the app in its own process (demo
model streaming a word every 20 ms, a SQLite file). Each test ends with no console
errors, page errors or failed requests."""

from __future__ import annotations

import json
import urllib.request

from chat.demo import HOSTILE
from chat.process import ChatProcess

from ._chat_page import WAIT_MS, ChatPage


def server_view(server: ChatProcess, thread_id: str) -> dict[str, object]:
    with urllib.request.urlopen(f"{server.url}/threads/{thread_id}") as response:
        view: dict[str, object] = json.load(response)
        return view


def test_an_answer_streams_into_a_new_chat(chat: ChatPage) -> None:
    chat.new_chat()
    chat.send("How should I plan my week?")
    grown = chat.watch_answers("done")
    final = chat.texts("assistant")[-1]
    assert final.startswith("You asked about How should I plan my week")
    partial = [text for text in grown if len(text) < len(final)]
    assert partial, f"no partial answer was seen before the final one: {grown}"
    assert all(final.startswith(text.rstrip("▍")) for text in partial)
    assert chat.page.locator("#items > li.thinking details:not([open])").count() == 1
    assert "How should I plan my week?" in chat.thread_titles()
    assert chat.page.inner_text("#usage").endswith("tokens")
    assert not chat.page.inner_text("#usage").startswith("0 in")
    chat.assert_clean()


def test_an_approved_tool_runs_and_shows_its_result(chat: ChatPage) -> None:
    chat.new_chat()
    chat.send("Please email the team an update")
    chat.wait_status("waiting")
    card = chat.page.locator("#items > li.tool_call .tool-card")
    assert card.locator(".approval .question").inner_text().startswith("Allow send_email")
    card.locator("button.approve").click()
    chat.wait_status("done")
    tool = chat.page.locator("#items > li.tool_call")
    assert tool.locator(".badge").inner_text() == "done"
    assert tool.locator(".tool-result").inner_text() == "sent to team@example.com: 'Update'"
    assert card.locator(".approval .answer-given").inner_text() == "you approved this"
    assert chat.texts("assistant")[-1].startswith("Done: the email was sent to team@example.com")
    chat.assert_clean()


def test_a_question_is_answered_in_the_page(chat: ChatPage) -> None:
    chat.new_chat()
    chat.send("Help me plan a trip")
    chat.wait_status("waiting")
    chat.send("Lisbon")  # the message box answers the pending question
    chat.wait_status("done")
    assert chat.texts("assistant")[-1].startswith("Lisbon, then.")
    chat.assert_clean()


def test_cancel_stops_the_run_and_says_so(chat: ChatPage) -> None:
    chat.new_chat()
    chat.send("Tell me about cancelling")
    chat.wait_live_answer()
    chat.page.click("#stop")
    chat.wait_status("cancelled")
    assert chat.page.inner_text("#outcome-text") == (
        "You stopped this answer; what it had written is kept above."
    )
    assert chat.page.is_hidden("#retry")
    assert chat.page.is_visible("#regenerate")
    assert chat.page.is_disabled("#stop")
    chat.assert_clean()


def test_a_message_sent_during_a_run_is_shown_queued_then_runs(chat: ChatPage) -> None:
    chat.new_chat()
    chat.send("First question")
    chat.wait_live_answer()
    chat.send("And the weather in Berlin?")
    queued = chat.page.locator("#queue li.queued")
    queued.wait_for()
    assert queued.locator(".text").inner_text() == "And the weather in Berlin?"
    chat.page.wait_for_function(
        "() => document.querySelectorAll('#items > li.user').length === 2"
        " && document.querySelector('#status').dataset.status === 'done'",
        timeout=20_000,
    )
    assert queued.count() == 0
    assert chat.texts("user") == ["First question", "And the weather in Berlin?"]
    assert chat.texts("assistant")[-1] == "In Berlin it is cloudy, 17°C today."
    chat.assert_clean()


def test_a_reload_mid_run_shows_the_same_view(chat: ChatPage) -> None:
    chat.new_chat()
    chat.send("What happens when I reload?")
    chat.wait_live_answer(at_least=30)
    before = [item["id"] for item in chat.items()]
    chat.page.reload()
    chat.page.wait_for_selector("#items > li.assistant")
    after = [item["id"] for item in chat.items()]
    assert after[: len(before)] == before
    assert chat.status() == "running"
    chat.wait_status("done")
    assert [item["id"] for item in chat.items()] == before
    chat.assert_clean()


def test_a_double_click_on_send_sends_one_message(chat: ChatPage, server: ChatProcess) -> None:
    thread_id = chat.new_chat()
    sends: list[str] = []
    chat.page.on(
        "request",
        lambda request: (
            sends.append(request.post_data or "") if request.url.endswith("/messages") else None
        ),
    )
    chat.page.fill("#message", "Weather in Paris, only once please")
    chat.page.dblclick("#send")
    chat.wait_status("done")
    assert len(sends) == 2  # both clicks reached the server, with one request key
    assert len({json.loads(body)["request_key"] for body in sends}) == 1
    assert chat.texts("user") == ["Weather in Paris, only once please"]
    items = server_view(server, thread_id)["items"]
    assert isinstance(items, list)
    assert [item["text"] for item in items if item["kind"] == "user"] == [
        "Weather in Paris, only once please"
    ]
    chat.assert_clean()


def test_a_chat_is_renamed_forked_and_deleted(chat: ChatPage) -> None:
    original = chat.new_chat()
    chat.send("Weather in Tokyo, to fork")
    chat.wait_status("done")
    chat.page.click("#rename")
    chat.page.fill("#rename-input", "Renamed chat")
    chat.page.click("#rename-form button")
    chat.page.wait_for_function(
        "() => document.querySelector('#title').textContent === 'Renamed chat'"
    )
    chat.page.wait_for_function(
        "() => [...document.querySelectorAll('#threads li button')]"
        ".some((b) => b.textContent === 'Renamed chat')"
    )
    chat.page.click("#fork")
    chat.page.wait_for_function("(id) => location.hash.slice(1) !== id", arg=original)
    chat.page.wait_for_selector("#items > li.assistant")
    assert chat.texts("user") == ["Weather in Tokyo, to fork"]
    assert chat.page.inner_text("#title") == "Renamed chat"
    forked = chat.page.evaluate("location.hash.slice(1)")
    chat.page.click("#delete")
    chat.page.click("#confirm-delete-button")
    chat.page.wait_for_selector("#empty:not([hidden])")
    chat.page.wait_for_function(
        "(id) => !document.querySelector(`#threads li[data-id='${id}']`)", arg=forked
    )
    assert chat.page.locator(f"#threads li[data-id='{original}']").count() == 1
    chat.assert_clean()


def test_the_to_do_list_the_thread_keeps_is_shown_as_text_and_after_a_reload(
    chat: ChatPage, server: ChatProcess
) -> None:
    thread_id = chat.new_chat()
    assert chat.page.locator("#todos").is_hidden()
    chat.send("Make a todo list for my report")
    chat.wait_status("done")
    rows = chat.page.locator("#todo-items > li")
    expected = ["Draft the <b>outline</b>", "Write the summary", "Send it for review"]
    assert rows.all_inner_texts() == expected
    assert chat.page.locator("#todo-items b").count() == 0  # markup stays text
    statuses = [rows.nth(n).get_attribute("data-status") for n in range(3)]
    assert statuses == ["completed", "in_progress", "pending"]
    todos = server_view(server, thread_id)["todos"]
    assert isinstance(todos, dict)
    assert [item["content"] for item in todos["items"]] == expected
    chat.page.reload()
    chat.page.wait_for_selector("#todo-items > li")
    assert chat.page.locator("#todo-items > li").all_inner_texts() == expected
    chat.assert_clean()


def test_a_tool_calls_activity_is_shown_live_as_text_and_after_a_reload(
    chat: ChatPage, server: ChatProcess
) -> None:
    """docs/threads.md AC1, AC7: the label while the call runs, then its rows (markup
    and code as text) and status, the same after a reload."""
    thread_id = chat.new_chat()
    chat.send("Please fetch the page")
    running = "#items .tool-card:has(.badge.running) .activity-label"
    chat.page.wait_for_selector(running, timeout=WAIT_MS)
    assert chat.page.inner_text(running) == "Fetching example.com"
    chat.wait_status("done")
    expected = ["connected to example.com", HOSTILE, "GET / HTTP/1.1"]

    def shown() -> tuple[list[str], str]:
        box = chat.page.locator("#items .activity")
        return box.locator(".activity-row").all_inner_texts(), box.locator(
            ".activity-status"
        ).inner_text()

    assert shown() == (expected, "200 OK")
    assert chat.page.locator("#items .activity :is(img, script, a)").count() == 0
    assert chat.page.evaluate("window.pwned") is None
    items = server_view(server, thread_id)["items"]
    assert isinstance(items, list)
    calls = [item for item in items if item["kind"] == "tool_call"]
    assert [row["text"] for row in calls[0]["activity"]["rows"]] == expected
    chat.page.reload()
    chat.page.wait_for_selector("#items .activity-status")
    assert shown() == (expected, "200 OK")
    chat.assert_clean()
