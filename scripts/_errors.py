"""The two ways a release stops: refused before any change, or failed after changes began."""

from __future__ import annotations

__all__ = ["Refusal", "StepFailed"]


class Refusal(Exception):
    """A precondition does not hold; nothing has been changed."""


class StepFailed(Exception):
    """A release step failed after changes began."""
