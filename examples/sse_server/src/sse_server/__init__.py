"""Example: stream an automata run to a browser over Server-Sent Events.

`create_app()` builds the Starlette app; `python -m sse_server` serves it.
"""

from sse_server.app import AgentFactory, create_app, run_frames, sse_frame, view_json
from sse_server.demo import demo_agent

__all__ = ["AgentFactory", "create_app", "demo_agent", "run_frames", "sse_frame", "view_json"]
