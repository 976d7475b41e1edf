"""JSON schemas as the model sees them: pydantic's, without generated titles."""

from __future__ import annotations

from typing import Any, cast

from pydantic import BaseModel

__all__ = ["model_schema", "strip_titles", "type_name"]


def strip_titles(schema: Any) -> Any:
    """A copy of `schema` without pydantic's generated `title` keys (property names
    called "title" are kept)."""
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: strip_titles(prop) for name, prop in value.items()}
            else:
                out[key] = strip_titles(value)
        return out
    if isinstance(schema, list):
        return [strip_titles(v) for v in schema]
    return schema


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema for a tool: no titles, always a `properties` key."""
    schema = cast(dict[str, Any], strip_titles(model.model_json_schema()))
    schema.setdefault("properties", {})
    return schema


def type_name(annotation: object) -> str:
    """A type as a reader writes it: `Decimal`, `list[str]`, `Callable[[], int]`."""
    if isinstance(annotation, type) and not getattr(annotation, "__args__", None):
        return annotation.__qualname__
    return repr(annotation).replace("typing.", "").replace("collections.abc.", "")
