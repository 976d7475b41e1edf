"""`http_fetch`: let a model read a public web page without reaching the server's network.

Guarantees, for every request including each redirect hop:

- GET only, `http` and `https` only, no credentials in the URL, no proxy from the
  environment.
- The host is resolved here, every answer is checked against the `AddressPolicy`, and
  the connection goes to a checked address (TLS still verifies the certificate against
  the host name, which is also sent as SNI and in the `Host` header). A DNS answer that
  changes between the check and the connection cannot redirect the request.
- At most `max_redirects` redirects; each target is checked like the first URL.
- Only textual bodies are read; at most `max_bytes` of them, and at most `max_chars`
  characters are returned; both truncations are stated in the result.
- The page is returned as an `Artifact` (Markdown for HTML, else its text type, named
  by its final URL): the model is shown its first `PREVIEW_CHARS` (2,000) characters
  and its id; the whole rendered page (up to `max_chars`) travels beside the result,
  and a durable thread journals it for `read_artifact`.
- At most one content coding is undone, in slices of at most 64 KiB, and a body that
  grows more than 100-fold is refused as a compression bomb (`automata.tools._decode`).
- HTML is converted in linear time on the tool's own threads (`automata.tools._html`);
  DNS lookups run on threads of their own: neither waits for the default executor.
- The whole fetch, redirects, body and conversion included, ends within `timeout`
  seconds: one overall deadline. Every failure is a `ToolError` (or `Refused`).
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Annotated

import httpx

from automata.core import Artifact, Tool, ToolResult, tool
from automata.tools._addresses import AddressPolicy, IPAddress
from automata.tools._content import (
    decode_text,
    html_to_markdown,
    is_html,
    is_text_type,
    looks_binary,
)
from automata.tools._decode import BodyDecoder, parse_codings
from automata.tools._errors import Refused, ToolError
from automata.tools._html import ConversionTimeout
from automata.tools._resolve import Resolver, parse_ip_literal, system_resolver

__all__ = ["DEFAULT_USER_AGENT", "http_fetch"]

DEFAULT_USER_AGENT = "automata-http-fetch/0.1"
_CONVERTERS = 2  # threads per tool converting HTML; more conversions wait their turn
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_ACCEPT = (
    "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,"
    "application/json;q=0.8,application/xml;q=0.8,text/*;q=0.7,*/*;q=0.1"
)


@dataclass(frozen=True, slots=True)
class _Target:
    """One URL to request, split into what the connection and the request need."""

    url: httpx.URL
    host: str  # ASCII (IDNA) host without brackets
    port: int
    host_header: str
    literal: IPAddress | None  # the address, when the host spells one


def _target(value: str | httpx.URL) -> _Target:
    try:
        url = httpx.URL(value)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise ToolError(f"invalid URL {str(value)!r}: {exc}") from None
    scheme = url.scheme.lower()
    if scheme not in ("http", "https"):
        shown = f"{scheme}:" if scheme else "a relative URL"
        raise Refused(f"only http and https URLs can be fetched, not {shown}")
    if not url.raw_host:
        raise ToolError(f"invalid URL {str(value)!r}: no host")
    if url.userinfo:
        raise Refused("URLs carrying credentials (user:password@) are not fetched")
    host = url.raw_host.decode("ascii")
    return _Target(
        url=url.copy_with(fragment=None),
        host=host,
        port=url.port or (443 if scheme == "https" else 80),
        host_header=url.netloc.decode("ascii"),
        literal=parse_ip_literal(host),
    )


@dataclass(frozen=True, slots=True)
class _Page:
    url: str
    content_type: str
    title: str | None
    text: str
    bytes_truncated: bool

    @property
    def media_type(self) -> str:
        """The rendered page's type: Markdown for converted HTML, else the reply's own
        text type (`text/plain` when it named none)."""
        declared = self.content_type.split(";", 1)[0].strip().lower()
        if is_html(declared):
            return "text/markdown"
        return declared or "text/plain"

    def render(self, max_bytes: int, max_chars: int) -> str:
        lines = [f"URL: {self.url}"]
        if self.content_type:
            lines.append(f"Content-Type: {self.content_type}")
        if self.title:
            lines.append(f"Title: {self.title}")
        body = self.text if self.text.strip() else "(empty body)"
        notes = []
        if len(body) > max_chars:
            notes.append(f"[truncated: showing the first {max_chars} of {len(body)} characters]")
            body = body[:max_chars]
        if self.bytes_truncated:
            notes.append(
                f"[truncated: the body is larger than {max_bytes} bytes; "
                f"only the first {max_bytes} bytes were read]"
            )
        return "\n".join([*lines, "", body, *notes])


@dataclass(frozen=True, slots=True)
class _Fetcher:
    policy: AddressPolicy
    resolver: Resolver
    ssl_context: ssl.SSLContext
    max_bytes: int
    max_chars: int
    timeout: float
    connect_timeout: float
    max_redirects: int
    user_agent: str
    converters: ThreadPoolExecutor

    async def fetch(self, url: str) -> Artifact:
        target = _target(url)
        deadline = time.monotonic() + self.timeout
        try:
            async with asyncio.timeout(self.timeout):
                page = await self._follow(target, deadline)
        except (TimeoutError, httpx.TimeoutException, ConversionTimeout):
            raise ToolError(f"timed out after {self.timeout:g} s fetching {url}") from None
        text = page.render(self.max_bytes, self.max_chars)
        return Artifact(text, page.media_type, name=page.url)

    def _client(self, locations: list[str]) -> httpx.AsyncClient:
        # A client per fetch: nothing is pooled across calls, event loops or TLS names.
        # `locations` collects each reply's Location, for the message when httpx finds
        # it malformed before handing the reply back.
        async def remember(response: httpx.Response) -> None:
            locations.append(response.headers.get("location", ""))

        transport = httpx.AsyncHTTPTransport(
            verify=self.ssl_context,
            retries=0,
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=0),
        )
        return httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(self.timeout, connect=self.connect_timeout),
            follow_redirects=False,
            trust_env=False,
            event_hooks={"response": [remember]},
            headers={
                "User-Agent": self.user_agent,
                "Accept": _ACCEPT,
                "Accept-Encoding": "gzip, deflate",
            },
        )

    async def _follow(self, target: _Target, deadline: float) -> _Page:
        redirects = 0
        came_from: str | None = None
        locations: list[str] = []
        async with self._client(locations) as client:
            while True:
                addresses = await self._checked_addresses(target, came_from)
                try:
                    response = await self._send(client, target, addresses)
                except httpx.InvalidURL:
                    shown = locations[-1] if locations else ""
                    raise ToolError(
                        f"{target.url} redirected to an invalid URL: {shown!r}"
                    ) from None
                try:
                    location = response.headers.get("location")
                    if response.status_code not in _REDIRECTS or not location:
                        return await self._read(response, target, deadline)
                    if redirects >= self.max_redirects:
                        raise ToolError(
                            f"too many redirects: stopped after {self.max_redirects} "
                            f"(the next one, from {target.url}, pointed to {location})"
                        )
                    redirects += 1
                    came_from = str(target.url)
                    try:
                        target = _target(_join(target.url, location))
                    except Refused as exc:
                        raise Refused(f"{exc.reason} (redirected from {came_from})") from None
                finally:
                    await response.aclose()

    async def _checked_addresses(self, target: _Target, came_from: str | None) -> list[IPAddress]:
        if target.literal is not None:
            addresses = [target.literal]
        else:
            addresses = await self._resolve(target)
        for address in addresses:
            reason = self.policy.refusal(target.host, address)
            if reason is not None:
                if came_from is not None:
                    reason = f"{reason} (redirected from {came_from})"
                raise Refused(reason)
        return addresses

    async def _resolve(self, target: _Target) -> list[IPAddress]:
        try:
            answers = await self.resolver(target.host, target.port)
        except OSError as exc:
            raise ToolError(f"could not resolve {target.host}: {exc.strerror or exc}") from None
        except UnicodeError:
            raise ToolError(f"could not resolve {target.host}: not a valid host name") from None
        addresses = []
        for answer in answers:
            address = parse_ip_literal(str(answer))
            if address is None:
                raise ToolError(f"could not resolve {target.host}: bad answer {answer!r}")
            addresses.append(address)
        if not addresses:
            raise ToolError(f"could not resolve {target.host}: no addresses")
        return addresses

    async def _send(
        self, client: httpx.AsyncClient, target: _Target, addresses: list[IPAddress]
    ) -> httpx.Response:
        # Connect to the checked address; the name goes in Host and in TLS (SNI and
        # certificate verification) so the server and its certificate are the named ones.
        extensions = {} if target.literal is not None else {"sni_hostname": target.host}
        failure: Exception | None = None
        for address in addresses:
            pinned = target.url.copy_with(host=str(address).split("%", 1)[0])
            request = client.build_request(
                "GET", pinned, headers={"Host": target.host_header}, extensions=extensions
            )
            try:
                return await client.send(request, stream=True)
            except httpx.ConnectError as exc:
                failure = exc
            except httpx.TimeoutException:
                raise
            except httpx.HTTPError as exc:
                raise ToolError(f"fetching {target.url} failed: {_describe(exc)}") from None
        assert failure is not None
        raise ToolError(f"could not connect to {target.host_header}: {_describe(failure)}")

    async def _read(self, response: httpx.Response, target: _Target, deadline: float) -> _Page:
        url = str(target.url)
        if not response.is_success:
            raise ToolError(f"HTTP {response.status_code} {response.reason_phrase} from {url}")
        content_type = response.headers.get("content-type", "").strip()
        media_type = content_type.split(";", 1)[0].strip().lower()
        if media_type and not is_text_type(media_type):
            raise Refused(f"{url} is {media_type}, not text; http_fetch reads text only")
        body, truncated = await self._read_capped(response, url)
        if not media_type and looks_binary(body):
            raise Refused(f"{url} has a binary body; http_fetch reads text only")
        html = is_html(media_type)
        text = decode_text(body, response.charset_encoding, html=html)
        title = None
        if html:
            # Converting megabytes of HTML is CPU work: keep it off the event loop, on
            # this tool's own threads; it stops by itself at the fetch's deadline.
            convert = functools.partial(html_to_markdown, text, deadline=deadline)
            loop = asyncio.get_running_loop()
            title, text = await loop.run_in_executor(self.converters, convert)
        return _Page(url, content_type, title, text, truncated)

    async def _read_capped(self, response: httpx.Response, url: str) -> tuple[bytes, bool]:
        """At most `max_bytes` of the decoded body, decoded a slice at a time."""
        decoder = BodyDecoder(
            parse_codings(response.headers.get_list("content-encoding", split_commas=True), url),
            url,
        )
        body = bytearray()
        try:
            async for chunk in response.aiter_raw():
                for piece in decoder.feed(chunk):
                    room = self.max_bytes - len(body)
                    if len(piece) > room:
                        body += piece[:room]
                        return bytes(body), True
                    body += piece
                    # Let the event loop (and this fetch's deadline) run between slices.
                    await asyncio.sleep(0)
        except httpx.TimeoutException:
            raise
        except httpx.HTTPError as exc:
            raise ToolError(f"reading {url} failed: {_describe(exc)}") from None
        decoder.finish()
        return bytes(body), False


@functools.cache
def _default_ssl_context() -> ssl.SSLContext:
    """The default trust store, built once: loading it costs tens of milliseconds."""
    return httpx.create_ssl_context()


def _join(base: httpx.URL, location: str) -> httpx.URL:
    try:
        return base.join(location)
    except (httpx.InvalidURL, ValueError, TypeError):
        raise ToolError(f"{base} redirected to an invalid URL: {location!r}") from None


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def http_fetch(
    *,
    allow_private: bool = False,
    allowed_hosts: Iterable[str] = (),
    resolver: Resolver | None = None,
    max_bytes: int = 2_000_000,
    max_chars: int = 50_000,
    timeout: float = 30.0,
    connect_timeout: float = 10.0,
    max_redirects: int = 10,
    user_agent: str = DEFAULT_USER_AGENT,
    ssl_context: ssl.SSLContext | None = None,
    name: str = "http_fetch",
) -> Tool:
    """A tool that GETs a public http(s) URL and returns it as text (HTML as Markdown).

    The model supplies `url`. Loosen the address rules deliberately: `allow_private`
    opens loopback, private and link-local addresses (never cloud metadata);
    `allowed_hosts` trusts named hosts (`"wiki.internal"`, `"*.corp.example"`) or
    addresses and networks (`"10.1.2.3"`, `"10.0.0.0/8"`). `resolver` replaces the
    system DNS (tests, service discovery); `ssl_context` replaces the certificate
    store. Limits: `max_bytes` read from the body, `max_chars` returned, `timeout`
    seconds for the whole fetch including redirects, `connect_timeout` per connection.
    """
    for label, value in (
        ("max_bytes", max_bytes),
        ("max_chars", max_chars),
        ("timeout", timeout),
        ("connect_timeout", connect_timeout),
    ):
        if value <= 0:
            raise ValueError(f"{label} must be positive, got {value}")
    if max_redirects < 0:
        raise ValueError(f"max_redirects must not be negative, got {max_redirects}")
    fetcher = _Fetcher(
        policy=AddressPolicy.build(allow_private=allow_private, allowed_hosts=allowed_hosts),
        resolver=resolver or system_resolver,
        ssl_context=ssl_context or _default_ssl_context(),
        max_bytes=max_bytes,
        max_chars=max_chars,
        timeout=timeout,
        connect_timeout=connect_timeout,
        max_redirects=max_redirects,
        user_agent=user_agent,
        converters=ThreadPoolExecutor(_CONVERTERS, thread_name_prefix=f"automata-{name}"),
    )

    async def fetch(url: Annotated[str, "Absolute http:// or https:// URL to GET."]) -> ToolResult:
        try:
            return ToolResult.of_artifact(await fetcher.fetch(url))
        except ToolError as exc:
            return ToolResult.error(str(exc))

    return tool(
        fetch,
        name=name,
        description=(
            "Fetch a public web page or text document with an HTTP GET and return its text; "
            "HTML is converted to Markdown. Binary content (images, PDFs, archives) is refused, "
            "and long pages are truncated."
        ),
    )
