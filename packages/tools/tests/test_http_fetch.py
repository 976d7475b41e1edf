"""http_fetch against a real server on loopback (loopback explicitly allowed here)."""

from __future__ import annotations

import gzip
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from automata.core import PREVIEW_CHARS, Tool, ToolResult
from automata.tools import http_fetch

from .conftest import Invoke, LocalServer


def loopback_fetch(**options: Any) -> Tool:
    """A fetcher loosened for these tests only: the test server lives on loopback."""
    return http_fetch(allow_private=True, **options)


def page_of(result: ToolResult) -> str:
    """The whole rendered page a fetch returned as its artifact."""
    (artifact,) = result.artifacts
    assert isinstance(artifact.content, str)
    return artifact.content


async def test_returns_plain_text_with_url_and_content_type(
    server: LocalServer, invoke: Invoke
) -> None:
    server.respond("/notes.txt", "hello from the server\n")
    result = await invoke(loopback_fetch(), url=server.url("/notes.txt"))
    assert not result.is_error
    text = page_of(result)
    assert text.startswith(f"URL: {server.url('/notes.txt')}\nContent-Type: text/plain")
    assert "hello from the server" in text


async def test_html_becomes_markdown_without_scripts_or_styles(
    server: LocalServer, invoke: Invoke
) -> None:
    page = """<html><head><title>Release notes</title><style>body{color:red}</style>
    <script>steal()</script></head><body><h1>Version 2</h1>
    <p>See <a href="https://example.com/docs">the docs</a>.</p>
    <ul><li>faster</li><li>smaller</li></ul><noscript>enable js</noscript>
    <script>alert('x')</script></body></html>"""
    server.respond("/page", page, content_type="text/html; charset=utf-8")
    text = (await invoke(loopback_fetch(), url=server.url("/page"))).as_text()
    assert "Title: Release notes" in text
    assert "# Version 2" in text
    assert "[the docs](https://example.com/docs)" in text
    assert "- faster" in text
    for leaked in ("steal()", "alert", "color:red", "enable js", "<p>"):
        assert leaked not in text


async def test_inline_data_images_are_dropped_but_alt_text_kept(
    server: LocalServer, invoke: Invoke
) -> None:
    blob = "A" * 5000
    page = f'<p>Chart: <img alt="sales chart" src="data:image/png;base64,{blob}"></p>'
    server.respond("/img", page, content_type="text/html")
    text = (await invoke(loopback_fetch(), url=server.url("/img"))).as_text()
    assert "sales chart" in text
    assert blob not in text


async def test_charset_from_the_content_type_is_used(server: LocalServer, invoke: Invoke) -> None:
    server.respond("/latin", "café".encode("latin-1"), content_type="text/plain; charset=latin-1")
    text = (await invoke(loopback_fetch(), url=server.url("/latin"))).as_text()
    assert "café" in text


async def test_gzip_bodies_are_decoded(server: LocalServer, invoke: Invoke) -> None:
    server.respond(
        "/zipped",
        gzip.compress(b"compressed words"),
        headers={"Content-Encoding": "gzip"},
    )
    text = (await invoke(loopback_fetch(), url=server.url("/zipped"))).as_text()
    assert "compressed words" in text


async def test_json_is_returned_as_text(server: LocalServer, invoke: Invoke) -> None:
    server.respond("/api", '{"ok": true}', content_type="application/json")
    text = (await invoke(loopback_fetch(), url=server.url("/api"))).as_text()
    assert '{"ok": true}' in text


async def test_non_2xx_is_an_error_with_the_status(server: LocalServer, invoke: Invoke) -> None:
    server.respond("/gone", "nothing here", status=404)
    result = await invoke(loopback_fetch(), url=server.url("/gone"))
    assert result.is_error
    assert result.as_text() == f"HTTP 404 Not Found from {server.url('/gone')}"


async def test_server_error_is_an_error_with_the_status(
    server: LocalServer, invoke: Invoke
) -> None:
    server.respond("/boom", "oops", status=503)
    result = await invoke(loopback_fetch(), url=server.url("/boom"))
    assert result.is_error
    assert "HTTP 503" in result.as_text()


@pytest.mark.parametrize("media_type", ["image/png", "application/pdf", "application/octet-stream"])
async def test_declared_binary_types_are_refused(
    server: LocalServer, invoke: Invoke, media_type: str
) -> None:
    server.respond("/file", b"\x89PNG\r\n\x1a\n\x00\x00", content_type=media_type)
    result = await invoke(loopback_fetch(), url=server.url("/file"))
    assert result.is_error
    assert result.as_text().startswith("refused:")
    assert media_type in result.as_text()


async def test_untyped_binary_body_is_refused(server: LocalServer, invoke: Invoke) -> None:
    server.respond("/blob", b"\x00\x01\x02binary", content_type=None)
    result = await invoke(loopback_fetch(), url=server.url("/blob"))
    assert result.is_error
    assert "binary" in result.as_text()


async def test_untyped_text_body_is_read(server: LocalServer, invoke: Invoke) -> None:
    server.respond("/untyped", b"just words", content_type=None)
    result = await invoke(loopback_fetch(), url=server.url("/untyped"))
    assert not result.is_error
    assert "just words" in result.as_text()


async def test_body_over_the_byte_cap_is_truncated_and_says_so(
    server: LocalServer, invoke: Invoke
) -> None:
    server.respond("/big", b"x" * 50_000)
    text = (await invoke(loopback_fetch(max_bytes=1000), url=server.url("/big"))).as_text()
    assert "x" * 1000 in text
    assert "x" * 1001 not in text
    assert "[truncated: the body is larger than 1000 bytes" in text


async def test_text_over_the_character_cap_is_truncated_and_says_so(
    server: LocalServer, invoke: Invoke
) -> None:
    server.respond("/long", "y" * 3000)
    text = (await invoke(loopback_fetch(max_chars=500), url=server.url("/long"))).as_text()
    assert "y" * 500 in text
    assert "y" * 501 not in text
    assert "[truncated: showing the first 500 of 3000 characters]" in text


async def test_relative_redirects_are_followed(server: LocalServer, invoke: Invoke) -> None:
    server.redirect("/old", "/new")
    server.respond("/new", "moved content")
    text = page_of(await invoke(loopback_fetch(), url=server.url("/old")))
    assert text.startswith(f"URL: {server.url('/new')}")
    assert "moved content" in text


async def test_ten_redirects_are_followed(server: LocalServer, invoke: Invoke) -> None:
    for hop in range(10):
        server.redirect(f"/hop{hop}", f"/hop{hop + 1}")
    server.respond("/hop10", "arrived")
    result = await invoke(loopback_fetch(), url=server.url("/hop0"))
    assert not result.is_error
    assert "arrived" in result.as_text()


async def test_the_eleventh_redirect_is_not_followed(server: LocalServer, invoke: Invoke) -> None:
    for hop in range(11):
        server.redirect(f"/hop{hop}", f"/hop{hop + 1}")
    server.respond("/hop11", "never reached")
    result = await invoke(loopback_fetch(), url=server.url("/hop0"))
    assert result.is_error
    assert "too many redirects" in result.as_text()
    assert "/hop11" not in server.paths()
    assert len(server.requests) == 11


async def test_a_slow_body_is_cut_off_by_the_total_timeout(
    server: LocalServer, invoke: Invoke
) -> None:
    def drip(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "text/plain")
        request.end_headers()
        for _ in range(100):
            request.wfile.write(b".")
            request.wfile.flush()
            time.sleep(0.05)

    server.routes["/drip"] = drip
    started = time.monotonic()
    result = await invoke(loopback_fetch(timeout=0.5), url=server.url("/drip"))
    assert result.is_error
    assert result.as_text() == f"timed out after 0.5 s fetching {server.url('/drip')}"
    assert time.monotonic() - started < 3


async def test_sends_the_configured_user_agent(server: LocalServer, invoke: Invoke) -> None:
    server.respond("/ua", "ok")
    await invoke(loopback_fetch(user_agent="test-agent/1"), url=server.url("/ua"))
    (seen,) = server.requests
    assert seen.headers["user-agent"] == "test-agent/1"


async def test_the_fragment_is_not_sent(server: LocalServer, invoke: Invoke) -> None:
    server.respond("/doc", "ok")
    await invoke(loopback_fetch(), url=server.url("/doc?x=1#section"))
    assert server.paths() == ["/doc?x=1"]


async def test_environment_proxy_settings_are_ignored(
    server: LocalServer, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    server.respond("/direct", "reached directly")
    result = await invoke(loopback_fetch(), url=server.url("/direct"))
    assert "reached directly" in result.as_text()


async def test_connection_refused_is_an_error(invoke: Invoke) -> None:
    result = await invoke(loopback_fetch(), url="http://127.0.0.1:9/")
    assert result.is_error
    assert result.as_text().startswith("could not connect to 127.0.0.1:9")


async def test_unresolvable_host_is_an_error(invoke: Invoke) -> None:
    async def nowhere(host: str, port: int) -> list[str]:
        raise OSError(-2, "Name or service not known")

    result = await invoke(loopback_fetch(resolver=nowhere), url="http://missing.test/")
    assert result.is_error
    assert result.as_text() == "could not resolve missing.test: Name or service not known"


async def test_missing_url_argument_is_invalid_args(invoke: Invoke) -> None:
    from automata.core import InvalidToolArguments

    with pytest.raises(InvalidToolArguments):
        await invoke(loopback_fetch())


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_bytes"):
        http_fetch(max_bytes=0)
    with pytest.raises(ValueError, match="timeout"):
        http_fetch(timeout=-1)


async def test_the_page_is_an_artifact_the_model_sees_2000_characters_of(
    server: LocalServer, invoke: Invoke
) -> None:
    """docs/tools.md: the whole page (up to max_chars) is the artifact, Markdown for
    HTML and named by its URL; the model sees its first 2,000 characters and its id."""
    body = "".join(f"<p>paragraph {n:04d}</p>" for n in range(1000))
    server.respond("/long.html", f"<html><body>{body}</body></html>", content_type="text/html")
    result = await invoke(loopback_fetch(max_chars=10_000), url=server.url("/long.html"))
    (artifact,) = result.artifacts
    page = page_of(result)
    assert (artifact.media_type, artifact.name) == ("text/markdown", server.url("/long.html"))
    assert "paragraph 0999" not in page  # cut at max_chars, and the cut is stated
    assert "[truncated: showing the first 10000 of" in page
    seen = result.as_text().split("\n")
    assert seen[0].startswith(f"[artifact {artifact.id}: text/markdown, ")
    assert "\n".join(seen[1:-1]) == page[:PREVIEW_CHARS]
    assert seen[-1].endswith(f'read_artifact(id="{artifact.id}", offset=2000)]')
