"""Serve the example: `uv run python -m sse_server`, then open http://127.0.0.1:8000."""

from __future__ import annotations

import argparse

import uvicorn

from sse_server.app import create_app
from sse_server.demo import demo_agent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--pace", type=float, default=0.6, help="seconds per model turn and search (demo)"
    )
    options = parser.parse_args()
    pace: float = options.pace
    uvicorn.run(create_app(lambda: demo_agent(pace)), host=options.host, port=options.port)


if __name__ == "__main__":
    main()
