"""Fixtures: a real HTTP(S) server on loopback, and a way to call a tool as the loop does."""

from __future__ import annotations

import contextlib
import shutil
import ssl
import subprocess
import threading
from collections.abc import Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

import pytest

from automata.core import Tool, ToolContext, ToolResult, ToolUseBlock

Handler = Callable[[BaseHTTPRequestHandler], None]


@dataclass(frozen=True)
class Seen:
    """One request as the server received it."""

    path: str
    headers: Mapping[str, str]


@dataclass
class LocalServer:
    """A threaded HTTP server on 127.0.0.1 whose routes a test sets up."""

    tls: ssl.SSLContext | None = None
    routes: dict[str, Handler] = field(default_factory=dict)
    requests: list[Seen] = field(default_factory=list)
    server_names: list[str | None] = field(default_factory=list)

    def start(self) -> None:
        outer = self

        class RequestHandler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests.append(
                    Seen(self.path, {k.lower(): v for k, v in self.headers.items()})
                )
                route = outer.routes.get(self.path.split("?", 1)[0])
                try:
                    if route is None:
                        self.send_response(404)
                        self.send_header("Content-Type", "text/plain")
                        self.end_headers()
                        self.wfile.write(b"no such route")
                    else:
                        route(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), RequestHandler)
        self.httpd.daemon_threads = True
        if self.tls is not None:
            self.tls.sni_callback = lambda _sock, name, _ctx: self.server_names.append(name)
            self.httpd.socket = self.tls.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://{host}:{self.port}{path}"

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def respond(
        self,
        path: str,
        body: bytes | str = b"",
        *,
        status: int = 200,
        content_type: str | None = "text/plain; charset=utf-8",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        data = body.encode() if isinstance(body, str) else body

        def handle(request: BaseHTTPRequestHandler) -> None:
            request.send_response(status)
            if content_type is not None:
                request.send_header("Content-Type", content_type)
            for key, value in (headers or {}).items():
                request.send_header(key, value)
            request.send_header("Content-Length", str(len(data)))
            request.end_headers()
            request.wfile.write(data)

        self.routes[path] = handle

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        self.respond(path, status=status, content_type=None, headers={"Location": location})


@pytest.fixture
def server() -> Iterator[LocalServer]:
    local = LocalServer()
    local.start()
    yield local
    local.stop()


@dataclass(frozen=True)
class Certificates:
    ca: Path
    cert: Path
    key: Path


@pytest.fixture(scope="session")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    """A throwaway CA and a server certificate for `secure.test`, made with openssl."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is needed to make test certificates")
    folder = tmp_path_factory.mktemp("tls")

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], cwd=folder, check=True, capture_output=True)

    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=automata test CA",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign")  # fmt: skip
    run("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=secure.test")
    (folder / "ext.cnf").write_text(
        "subjectAltName=DNS:secure.test\n"
        "basicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature\n"
        "extendedKeyUsage=serverAuth\n"
        "subjectKeyIdentifier=hash\n"
        "authorityKeyIdentifier=keyid,issuer\n"
    )
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf")  # fmt: skip
    return Certificates(ca=folder / "ca.pem", cert=folder / "server.pem", key=folder / "server.key")


@pytest.fixture
def tls_server(certificates: Certificates) -> Iterator[LocalServer]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates.cert, certificates.key)
    local = LocalServer(tls=context)
    local.start()
    yield local
    local.stop()


class Invoke(Protocol):
    """`await invoke(tool, **arguments)`: the tool's result, as the loop would get it."""

    def __call__(self, tool: Tool, /, **arguments: Any) -> Coroutine[Any, Any, ToolResult]: ...


@pytest.fixture
def invoke() -> Invoke:
    """Call a tool the way the agent loop does: raw JSON arguments plus a context."""

    async def call(tool: Tool, /, **arguments: Any) -> ToolResult:
        context = ToolContext(
            call=ToolUseBlock(id="call-1", name=tool.name, input=arguments),
            agent="test",
            invocation_id="run-1",
        )
        result = await tool.execute(arguments, context)
        return ToolResult.text(result) if isinstance(result, str) else result

    return call


def shown_lines(result: ToolResult) -> str:
    """The lines a `read_file` result shows, without its header, numbers and notes."""
    rows = result.as_text().split("\n")[1:]
    return "\n".join(row.split("\t", 1)[1] for row in rows if "\t" in row)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    folder.mkdir()
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the root holding a secret no tool may reach."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("TOP SECRET")
    return folder


@pytest.fixture
def swapper(root: Path, outside: Path) -> Iterator[None]:
    """A thread that keeps turning `root/d` into a real folder, a symlink out of the
    root, a dangling symlink and a symlink loop, until the test ends."""
    stop = threading.Event()
    d = root / "d"

    def clear() -> None:
        try:
            if d.is_symlink():
                d.unlink()
            elif d.is_dir():
                for child in d.iterdir():
                    child.unlink()
                d.rmdir()
        except OSError:
            pass

    def folder() -> None:
        d.mkdir()
        (d / "secret.txt").write_text("inside")

    def swap() -> None:
        while not stop.is_set():
            for make in (
                folder,
                lambda: d.symlink_to(outside),
                lambda: d.symlink_to(root / "missing"),
                lambda: d.symlink_to("d"),
            ):
                clear()
                with contextlib.suppress(OSError):
                    make()

    thread = threading.Thread(target=swap, daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join()
