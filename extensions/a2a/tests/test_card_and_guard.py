"""The agent card at the well-known path, read by the SDK's card resolver, and the
Host, Origin and body-size checks in front of the SDK's routes."""

from __future__ import annotations

import httpx
import pytest
from a2a.client import A2ACardResolver
from a2a.types import AgentSkill

from automata.a2a import agent_card
from automata.core import Agent, InvalidArgumentError, tool
from automata.core.testing import ScriptedProvider
from automata.web import GuardPolicy

from .processes import CARD_PATH, ServerProcess

pytestmark = pytest.mark.timeout(120)  # a server process starts slowly on a loaded machine


@pytest.fixture
def approval(agents: ServerProcess) -> str:
    return agents.url + "approval/"


async def test_the_card_is_served_at_the_well_known_path_with_skills_from_the_tools(
    approval: str,
) -> None:
    async with httpx.AsyncClient() as http:
        card = await A2ACardResolver(http, approval).get_agent_card()
    assert card.name == "biller"
    assert [(s.id, s.description) for s in card.skills] == [("charge", "Charge the card.")]
    assert card.capabilities.streaming
    assert [(i.url, i.protocol_binding) for i in card.supported_interfaces] == [
        (approval, "JSONRPC")
    ]


@tool
async def lookup(word: str) -> str:
    """Look a word up."""
    return word


def test_a_card_takes_the_given_name_description_and_skills_over_the_agents() -> None:
    agent = Agent(ScriptedProvider([]), name="a", system_prompt="Helps.", tools=[lookup])
    assert agent_card(agent, url="http://127.0.0.1:1/").description == "Helps."
    skill = AgentSkill(id="s", name="Search", description="Searches.", tags=["web"])
    card = agent_card(agent, url="http://h/", name="B", description="Does B.", skills=[skill])
    assert (card.name, card.description, [s.id for s in card.skills]) == ("B", "Does B.", ["s"])
    bare = agent_card(Agent(ScriptedProvider([]), name="bare"), url="http://h/")
    assert [s.id for s in bare.skills] == ["chat"]
    with pytest.raises(InvalidArgumentError):
        agent_card(agent, url="ftp://h/")


def _post(url: str, body: bytes = b"{}", **headers: str) -> httpx.Response:
    return httpx.post(url, content=body, headers={"content-type": "application/json", **headers})


def test_a_request_naming_another_host_is_refused(approval: str) -> None:
    response = httpx.get(approval + CARD_PATH.lstrip("/"), headers={"host": "evil.example"})
    assert (response.status_code, response.json()["error"]) == (400, "HostNotAllowed")


def test_a_post_from_another_sites_page_is_refused(approval: str) -> None:
    response = _post(approval, origin="https://evil.example")
    assert (response.status_code, response.json()["error"]) == (403, "CrossOriginRefused")
    cross_site = httpx.post(approval, content=b"{}", headers={"sec-fetch-site": "cross-site"})
    assert cross_site.status_code == 403


def test_a_post_that_is_not_json_is_refused_before_the_sdk_reads_it(approval: str) -> None:
    """A cross-site form or a `text/plain` fetch, which needs no CORS preflight."""
    plain = httpx.post(approval, content=b"{}", headers={"content-type": "text/plain"})
    assert (plain.status_code, plain.json()["error"]) == (415, "UnsupportedMediaType")
    assert plain.headers["x-content-type-options"] == "nosniff"


def test_a_body_over_the_bound_is_refused_before_it_is_read(approval: str) -> None:
    response = _post(approval, b"[" + b" " * (1 << 20) + b"]")
    assert (response.status_code, response.json()["error"]) == (413, "BodyTooLarge")


def test_a_post_from_the_servers_own_origin_reaches_the_sdk(approval: str) -> None:
    parsed = httpx.URL(approval)
    own = f"{parsed.scheme}://{parsed.host}:{parsed.port}"
    response = _post(approval, b"{}", origin=own)
    assert response.status_code == 200  # the SDK's JSON-RPC answer to an invalid request
    assert "error" in response.json()


def test_a_policy_accepts_the_names_it_is_given_besides_loopback() -> None:
    policy = GuardPolicy.for_bind("127.0.0.1", allow_hosts=["agents.internal"])
    assert policy.allows_host("agents.internal:8000")
    assert policy.allows_host("[::1]:8000")
    assert not policy.allows_host("evil.example")
    with pytest.raises(ValueError, match="positive"):
        GuardPolicy(max_body_bytes=0)
