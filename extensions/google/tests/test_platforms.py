"""The same provider on Vertex AI (the URL shape and authentication the SDK gives it),
and `Agent("google:<model>")` from the environment."""

from __future__ import annotations

import pytest
from automata_wire_testing import WireServer
from automata_wire_testing import gemini as wire
from google.oauth2.credentials import Credentials

from automata.core import Agent
from automata.google import GoogleProvider

_REPLY = wire.response([{"text": "ciao"}])


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "stream"])
async def test_vertex_ai_with_a_project_posts_to_its_publisher_model_with_a_bearer_token(
    server: WireServer, streamed: bool
) -> None:
    server.always(wire.answer(_REPLY))
    provider = GoogleProvider(
        "gemini-2.5-flash",
        vertexai=True,
        project="my-project",
        location="europe-west4",
        credentials=Credentials(token="ya29.test-token"),  # type: ignore[no-untyped-call]
        base_url=server.base_url,
    )
    async with provider:
        agent = Agent(provider)
        if streamed:
            run = agent.stream("hi")
            _ = [event async for event in run]
            output = run.result.output
        else:
            output = (await agent.run("hi")).output
    assert output == "ciao"
    (request,) = server.received
    method = "streamGenerateContent" if streamed else "generateContent"
    assert request.path == (
        "/v1beta1/projects/my-project/locations/europe-west4/"
        f"publishers/google/models/gemini-2.5-flash:{method}"
    )
    assert request.headers["authorization"] == "Bearer ya29.test-token"
    assert "x-goog-api-key" not in request.headers
    assert wire.check_request(request.body) is None


async def test_vertex_ai_express_mode_posts_with_the_api_key_and_no_project(
    server: WireServer,
) -> None:
    server.always(wire.answer(_REPLY))
    provider = GoogleProvider(
        "gemini-2.5-flash", vertexai=True, api_key="express-key", base_url=server.base_url
    )
    async with provider:
        assert (await Agent(provider).run("hi")).output == "ciao"
    (request,) = server.received
    assert request.path == "/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent"
    assert request.headers["x-goog-api-key"] == "express-key"


def test_vertex_settings_and_a_client_are_exclusive() -> None:
    from google import genai

    client = genai.Client(api_key="k")
    with pytest.raises(ValueError, match="either client or vertexai"):
        GoogleProvider("m", client=client, vertexai=True)


async def test_a_model_string_runs_on_a_google_provider_from_the_environment(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "key-from-env")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.base_url)
    server.always(wire.answer(_REPLY))
    agent = Agent("google:gemini-2.5-flash")
    assert isinstance(agent.provider, GoogleProvider)
    assert (await agent.run("hi")).output == "ciao"
    (request,) = server.received
    assert request.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert request.headers["x-goog-api-key"] == "key-from-env"
    await agent.provider.aclose()


@pytest.mark.parametrize(
    ("model", "vertexai", "path"),
    [
        ("gemini-2.5-flash", False, "models/gemini-2.5-flash"),
        ("tunedModels/my-tune", False, "tunedModels/my-tune"),
        ("models/gemini-2.5-pro", False, "models/gemini-2.5-pro"),
        ("gemini-2.5-flash", True, "publishers/google/models/gemini-2.5-flash"),
        ("meta/llama-4", True, "publishers/meta/models/llama-4"),
        ("projects/p/locations/l/endpoints/e", True, "projects/p/locations/l/endpoints/e"),
    ],
)
def test_a_model_is_named_by_the_resource_path_the_sdk_gives_it(
    model: str, vertexai: bool, path: str
) -> None:
    from automata.google._provider import model_path

    assert model_path(model, vertexai=vertexai) == path


def test_google_api_key_counts_as_credentials_like_gemini_api_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    provider = GoogleProvider("gemini-2.5-flash", api_key="k")
    assert not provider.has_credentials(None)
    monkeypatch.setenv("GOOGLE_API_KEY", "from-env")
    assert provider.has_credentials(None)


@pytest.mark.parametrize(
    ("version", "env", "prefix"),
    [(None, None, "/v1beta/"), ("v1", None, "/v1/"), (None, "v1alpha", "/v1alpha/")],
    ids=["default", "given", "from-env"],
)
async def test_the_gemini_api_version_is_v1beta_unless_one_is_named(
    server: WireServer,
    monkeypatch: pytest.MonkeyPatch,
    version: str | None,
    env: str | None,
    prefix: str,
) -> None:
    if env is None:
        monkeypatch.delenv("GOOGLE_GENAI_API_VERSION", raising=False)
    else:
        monkeypatch.setenv("GOOGLE_GENAI_API_VERSION", env)
    server.always(wire.answer(_REPLY))
    provider = GoogleProvider(
        "gemini-2.5-flash", api_key="k", base_url=server.base_url, api_version=version
    )
    async with provider:
        assert (await Agent(provider).run("hi")).output == "ciao"
    assert server.received[0].path == f"{prefix}models/gemini-2.5-flash:generateContent"
