"""Typed output: the hidden tool, payload validation and prose parsing.

A typed run shows the model a hidden tool named `automata_structured_output` whose
schema is the output type's. A payload is accepted only when it validates completely;
a value is never returned half filled.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from pydantic import BaseModel, TypeAdapter, ValidationError

from automata.core._errors import ArgumentTypeError
from automata.core._provider import OutputSchema, ToolSpec
from automata.core._schema import strip_titles, type_name
from automata.core._tools import format_validation_error

__all__ = ["STRUCTURED_OUTPUT_TOOL", "StructuredAttempt", "StructuredOutput"]

STRUCTURED_OUTPUT_TOOL = "automata_structured_output"

T = TypeVar("T")

_FENCED = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


@dataclass(frozen=True, slots=True)
class StructuredAttempt:
    """One attempt at structured output: the value when it validated, else why not.
    `found` is False when the model gave no payload at all (plain prose)."""

    value: Any = None
    violations: tuple[str, ...] = ()
    found: bool = True

    @property
    def ok(self) -> bool:
        return self.found and not self.violations

    def feedback(self) -> str:
        """The tool result the model sees for this attempt."""
        if self.ok:
            return "structured output accepted"
        return "invalid structured output: " + "; ".join(self.violations)


class StructuredOutput(Generic[T]):
    """How one output type is asked for and checked.

    Object types (pydantic models, dataclasses, TypedDicts) are the tool's arguments
    directly; any other type is wrapped as the single property `result`. A type that
    pydantic cannot validate or describe in JSON raises `ArgumentTypeError` naming it.
    """

    tool_name = STRUCTURED_OUTPUT_TOOL

    def __init__(self, output_type: type[T]) -> None:
        self.output_type = output_type
        try:
            self._adapter: TypeAdapter[T] = TypeAdapter(output_type)
            raw_schema = self._adapter.json_schema()
        except Exception:
            raise ArgumentTypeError(
                f"output_type {type_name(output_type)} is not supported: use a pydantic "
                "model, a dataclass, a TypedDict, or a type pydantic can validate and "
                "describe in JSON (str, int, list[str], a Literal, an Enum, ...)"
            ) from None
        schema = _closed(cast(dict[str, Any], strip_titles(raw_schema)))
        self.wrapped = schema.get("type") != "object"
        if self.wrapped:
            schema = {
                "type": "object",
                "properties": {"result": schema},
                "required": ["result"],
            }
        self.schema: dict[str, Any] = schema
        description = (
            "Give your final answer by calling this tool with arguments that match its "
            "schema exactly."
        )
        doc = getattr(output_type, "__doc__", None)
        if isinstance(output_type, type) and issubclass(output_type, BaseModel) and doc:
            description += " The answer is: " + doc.strip().splitlines()[0]
        self.spec = ToolSpec(
            name=STRUCTURED_OUTPUT_TOOL, description=description, input_schema=schema
        )
        self.output_schema = OutputSchema(
            name=getattr(output_type, "__name__", "output"),
            schema=schema,
            strict_compatible=_strict_compatible(schema),
        )

    def validate_payload(self, payload: Mapping[str, Any]) -> StructuredAttempt:
        """Validate the hidden tool's arguments (or a parsed prose payload)."""
        data: Any = payload
        if self.wrapped:
            if not isinstance(payload, Mapping) or "result" not in payload:
                return StructuredAttempt(violations=("result: Field required",))
            data = payload["result"]
        try:
            return StructuredAttempt(value=self._adapter.validate_python(data))
        except ValidationError as exc:
            found = format_validation_error(exc).split("; ")
            return StructuredAttempt(violations=tuple(dict.fromkeys(found)))

    def parse_text(self, text: str) -> StructuredAttempt:
        """Find a JSON payload in a prose answer (fenced block or bare object) and
        validate it. The first candidate that parses as JSON is the one judged."""
        for candidate in _json_candidates(text):
            if self.wrapped and not (isinstance(candidate, dict) and "result" in candidate):
                candidate = {"result": candidate}
            if isinstance(candidate, dict):
                return self.validate_payload(candidate)
        return StructuredAttempt(found=False, violations=("no structured output was given",))


def _json_candidates(text: str) -> list[Any]:
    found: list[Any] = []
    for match in _FENCED.finditer(text):
        try:
            found.append(json.loads(match.group(1)))
        except ValueError:
            continue
    if found:
        return found
    stripped = text.strip()
    try:
        return [json.loads(stripped)]
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    for index, char in enumerate(text):
        if char == "{":
            try:
                value, _ = decoder.raw_decode(text, index)
            except ValueError:
                continue
            return [value]
    return []


def _closed(schema: Any) -> Any:
    """Every object schema that does not say otherwise gets `additionalProperties:
    false`: validation ignores extra keys either way, and a closed schema is what
    strict provider modes (OpenAI's `strict: true`) accept."""
    if isinstance(schema, dict):
        out = {key: _closed(value) for key, value in schema.items()}
        if (out.get("type") == "object" or "properties" in out) and (
            "additionalProperties" not in out
        ):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_closed(value) for value in schema]
    return schema


def _strict_compatible(schema: Any) -> bool:
    """Strict schema modes need every object closed with every property required."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            props = schema.get("properties", {})
            if not props or set(schema.get("required", [])) != set(props):
                return False
            if schema.get("additionalProperties", True) is not False:
                return False
        return all(_strict_compatible(v) for v in schema.values())
    if isinstance(schema, list):
        return all(_strict_compatible(v) for v in schema)
    return True
