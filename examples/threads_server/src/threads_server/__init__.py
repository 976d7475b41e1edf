"""Example: durable threads over HTTP (Starlette), with request keys and server-sent
views. See `app.py` for the routes."""

from threads_server.app import BadRequest, create_app, json_errors, read_json

__all__ = ["BadRequest", "create_app", "json_errors", "read_json"]
