"""How long a large MCP answer takes to read over stdio: the SDK's `stdio_client`
against the transport `MCPServer.stdio` uses (`automata.mcp._stdio`).

Run: uv run python bench/mcp_stdio_answers.py [--sizes 3,10,30]

A server written with the SDK's low-level `Server` (a child process) answers a tool
call with N MB of text; each transport carries a `ClientSession` to it, and the time
of the call is printed for each size (best of `--repeat`), with the SDK reader's time
over this one's. The SDK reader joins its buffer with each 64 KiB chunk and splits the
whole again, so its time grows with the square of an answer's size.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client._transport import TransportStreams
from mcp.client.stdio import StdioServerParameters, stdio_client

from automata.mcp._stdio import stdio_transport

SERVER = """
import asyncio, sys
from mcp import types
from mcp.server import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    schema = {"type": "object", "properties": {"mb": {"type": "number"}}}
    return types.ListToolsResult(tools=[types.Tool(name="big", input_schema=schema)])

async def call_tool(ctx, params):
    text = "x" * int(float(params.arguments["mb"]) * 1_000_000)
    return types.CallToolResult(content=[types.TextContent(text=text)])

async def main():
    server = Server("big", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

asyncio.run(main())
"""

Open = Callable[[StdioServerParameters], AbstractAsyncContextManager[TransportStreams]]


async def _call_times(open_transport: Open, script: Path, sizes: list[float], repeat: int) -> Any:
    params = StdioServerParameters(command=sys.executable, args=[str(script)])
    times: dict[float, float] = {}
    async with open_transport(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool("big", {"mb": 0.001})
        for size in sizes:
            best = float("inf")
            for _ in range(repeat):
                started = time.perf_counter()
                await session.call_tool("big", {"mb": size})
                best = min(best, time.perf_counter() - started)
            times[size] = best
    return times


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3,10,30", help="answer sizes in MB")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    sizes = [float(size) for size in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "big_server.py"
        script.write_text(SERVER, encoding="utf-8")
        sdk = await _call_times(
            lambda params: stdio_client(params, errlog=sys.stderr), script, sizes, args.repeat
        )
        ours = await _call_times(
            lambda params: stdio_transport(params, sys.stderr), script, sizes, args.repeat
        )
    print("one tools/call answering N MB of text over stdio (best of", args.repeat, "runs)")
    for size in sizes:
        print(
            f"  {size:5g} MB: SDK stdio_client {sdk[size]:7.2f} s, "
            f"MCPServer.stdio {ours[size]:6.2f} s ({sdk[size] / ours[size]:5.1f}x)"
        )


if __name__ == "__main__":
    asyncio.run(main())
