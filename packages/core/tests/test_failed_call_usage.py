"""Usage a vendor reported for a call that failed counts in the run (L7)."""

from __future__ import annotations

import pytest

from automata.core import Agent, ProviderError, Usage
from automata.core.testing import ScriptedProvider

SPENT = Usage(input_tokens=30, output_tokens=4096)


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "stream"])
async def test_a_failed_call_s_reported_usage_counts_in_the_failed_run(streamed: bool) -> None:
    """L7: the failed run's `.result.usage` holds what the failing call reported."""
    failure = ProviderError("acme: 500 server_error: token limit reached", usage=SPENT)
    agent = Agent(ScriptedProvider([failure]))

    async def run() -> None:
        if streamed:
            _ = [event async for event in agent.stream("go")]
        else:
            await agent.run("go")

    with pytest.raises(ProviderError) as caught:
        await run()
    assert caught.value.result is not None
    assert caught.value.result.usage == SPENT
