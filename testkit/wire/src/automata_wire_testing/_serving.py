"""An ASGI app served for real: uvicorn on a free loopback port, an httpx client on it."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import httpx
import uvicorn

__all__ = ["serving"]


@asynccontextmanager
async def serving(
    app: Any, *, lifespan: Literal["on", "off"] = "off"
) -> AsyncIterator[httpx.AsyncClient]:
    """Serve `app` with uvicorn on a free loopback port until the context ends; yield an
    httpx client whose base URL is the server. With `lifespan="on"` the app's startup
    runs before the client is given and its shutdown when the context ends."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", lifespan=lifespan, timeout_graceful_shutdown=5
    )
    server = uvicorn.Server(config)
    serve = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(10):
            while not server.started:
                if serve.done():
                    serve.result()  # startup failed: raise why
                    raise RuntimeError("the server stopped before it started")
                await asyncio.sleep(0.01)
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}", timeout=10, trust_env=False
        ) as client:
            yield client
    finally:
        server.should_exit = True
        await asyncio.wait_for(serve, 10)
        sock.close()
