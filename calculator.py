import asyncio

from automata.core import tool
from automata.mcp import serve_stdio


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


asyncio.run(serve_stdio([add], name="calculator"))
