"""The whole research pipeline, headless: scripted models for the three roles and the
real Tavily client talking to a local server that speaks Tavily's search API."""

from __future__ import annotations

from deep_research import ResearchPlan, TeamProviders, demo_providers, writer_report

from automata.core import (
    STRUCTURED_OUTPUT_TOOL,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls

from .conftest import Pipeline, SearchServer, requests_to

TOPIC = "urban heat islands"


async def test_the_report_is_the_writers_answer_built_from_the_searched_sources(
    pipeline: Pipeline, search_server: SearchServer
) -> None:
    run = await pipeline(TOPIC)
    report = run.outcome.report
    assert report.startswith(f"# Research brief: {TOPIC}\n")
    for question in run.outcome.plan.questions:
        assert f"## {question}" in report
        for source in search_server.sources_for(question):
            assert source["url"] in report
    assert run.outcome.closing != report
    assert run.outcome.closing.startswith(f"The report on {TOPIC} is ready.")


async def test_the_plan_is_the_orchestrators_typed_output(pipeline: Pipeline) -> None:
    run = await pipeline(TOPIC)
    assert isinstance(run.outcome.plan, ResearchPlan)
    assert run.outcome.plan.title == f"Research brief: {TOPIC}"
    assert len(run.outcome.plan.questions) == 3
    first_request = requests_to(run.providers.orchestrator)[0]
    assert STRUCTURED_OUTPUT_TOOL in [spec.name for spec in first_request.tools]


async def test_planning_is_one_turn_made_to_answer_through_the_typed_output_tool(
    pipeline: Pipeline,
) -> None:
    run = await pipeline(TOPIC)
    planning, delegating = requests_to(run.providers.orchestrator)[:2]
    assert planning.options.tool_choice == STRUCTURED_OUTPUT_TOOL
    assert delegating.options.tool_choice is None
    assert len(run.accumulator.views()[0].tool_calls) == 1


async def test_each_question_is_researched_in_its_own_lane(pipeline: Pipeline) -> None:
    run = await pipeline(TOPIC)
    orchestrator_calls = [
        call
        for view in run.accumulator.views_for("orchestrator")
        for call in view.tool_calls
        if call.name == "researcher"
    ]
    lanes = run.accumulator.views_for("researcher")
    assert [lane.invocation_id for lane in lanes] == [call.id for call in orchestrator_calls]
    assert [lane.depth for lane in lanes] == [1, 1, 1]
    asked = [call.call.input["question"] for call in orchestrator_calls if call.call]
    assert asked == run.outcome.plan.questions


async def test_researcher_lanes_hold_their_web_search_calls_and_results(
    pipeline: Pipeline, search_server: SearchServer
) -> None:
    run = await pipeline(TOPIC)
    for lane, question in zip(
        run.accumulator.views_for("researcher"), run.outcome.plan.questions, strict=True
    ):
        (search,) = lane.tool_calls
        assert search.name == "web_search"
        assert search.call is not None
        assert search.call.input["query"] == question
        assert search.done
        assert not search.is_error
        for source in search_server.sources_for(question):
            assert source["url"] in search.result


async def test_every_lane_reports_its_own_token_usage(pipeline: Pipeline) -> None:
    run = await pipeline(TOPIC)
    views = run.accumulator.views()
    assert [view.agent for view in views] == [
        "orchestrator",
        "orchestrator",
        "researcher",
        "researcher",
        "researcher",
        "writer",
    ]
    assert all(view.usage.input_tokens > 0 and view.usage.output_tokens > 0 for view in views)
    lane_sum = sum((view.usage for view in views[1:]), views[0].usage)
    assert run.accumulator.totals() == lane_sum == run.outcome.usage


async def test_searches_reach_the_search_server_with_the_api_key(
    pipeline: Pipeline, search_server: SearchServer
) -> None:
    run = await pipeline(TOPIC)
    assert sorted(request.body["query"] for request in search_server.received) == sorted(
        run.outcome.plan.questions
    )
    for request in search_server.received:
        assert request.path == "/search"
        assert request.authorization == f"Bearer {search_server.api_key}"


async def test_researchers_read_their_assignment_as_words_not_json(pipeline: Pipeline) -> None:
    run = await pipeline(TOPIC)
    tasks = sorted(
        next(m.text for m in request.messages if m.role == "user")
        for request in requests_to(run.providers.researcher)
        if request.messages[-1].role == "user"
    )
    assert tasks == sorted(
        f"Research question: {question}\n\nContext: Topic: {TOPIC}\n\nReply with your notes."
        for question in run.outcome.plan.questions
    )


async def test_the_writer_receives_every_question_with_its_notes(
    pipeline: Pipeline, search_server: SearchServer
) -> None:
    run = await pipeline(TOPIC)
    (request,) = requests_to(run.providers.writer)
    task = request.messages[-1].text
    assert task.startswith(f"Write a report titled: Research brief: {TOPIC}\n")
    for question in run.outcome.plan.questions:
        assert f"## {question}\n\n- " in task
        for source in search_server.sources_for(question):
            assert source["url"] in task


async def test_a_failing_search_reaches_the_researcher_as_an_error_and_the_run_still_reports(
    pipeline: Pipeline, search_server: SearchServer
) -> None:
    search_server.status = 401
    run = await pipeline(TOPIC)
    for lane in run.accumulator.views_for("researcher"):
        (search,) = lane.tool_calls
        assert search.is_error
        assert search.result == (
            "search failed: Tavily rejected the API key: Unauthorized: missing or invalid API key."
        )
    assert "No sources could be found" in run.outcome.report


async def test_without_a_writer_call_the_orchestrators_answer_is_the_report(
    pipeline: Pipeline,
) -> None:
    plan = tool_call(
        "call_plan", STRUCTURED_OUTPUT_TOOL, title="Short answer", questions=["Why is it hot?"]
    )
    orchestrator = ScriptedProvider(
        [tool_calls(plan), Message.assistant("Cities store heat in concrete.")]
    )
    demo = demo_providers()
    providers = TeamProviders(orchestrator, demo.researcher, demo.writer)
    run = await pipeline(TOPIC, providers=providers)
    assert run.outcome.plan == ResearchPlan(title="Short answer", questions=["Why is it hot?"])
    assert run.outcome.report == "Cities store heat in concrete."
    assert run.accumulator.views_for("writer") == []


def test_writer_report_is_the_last_successful_writer_result() -> None:
    def writer_turn(call_id: str) -> Message:
        return Message.assistant([ToolUseBlock(id=call_id, name="writer", input={})])

    def result(call_id: str, text: str, *, is_error: bool = False) -> Message:
        return Message(
            role="tool",
            content=(
                ToolResultBlock(
                    tool_use_id=call_id, content=(TextBlock(text=text),), is_error=is_error
                ),
            ),
        )

    transcript = [
        writer_turn("w1"),
        result("w1", "# Draft"),
        writer_turn("w2"),
        result("w2", "# Final"),
        writer_turn("w3"),
        result("w3", "writer failed", is_error=True),
    ]
    assert writer_report(transcript) == "# Final"
    assert writer_report(transcript[:1]) is None
