"""Run the chat app.

uv run python -m chat                          # demo model, chat.db, http://127.0.0.1:8000
uv run python -m chat --model anthropic:claude-sonnet-4-5
uv run python -m chat --database postgresql://user@localhost/chat
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from types import FrameType

import uvicorn

from automata.threads import Host
from automata.web import GuardPolicy
from chat.agents import choose_factory
from chat.app import create_chat_app
from chat.store import open_store

__all__ = ["main", "parse_args"]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line's options."""
    parser = argparse.ArgumentParser(prog="python -m chat", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--database",
        default="chat.db",
        help="a SQLite file (default chat.db) or a postgresql:// URL",
    )
    parser.add_argument(
        "--schema", default=None, help="PostgreSQL only: the schema to keep the chats in"
    )
    parser.add_argument(
        "--model",
        default="demo",
        help="demo (no key, no network; the default) or provider:model, "
        "e.g. anthropic:claude-sonnet-4-5 or openai:gpt-4o",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to serve on (default: loopback only)"
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a further name the server may be reached by (the Host header), besides "
        "127.0.0.1, localhost, ::1 and --host; repeatable",
    )
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--pace", type=float, default=0.06, help="demo model: seconds between streamed words"
    )
    parser.add_argument(
        "--lease-ttl",
        type=float,
        default=10.0,
        help="seconds a crashed server's turns stay claimed before a restarted one resumes "
        "them (default 10)",
    )
    return parser.parse_args(argv)


class _Server(uvicorn.Server):
    """uvicorn, ending the app's event streams as soon as it is told to stop, so open
    pages do not hold the graceful stop up (the host then releases its turns)."""

    def __init__(self, config: uvicorn.Config, stopping: asyncio.Event) -> None:
        super().__init__(config)
        self._stopping = stopping

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self._stopping.set()
        super().handle_exit(sig, frame)


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the app until stopped (Ctrl+C or SIGTERM); returns the exit status."""
    args = parse_args(argv)
    factory = choose_factory(args.model, pace=args.pace)
    app = create_chat_app(
        lambda: Host.open(
            open_store(args.database, schema=args.schema),
            lease_ttl=args.lease_ttl,
            poll_interval=0.25,
        ),
        factory,
        policy=GuardPolicy.for_bind(args.host, allow_hosts=args.allow_host),
    )
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    server = _Server(config, app.state.stopping)
    print(f"chat: http://{args.host}:{args.port} ({args.model}, {args.database})", flush=True)
    asyncio.run(server.serve())
    return 0
