"""OpenAI-compatible servers that bend the format, replayed from real recordings through
the official SDK against the local server (see docs/providers.md, "OpenAI-compatible
servers checked"): what each sends is read without loss, and the follow-up request
carries back what the server needs."""

from __future__ import annotations

TEXT_PLAIN = "compatible_text_plain_200.yaml"

COMPAT = frozenset({TEXT_PLAIN})
"""Every compatible-server recording these tests replay."""
