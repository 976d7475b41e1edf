"""Serve the example: `uv run python -m sse_server`, then open http://127.0.0.1:8000."""

from __future__ import annotations

import argparse

import uvicorn

from automata.web import GuardPolicy
from sse_server.app import MAX_RUNS, create_app
from sse_server.demo import demo_agent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
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
    parser.add_argument(
        "--max-runs", type=int, default=MAX_RUNS, help="runs streaming at once (default 8)"
    )
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--pace", type=float, default=0.6, help="seconds per model turn and search (demo)"
    )
    options = parser.parse_args()
    pace: float = options.pace
    policy = GuardPolicy.for_bind(options.host, allow_hosts=options.allow_host)
    app = create_app(lambda: demo_agent(pace), policy=policy, max_runs=options.max_runs)
    uvicorn.run(app, host=options.host, port=options.port)


if __name__ == "__main__":
    main()
