"""Example: a durable chat app in the browser, on automata-ai-threads.

`create_chat_app` serves the page and its routes; `python -m chat` runs it (demo model,
SQLite) under uvicorn. See the README.
"""

from chat.app import create_chat_app
from chat.demo import DemoModel, demo_agent, demo_factory
from chat.store import open_store

__all__ = ["DemoModel", "create_chat_app", "demo_agent", "demo_factory", "open_store"]
