"""http_fetch against hostile servers: compression bombs, adversarial HTML, malformed
redirects and charsets. Each attack is served by a real server on loopback.

The bomb tests fetch in a child process capped at 1 GB of address space, so a
regression fails the test instead of exhausting the machine; the child reports the
peak of traced memory, the time taken and the longest stall of its event loop.
"""

from __future__ import annotations

import asyncio
import functools
import gzip
import json
import os
import subprocess
import sys
import time
import zlib
from typing import Any

import pytest

from automata.tools import http_fetch

from .conftest import Invoke, LocalServer

_CHILD = r"""
import asyncio, json, resource, sys, time, tracemalloc
cap = 1 << 30
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
from automata.core import ToolContext, ToolUseBlock
from automata.tools import http_fetch

async def main(url: str, timeout: float) -> dict:
    gap = 0.0
    async def tick() -> None:
        # CPU time of the loop's own thread between ticks: work done on the loop,
        # not time the machine's scheduler kept the process waiting.
        nonlocal gap
        last = time.thread_time()
        while True:
            await asyncio.sleep(0.005)
            now = time.thread_time()
            gap = max(gap, now - last)
            last = now
    tool = http_fetch(allow_private=True, timeout=timeout)  # loads the trust store
    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.05)
    context = ToolContext(
        call=ToolUseBlock(id="c", name="http_fetch", input={}), agent="a", invocation_id="i"
    )
    tracemalloc.start()
    started = time.monotonic()
    try:
        result = await tool.execute({"url": url}, context)
        text, error = result.as_text(), result.is_error
    except BaseException as exc:
        text, error = f"raised {type(exc).__name__}: {exc}", None
    seconds = time.monotonic() - started
    peak = tracemalloc.get_traced_memory()[1]
    ticker.cancel()
    return {"text": text[:300], "error": error, "seconds": seconds, "peak": peak, "gap": gap}

print(json.dumps(asyncio.run(main(sys.argv[1], float(sys.argv[2])))))
"""


def fetch_in_child(url: str, timeout: float = 5.0) -> dict[str, Any]:
    """Fetch `url` in a capped child process and return what it measured."""
    env = {**os.environ, "MALLOC_ARENA_MAX": "2"}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, url, str(timeout)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    assert lines, f"the child printed nothing; stderr: {done.stderr[-2000:]}"
    report: dict[str, Any] = json.loads(lines[-1])
    return report


@functools.cache
def gzip_of_zeros(size: int) -> bytes:
    """One gzip layer over `size` zero bytes, compressed a megabyte at a time."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    parts = [compressor.compress(block) for _ in range(size >> 20)]
    parts.append(compressor.flush())
    return b"".join(parts)


def test_stacked_gzip_layers_are_refused_before_any_decoding(server: LocalServer) -> None:
    bomb = gzip.compress(gzip.compress(gzip_of_zeros(1 << 30), 9), 9)
    assert len(bomb) < 400
    server.respond(
        "/bomb", bomb, content_type="text/html", headers={"Content-Encoding": "gzip, gzip, gzip"}
    )
    report = fetch_in_child(server.url("/bomb"))
    assert report["text"] == (
        f"refused: {server.url('/bomb')} has 3 content codings (gzip, gzip, gzip); "
        "http_fetch decodes at most one"
    )
    assert report["error"] is True
    assert report["seconds"] < 5
    assert report["peak"] < 20_000_000
    assert report["gap"] < 1.0


def test_a_single_gzip_layer_bomb_is_refused_while_decoding(server: LocalServer) -> None:
    bomb = gzip_of_zeros(1 << 30)  # about 1 MB on the wire, 1 GB decoded
    server.respond("/bomb", bomb, content_type="text/html", headers={"Content-Encoding": "gzip"})
    report = fetch_in_child(server.url("/bomb"))
    assert report["text"] == (
        f"refused: {server.url('/bomb')} grows more than 100-fold when decoded "
        "(a compression bomb); http_fetch stopped reading it"
    )
    assert report["error"] is True
    assert report["seconds"] < 5
    assert report["peak"] < 50_000_000
    assert report["gap"] < 1.0


def test_a_deflate_bomb_is_refused_like_a_gzip_one(server: LocalServer) -> None:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 15)
    bomb = b"".join([compressor.compress(bytes(1 << 20)) for _ in range(64)]) + compressor.flush()
    server.respond(
        "/bomb", bomb, content_type="text/plain", headers={"Content-Encoding": "deflate"}
    )
    report = fetch_in_child(server.url("/bomb"))
    assert report["text"].startswith(f"refused: {server.url('/bomb')} grows more than 100-fold")
    assert report["peak"] < 50_000_000


async def test_a_large_ordinary_gzip_page_is_read_whole(
    server: LocalServer, invoke: Invoke
) -> None:
    words = " ".join(f"word{n}" for n in range(300_000)).encode()  # ~2.7 MB, ~5x smaller zipped
    server.respond("/big", gzip.compress(words), headers={"Content-Encoding": "gzip"})
    tool = http_fetch(allow_private=True, max_bytes=4_000_000, max_chars=10_000_000)
    result = await invoke(tool, url=server.url("/big"))
    assert not result.is_error
    (page,) = result.artifacts
    assert isinstance(page.content, str)
    assert page.content.endswith("word299999")


async def test_the_byte_cap_applies_to_decoded_bytes(server: LocalServer, invoke: Invoke) -> None:
    server.respond("/zipped", gzip.compress(b"z" * 5000), headers={"Content-Encoding": "gzip"})
    tool = http_fetch(allow_private=True, max_bytes=1000)
    text = (await invoke(tool, url=server.url("/zipped"))).as_text()
    assert "z" * 1000 in text
    assert "z" * 1001 not in text
    assert "[truncated: the body is larger than 1000 bytes" in text


async def test_an_unknown_content_coding_is_an_error(server: LocalServer, invoke: Invoke) -> None:
    server.respond("/br", b"\x1b\x00", headers={"Content-Encoding": "br"})
    result = await invoke(http_fetch(allow_private=True), url=server.url("/br"))
    assert result.is_error
    assert result.as_text() == (
        f"{server.url('/br')} uses the content coding 'br', which http_fetch cannot decode"
    )


async def test_a_corrupt_gzip_body_is_an_error(server: LocalServer, invoke: Invoke) -> None:
    server.respond("/bad", b"not gzip at all", headers={"Content-Encoding": "gzip"})
    result = await invoke(http_fetch(allow_private=True), url=server.url("/bad"))
    assert result.is_error
    assert result.as_text() == f"{server.url('/bad')} has a corrupt gzip body"


async def test_identity_is_not_counted_as_a_coding(server: LocalServer, invoke: Invoke) -> None:
    server.respond(
        "/id", gzip.compress(b"plain words"), headers={"Content-Encoding": "identity, gzip"}
    )
    result = await invoke(http_fetch(allow_private=True), url=server.url("/id"))
    assert "plain words" in result.as_text()


@pytest.mark.parametrize("location", ["data:text/plain,hi", "http:127.0.0.1:1/x"])
async def test_a_redirect_to_a_malformed_url_is_an_error_result(
    server: LocalServer, invoke: Invoke, location: str
) -> None:
    server.redirect("/hop", location)
    result = await invoke(http_fetch(allow_private=True), url=server.url("/hop"))
    assert result.is_error
    assert result.as_text() == (f"{server.url('/hop')} redirected to an invalid URL: {location!r}")


async def test_a_charset_that_is_not_a_text_encoding_falls_back_to_utf8(
    server: LocalServer, invoke: Invoke
) -> None:
    server.respond("/rot", "café", content_type="text/plain; charset=rot13")
    result = await invoke(http_fetch(allow_private=True), url=server.url("/rot"))
    assert not result.is_error
    assert "café" in result.as_text()


async def test_a_meta_charset_that_is_not_a_text_encoding_falls_back_to_utf8(
    server: LocalServer, invoke: Invoke
) -> None:
    page = '<html><head><meta charset="hex"></head><body><p>café</p></body></html>'
    server.respond("/meta", page, content_type="text/html")
    result = await invoke(http_fetch(allow_private=True), url=server.url("/meta"))
    assert "café" in result.as_text()


_TWO_MB = 2_000_000
ADVERSARIAL_PAGES = {
    "200k nested divs": "<div>" * 200_000,
    "nested quotes with text": "<blockquote>x" * (_TWO_MB // 13),
    "nested lists": "<ul><li>x" * (_TWO_MB // 9),
    "nested bold": "<b>x" * (_TWO_MB // 4),
    "unclosed paragraphs": "<p>x" * (_TWO_MB // 4),
    "unclosed cells": "<table><tr><td>x" * (_TWO_MB // 16),
    "unterminated tag openers": "<a" * (_TWO_MB // 2),
    "unterminated quoted attributes": "<a b='" * (_TWO_MB // 6),
    "stray end tags": "<div>" * 20_000 + "</span>" * ((_TWO_MB - 100_000) // 7),
    "unterminated comments": "<!--" * (_TWO_MB // 4),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL_PAGES))
async def test_an_adversarial_two_megabyte_page_converts_in_bounded_time(
    server: LocalServer, invoke: Invoke, name: str
) -> None:
    server.respond("/page", ADVERSARIAL_PAGES[name], content_type="text/html")
    started = time.monotonic()
    result = await invoke(http_fetch(allow_private=True), url=server.url("/page"))
    seconds = time.monotonic() - started
    assert not result.is_error, result.as_text()[:300]
    assert seconds < 8, f"{name} took {seconds:.1f} s"


async def test_a_conversion_longer_than_the_timeout_ends_the_fetch_at_the_timeout(
    server: LocalServer, invoke: Invoke
) -> None:
    server.respond("/slow", ADVERSARIAL_PAGES["unclosed paragraphs"], content_type="text/html")
    started = time.monotonic()
    result = await invoke(http_fetch(allow_private=True, timeout=0.5), url=server.url("/slow"))
    assert result.as_text() == f"timed out after 0.5 s fetching {server.url('/slow')}"
    assert time.monotonic() - started < 3


async def test_the_event_loop_keeps_running_while_a_page_converts(
    server: LocalServer, invoke: Invoke
) -> None:
    server.respond("/page", ADVERSARIAL_PAGES["nested lists"], content_type="text/html")
    gap = 0.0

    async def tick() -> None:
        nonlocal gap
        last = time.thread_time()  # the loop thread's own work, not scheduler waits
        while True:
            await asyncio.sleep(0.005)
            now = time.thread_time()
            gap, last = max(gap, now - last), now

    ticker = asyncio.create_task(tick())
    try:
        result = await invoke(http_fetch(allow_private=True), url=server.url("/page"))
    finally:
        ticker.cancel()
    assert not result.is_error
    assert gap < 0.5


async def test_a_cut_off_gzip_body_is_an_error(server: LocalServer, invoke: Invoke) -> None:
    whole = gzip.compress(b"words " * 1000)
    server.respond("/cut", whole[: len(whole) // 2], headers={"Content-Encoding": "gzip"})
    result = await invoke(http_fetch(allow_private=True), url=server.url("/cut"))
    assert result.is_error
    assert result.as_text() == f"{server.url('/cut')} has a truncated gzip body"
