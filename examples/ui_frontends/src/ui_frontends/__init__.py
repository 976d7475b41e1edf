"""Example: two chat pages built on the protocols' own npm clients, the AI SDK's
`useChat` (ai-sdk/) and AG-UI's `HttpAgent` (ag-ui/), served by `automata.ui` from one
demo agent. `create_app` serves them; `python -m ui_frontends` runs it under uvicorn;
`python -m ui_frontends.build` builds the pages. See the README.
"""

from ui_frontends.app import create_app
from ui_frontends.demo import APPROVAL_REQUIRED, demo_agent

__all__ = ["APPROVAL_REQUIRED", "create_app", "demo_agent"]
