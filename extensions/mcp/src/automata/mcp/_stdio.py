"""The stdio transport: an MCP server as a subprocess, its stdout read in linear time.

The SDK's `stdio_client` joins its buffer with every 64 KiB chunk it reads and splits
the whole again, so one large line costs time quadratic in its size: a 30 MB answer,
even one to a call the client has already given up on, kept the next call waiting
20 s behind it. This transport reads the same newline-delimited JSON-RPC with a
splitter that looks at each byte once, and otherwise follows the SDK's transport:
the SDK's safe default environment, a session of its own for the server (so its
whole process group is stopped), and the spec's shutdown (close stdin, wait, then
terminate the group) with every wait bounded. On Windows the SDK's own transport is
used, for its job objects."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TextIO

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client._transport import TransportStreams
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter

__all__ = ["LineSplitter", "stdio_transport"]

_EXIT_GRACE = 2.0
"""How long the server has to exit on its own once its stdin is closed."""
_TERMINATE_GRACE = 2.0
"""How long the process group has after SIGTERM before SIGKILL."""
_FLUSH_GRACE = 0.5
"""How long messages already accepted have to reach the server's stdin at shutdown."""
_POLL = 0.01


class LineSplitter:
    """Splits a byte stream into lines (without their `\\n`), looking at each byte once:
    `feed(chunk)` returns the lines the chunk completes and keeps the rest."""

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def feed(self, chunk: bytes) -> list[bytes]:
        lines: list[bytes] = []
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            self._parts.append(chunk[start:end])
            lines.append(b"".join(self._parts))
            self._parts = []
            start = end + 1
        if start < len(chunk):
            self._parts.append(chunk[start:])
        return lines


def _parse(line: bytes, params: StdioServerParameters) -> SessionMessage | Exception:
    """One line as a message, or the error the session is shown for it (as the SDK does)."""
    try:
        text = line.decode(params.encoding, errors=params.encoding_error_handler)
        return SessionMessage(jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as error:  # pydantic's ValidationError and UnicodeDecodeError
        return error


def stdio_transport(
    params: StdioServerParameters, errlog: TextIO
) -> AbstractAsyncContextManager[TransportStreams]:
    """The server of `params` as a subprocess (its stderr to `errlog`), as the read and
    write streams a `ClientSession` takes. Leaving the context stops the server."""
    if sys.platform == "win32":  # pragma: no cover - the SDK's job objects
        return stdio_client(params, errlog=errlog)
    return _posix_transport(params, errlog)


@asynccontextmanager
async def _posix_transport(
    params: StdioServerParameters, errlog: TextIO
) -> AsyncIterator[TransportStreams]:
    process = await anyio.open_process(
        [params.command, *params.args],
        env=get_default_environment() | (params.env or {}),
        stderr=errlog,
        cwd=params.cwd,
        start_new_session=True,
    )
    incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()
    assert process.stdin is not None
    assert process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    async def read_stdout() -> None:
        lines = LineSplitter()
        delivering = True
        async with incoming_send:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, OSError):
                async for chunk in stdout:
                    for line in lines.feed(chunk) if delivering else ():
                        if not line.strip():
                            continue
                        try:
                            await incoming_send.send(_parse(line, params))
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            delivering = False  # the session is gone: drain, so the server
                            break  # is never stuck writing and can exit

    async def write_stdin() -> None:
        try:
            async with outgoing_receive:
                async for message in outgoing_receive:
                    json = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    data = (json + "\n").encode(params.encoding, params.encoding_error_handler)
                    await stdin.send(data)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server may still run, but nothing reaches it: end the session.
            await incoming_send.aclose()
        finally:
            writer_done.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stdout)
        tasks.start_soon(write_stdin)
        try:
            yield incoming, outgoing
        finally:
            with anyio.CancelScope(shield=True):
                await _shut_down(process, incoming, outgoing, writer_done)
            tasks.cancel_scope.cancel()


async def _shut_down(
    process: anyio.abc.Process,
    incoming: MemoryObjectReceiveStream[SessionMessage | Exception],
    outgoing: MemoryObjectSendStream[SessionMessage],
    writer_done: anyio.Event,
) -> None:
    """Stop traffic, let accepted messages out, close stdin, give the server its grace
    period, then terminate its process group; every wait is bounded."""
    incoming.close()
    outgoing.close()
    with anyio.move_on_after(_FLUSH_GRACE):
        await writer_done.wait()
    assert process.stdin is not None
    assert process.stdout is not None
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    with anyio.move_on_after(_EXIT_GRACE):
        # Polled, not `process.wait()`: that also waits for the pipes to close, which a
        # child that inherited them can hold open after the server itself exited.
        while process.returncode is None:  # noqa: ASYNC110
            await anyio.sleep(_POLL)
    if process.returncode is None:
        await terminate_posix_process_tree(process, _TERMINATE_GRACE)
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdout.aclose()
