"""The server process killed mid-run and started again on the same SQLite file: the
page reconnects on its own (EventSource retry) and shows how the run came out. The
only problems the page may record are the event streams' failed reconnections while
no server listened."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat.process import ChatProcess
from playwright.sync_api import BrowserContext

from ._chat_page import ChatPage


@pytest.fixture
def restarted_chat(browser: BrowserContext, restartable: ChatProcess) -> Iterator[ChatPage]:
    page = browser.new_page()
    try:
        yield ChatPage.attach(page, restartable.url).open()
    finally:
        page.close()


def restart(server: ChatProcess, chat: ChatPage, how: signal.Signals) -> None:
    """Stop the server with `how`, see the page notice, start it again, see the page
    reconnect."""
    server.stop(how)
    chat.page.wait_for_selector("#connection.lost", timeout=10_000)
    assert "reconnecting" in chat.page.inner_text("#connection")
    server.start()
    # the notice shows for a few seconds; the count it leaves behind stays
    chat.page.wait_for_selector("#connection[data-reconnects]", state="attached", timeout=10_000)


LOST = (
    "net::ERR_CONNECTION_REFUSED",
    "net::ERR_INCOMPLETE_CHUNKED_ENCODING",
    "net::ERR_EMPTY_RESPONSE",
)
"""How the browser reports an event stream cut by the server's end, and its attempts
to reconnect while no server listens."""


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["killed", "stopped"])
def test_a_run_cut_by_a_restart_resumes_and_finishes(
    restarted_chat: ChatPage, restartable: ChatProcess, how: signal.Signals
) -> None:
    chat = restarted_chat
    chat.new_chat()
    chat.send("Tell me about restarts")
    partial = chat.wait_live_answer(at_least=20)
    restart(restartable, chat, how)
    chat.wait_status("done", timeout=30_000)
    final = chat.texts("assistant")
    assert len(final) == 1
    assert final[0].startswith(partial.rstrip("▍"))
    assert final[0].endswith("Everything else can wait until that step is done.")
    assert chat.texts("user") == ["Tell me about restarts"]
    chat.forget_failed_streams(*LOST)
    chat.assert_clean()


def test_after_a_crash_the_page_says_it_is_resuming_and_waits_for_the_lease(
    browser: BrowserContext, tmp_path: Path
) -> None:
    server = ChatProcess(tmp_path / "chat.db", tmp_path / "server.log", pace=0.02, lease_ttl=5.0)
    server.start()
    page = browser.new_page()
    try:
        chat = ChatPage.attach(page, server.url).open()
        chat.new_chat()
        chat.send("Tell me about leases")
        chat.wait_live_answer(at_least=20)
        restart(server, chat, signal.SIGKILL)
        chat.page.wait_for_selector("#resume:not([hidden])", timeout=10_000)
        said = chat.page.inner_text("#resume")
        assert said.startswith("Resuming: the server restarted during this answer.")
        assert "(its lease, 5 s)" in said
        assert chat.status() == "running"
        chat.wait_status("done", timeout=30_000)
        assert chat.page.is_hidden("#resume")
        chat.forget_failed_streams(*LOST)
        chat.assert_clean()
    finally:
        page.close()
        server.stop(signal.SIGKILL)


def test_a_tool_cut_by_a_crash_ends_outcome_unknown_and_retry_goes_on(
    restarted_chat: ChatPage, restartable: ChatProcess
) -> None:
    chat = restarted_chat
    chat.new_chat()
    chat.send("Email the team")
    chat.wait_status("waiting")
    chat.page.click("#items > li.tool_call button.approve")
    chat.page.wait_for_selector("#items > li.tool_call .badge.running")
    restart(restartable, chat, signal.SIGKILL)
    chat.wait_status("effect_outcome_unknown", timeout=30_000)
    assert chat.page.inner_text("#outcome-text").startswith(
        "The server stopped while a tool was running, so whether it took effect is unknown"
    )
    assert chat.page.locator("#items > li.tool_call .badge").inner_text() == "error"
    chat.page.click("#retry")
    chat.wait_status("done")
    assert chat.texts("assistant")[-1].startswith(
        "The server stopped while the email was being sent, so I cannot tell"
    )
    chat.forget_failed_streams(*LOST)
    chat.assert_clean()
