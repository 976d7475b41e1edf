"""Serve both front ends on the demo agent.

uv run python -m ui_frontends                  # http://127.0.0.1:8010
uv run python -m ui_frontends --port 9000 --pace 0.02
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import uvicorn

from automata.web import GuardPolicy
from ui_frontends.app import create_app
from ui_frontends.demo import APPROVAL_REQUIRED, demo_agent


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until stopped (Ctrl+C or SIGTERM); the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m ui_frontends", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to serve on (default: loopback only)"
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a further name the server may be reached by (the Host header); repeatable",
    )
    parser.add_argument("--port", type=int, default=8010)
    parser.add_argument(
        "--pace", type=float, default=0.04, help="seconds between the demo model's words"
    )
    args = parser.parse_args(argv)
    app = create_app(
        demo_agent(pace=args.pace),
        approval_required=APPROVAL_REQUIRED,
        policy=GuardPolicy.for_bind(args.host, allow_hosts=args.allow_host),
    )
    print(f"ui_frontends: http://{args.host}:{args.port}/ (/ai-sdk/, /ag-ui/)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
