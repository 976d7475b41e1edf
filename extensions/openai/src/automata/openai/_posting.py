"""How both OpenAI providers post a request on the default path: the body as JSON data
through the client's own `post` (`SDKProvider.post_reply` / `post_stream`), so every
client class (Azure's deployment path and auth included) prepares it as its `create`
would."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["POST_OPTIONS"]

POST_OPTIONS: Final[dict[str, Any]] = {"security": {"bearer_auth": True}}
"""The SDK's request options of every post: the API key as a bearer token, as the
SDK's own create methods ask for it."""
