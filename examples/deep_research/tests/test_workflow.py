"""The research pipeline as a workflow: the same report as the orchestrated pipeline,
one checkpointed activation per stage, a SIGKILLed run resumed by another process
without researching again, and the `deep_research.durable` command line."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from deep_research import DemoSearcher, build_orchestrator, demo_providers, research
from deep_research.durable import main
from deep_research.workflow import research_workflow

from automata.core import StreamAccumulator
from automata.threads import MemoryStore, SQLiteStore

WORKER = Path(__file__).resolve().parent / "_crash_worker.py"


async def finished_nodes(db: Path, run_id: str) -> dict[str, int]:
    """How many activations of each node started, read from the SQLite file."""
    store = SQLiteStore(db)
    await store.open()
    try:
        flow = research_workflow(demo_providers(), DemoSearcher(), store)
        page = await flow.history(run_id, limit=1000)
    finally:
        await store.close()
    started: dict[str, int] = {}
    for entry in page.entries:
        if entry.kind == "activation_started":
            started[str(entry.node)] = started.get(str(entry.node), 0) + 1
    return started


async def test_the_workflow_writes_the_report_the_orchestrated_pipeline_writes() -> None:
    store = MemoryStore()
    await store.open()
    searcher = DemoSearcher()
    flow = research_workflow(demo_providers(), searcher, store)
    report = await flow.invoke("bees", run_id="bees-1")
    assert len(report.plan.questions) == 3
    assert [f.question for f in report.findings] == report.plan.questions
    assert sorted(searcher.queries) == sorted(report.plan.questions)
    assert report.usage.total_tokens > 0
    orchestrated = await research(
        build_orchestrator(demo_providers(), DemoSearcher()), "bees", StreamAccumulator()
    )
    assert report.report == orchestrated.report
    assert report.plan == orchestrated.plan


@pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")
def test_a_run_killed_between_research_and_writing_resumes_in_another_process(
    tmp_path: Path,
) -> None:
    """The first process is SIGKILLed once research is checkpointed, as `write` is about
    to start; a second process resumes the run and writes the report. The researchers
    searched exactly once per question, all in the first process."""
    db, searches = tmp_path / "runs.db", tmp_path / "searches.tsv"
    first = subprocess.Popen(
        [sys.executable, str(WORKER), "start", db, searches], stdout=subprocess.PIPE, text=True
    )
    assert first.stdout is not None
    seen = []
    try:
        for line in first.stdout:
            seen.append(json.loads(line))
            if seen[-1] == {"hang": "write"}:
                break
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=20)
    assert seen == [{"finished": "plan"}, {"finished": "research"}, {"hang": "write"}]
    before = searches.read_text(encoding="utf-8").splitlines()
    assert len(before) == 3

    second = subprocess.run(
        [sys.executable, str(WORKER), "resume", db, searches],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = [json.loads(line) for line in second.stdout.splitlines()]
    report = lines[-1]["report"]
    assert report.startswith("# Research brief: bees")
    assert "## What does the latest evidence say about bees?" in report
    assert {"finished": "plan"} in lines  # the history is handed to the sinks again (W12)
    assert searches.read_text(encoding="utf-8").splitlines() == before
    assert {line.split("\t")[2] for line in before} == {str(first.pid)}
    assert asyncio.run(finished_nodes(db, "crash-1")) == {"plan": 1, "research": 1, "write": 1}


async def test_the_command_line_runs_then_answers_a_finished_run_from_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "runs.db"
    flags = ["--db", str(db), "--provider", "demo"]
    assert await _main([*flags, "--run-id", "r1", "bees"]) == 0
    first = capsys.readouterr()
    assert first.out.startswith("# Research brief: bees")
    assert "run r1 done" in first.err
    assert await _main([*flags, "--resume", "r1"]) == 0
    assert capsys.readouterr().out == first.out
    assert await finished_nodes(db, "r1") == {"plan": 1, "research": 1, "write": 1}
    assert await _main([*flags, "--resume", "nope"]) == 1
    assert "no run with id 'nope'" in capsys.readouterr().err


async def _main(argv: list[str]) -> int:
    """`main` runs its own event loop: call it from a thread."""
    return await asyncio.to_thread(main, argv, {})


def test_a_topic_and_resume_together_are_refused() -> None:
    with pytest.raises(SystemExit) as raised:
        main(["--db", "x.db", "--resume", "r1", "bees"], {})
    assert raised.value.code == 2
