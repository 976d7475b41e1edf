"""Errors the first-party tools report to the model.

A tool turns these into an error result (`ToolResult.error`) whose text is the
message, so each message is written for the model to read: what was refused or what
failed, and enough context to choose another course.
"""

from __future__ import annotations

__all__ = ["Refused", "SandboxUnavailable", "ToolError"]


class ToolError(Exception):
    """A tool call failed in a way the model should hear about (the run goes on)."""


class Refused(ToolError):
    """A safety rule refused the call: an address, path or program outside what the
    tool was configured to reach. Messages start with ``refused:``."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"refused: {reason}")
        self.reason = reason


class SandboxUnavailable(ToolError):
    """A command backend cannot run programs as it promises here (its program is
    missing, namespaces are disabled, or the root is not usable by it). Raised when a
    tool is built, so nothing runs less contained than configured."""
