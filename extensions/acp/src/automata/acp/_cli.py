"""`automata-acp module:attribute`: serve an agent over ACP on stdio."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys
import traceback
from collections.abc import Sequence
from typing import Any

from automata.acp._server import AcpServer
from automata.acp._sessions import DEFAULT_MAX_SESSIONS
from automata.core import Agent

__all__ = ["load_target", "main"]


def load_target(spec: str) -> Any:
    """The object `module:attribute` names (the attribute may be dotted). Raises
    `ValueError` for a spec without a colon, `AttributeError` when the attribute is
    missing, and `ImportError` when the module is missing or its import raises
    anything at all (a `SyntaxError`, a `NameError`, ...): the message names the
    module, the error and the line that raised it, on one line."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"expected module:attribute, got {spec!r}")
    try:
        value: Any = importlib.import_module(module_name)
    except ImportError:
        raise
    except Exception as exc:
        raise ImportError(
            f"cannot import {module_name!r}: {_one_line(exc)}", name=module_name
        ) from exc
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


def _one_line(exc: BaseException) -> str:
    """`Type: message` for an error raised while importing, with the file and line
    that raised it (a `SyntaxError` says where in its own message)."""
    message = str(exc).splitlines()[0] if str(exc) else ""
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    if isinstance(exc, SyntaxError):
        return text
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return text
    last = frames[-1]
    return f"{text} ({last.filename}, line {last.lineno})"


def server_for(
    target: Any,
    *,
    ask: Sequence[str],
    ask_all: bool,
    name: str | None,
    max_sessions: int | None = None,
) -> AcpServer:
    """The server for a loaded target: an `AcpServer` as it is (the flags then must not
    be given), an `Agent` or any other callable (an agent factory, called once per
    session) with the flags' permission rule, name and session bound."""
    if isinstance(target, AcpServer):
        if ask or ask_all or name or max_sessions is not None:
            raise ValueError("the target is an AcpServer: configure it there, not with flags")
        return target
    if not isinstance(target, Agent) and not callable(target):
        raise TypeError(f"cannot serve a {type(target).__name__}: expected an Agent or a factory")
    rule: bool | frozenset[str] = True if ask_all else frozenset(ask)
    return AcpServer(
        target,
        ask_permission=rule,
        name=name or "automata",
        max_sessions=DEFAULT_MAX_SESSIONS if max_sessions is None else max_sessions,
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="automata-acp",
        description="Serve an automata agent to an editor over the Agent Client Protocol (stdio).",
    )
    parser.add_argument(
        "target",
        help="module:attribute naming an Agent, an agent factory or an AcpServer",
    )
    parser.add_argument(
        "--ask",
        action="append",
        default=[],
        metavar="TOOL",
        help="ask the client's permission before running this tool (repeatable)",
    )
    parser.add_argument(
        "--ask-all", action="store_true", help="ask the client's permission for every tool"
    )
    parser.add_argument("--name", default=None, help="the agent name sent on initialize")
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=None,
        metavar="N",
        help=f"live sessions kept per connection (default {DEFAULT_MAX_SESSIONS}); "
        "past it the least recently used idle one is dropped",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Load the target and serve it on stdin/stdout until the client closes them. Errors
    loading the target are reported on stderr (stdout is the protocol's) with exit
    status 2."""
    args = _parser().parse_args(argv)
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        server = server_for(
            load_target(args.target),
            ask=args.ask,
            ask_all=args.ask_all,
            name=args.name,
            max_sessions=args.max_sessions,
        )
    except (ValueError, TypeError, ImportError, AttributeError) as exc:
        print(f"automata-acp: {exc}", file=sys.stderr)
        return 2
    asyncio.run(server.serve_stdio())
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
