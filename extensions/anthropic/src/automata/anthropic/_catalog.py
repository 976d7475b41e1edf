"""The Models API (`GET /v1/models`) as the core's `ModelCatalog` values, through the
provider's error mapping and retries.

Each model's limits (`max_input_tokens`, `max_tokens`) and the capabilities the API
reports (image and PDF input, thinking, structured outputs) fill `ModelInfo`; what the
API does not report (tool use, embeddings) is None, and so is anything a server leaves
out. A `created_at` at the epoch means the API does not know the date: None. The entry
as received is in `raw`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from anthropic import AsyncAnthropic
from automata.core.providers import ModelInfo, SDKProvider

__all__ = ["get_model", "list_models", "model_info"]

_Provider = SDKProvider[AsyncAnthropic]


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _supported(capabilities: object, name: str) -> bool | None:
    if not isinstance(capabilities, dict):
        return None
    entry = capabilities.get(name)
    flag = entry.get("supported") if isinstance(entry, dict) else None
    return flag if isinstance(flag, bool) else None


def _created(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return None if moment.timestamp() <= 0 else moment.astimezone(UTC)


def model_info(provider: str, model: Any) -> ModelInfo:
    """A `ModelInfo` from one model of the Models API (an SDK `ModelInfo`), read from
    the JSON as received so that a field the API leaves out is None."""
    raw: dict[str, Any] = model.to_dict(mode="json")
    capabilities = raw.get("capabilities")
    display_name = raw.get("display_name")
    return ModelInfo(
        id=str(raw.get("id", "")),
        provider=provider,
        display_name=display_name if isinstance(display_name, str) else None,
        created=_created(raw.get("created_at")),
        context_window=_int(raw.get("max_input_tokens")),
        max_output_tokens=_int(raw.get("max_tokens")),
        vision=_supported(capabilities, "image_input"),
        documents=_supported(capabilities, "pdf_input"),
        thinking=_supported(capabilities, "thinking"),
        structured_output=_supported(capabilities, "structured_outputs"),
        raw=raw,
    )


async def list_models(provider: _Provider) -> tuple[ModelInfo, ...]:
    """Every model of `GET /v1/models`, most recent first as the API lists them, all
    pages read (`after_id` the last id of the page before)."""
    models = await provider.vendor_pages(lambda: provider.client.models.list(limit=1000))
    return tuple(model_info(provider.provider_name, model) for model in models)


async def get_model(provider: _Provider, model_id: str) -> ModelInfo:
    """The model `model_id` (an alias resolves to its model) from `GET /v1/models/<id>`;
    an unknown id is a 404 `ProviderError`."""
    model = await provider.vendor_call(lambda: provider.client.models.retrieve(model_id))
    return model_info(provider.provider_name, model)
