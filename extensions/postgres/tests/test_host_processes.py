"""Many hosts on one PostgreSQL schema, as real processes (`_pg_host_procs.py`): a
host SIGKILLed mid-tool or mid-provider-call is taken over by another after its lease
expires, with nothing lost and no non-idempotent tool run twice; a host paused past
its lease has its late writes refused; ten hosts racing to take a thread over run it
once."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

PROCS = Path(__file__).resolve().parent / "_pg_host_procs.py"


def start(mode: str, dsn: str, schema: str, effects: Path, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(PROCS), mode, dsn, schema, str(effects), *flags],
        stdout=subprocess.PIPE,
        text=True,
    )


def said(process: subprocess.Popen[str]) -> dict[str, object]:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, f"host exited with {process.wait()} before reporting"
    message: dict[str, object] = json.loads(line)
    return message


def killed(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=20)


def resumed(dsn: str, schema: str, effects: Path, *flags: str) -> dict[str, object]:
    """What another host reports once it has taken the thread over and settled it."""
    host = start("resume", dsn, schema, effects, *flags)
    try:
        report = said(host)
        assert host.wait(timeout=20) == 0
    finally:
        if host.poll() is None:
            host.kill()
    return report


def items(report: dict[str, object]) -> list[list[object]]:
    found = report["items"]
    assert isinstance(found, list)
    return found


def test_a_host_killed_mid_tool_is_taken_over_without_replaying_the_effect(
    pg_server: str, schema: str, tmp_path: Path
) -> None:
    effects = tmp_path / "effects.txt"
    owner = start("tool", pg_server, schema, effects)
    try:
        assert "thread_id" in said(owner)
        assert said(owner) == {"tool": "started"}
    finally:
        killed(owner)
    report = resumed(pg_server, schema, effects)
    assert report["status"] == "effect_outcome_unknown"
    assert items(report)[1][:2] == ["tool_call", "error"]
    assert str(items(report)[1][2]).startswith("outcome unknown")
    assert len(effects.read_text().splitlines()) == 1


def test_a_host_killed_mid_idempotent_tool_is_taken_over_and_reruns_it_with_the_same_key(
    pg_server: str, schema: str, tmp_path: Path
) -> None:
    effects = tmp_path / "effects.txt"
    owner = start("tool", pg_server, schema, effects, "idempotent")
    try:
        assert "thread_id" in said(owner)
        assert said(owner) == {"tool": "started"}
    finally:
        killed(owner)
    report = resumed(pg_server, schema, effects, "idempotent")
    assert report["status"] == "done"
    keys = effects.read_text().splitlines()
    assert len(keys) == 2
    assert keys[0] == keys[1]


def test_a_host_killed_mid_provider_call_is_taken_over_and_the_turn_finishes(
    pg_server: str, schema: str, tmp_path: Path
) -> None:
    effects = tmp_path / "effects.txt"
    owner = start("model", pg_server, schema, effects)
    try:
        assert "thread_id" in said(owner)
        assert said(owner) == {"model": "started"}
    finally:
        killed(owner)
    report = resumed(pg_server, schema, effects)
    assert report["status"] == "done"
    user, call, answer = items(report)
    assert [user[0], user[2]] == ["user", "pay 5"]
    assert call[:3] == ["tool_call", "done", "charged 5"]
    assert [answer[0], answer[2]] == ["assistant", "paid"]
    assert len(effects.read_text().splitlines()) == 1  # the tool ran once, on the new host


def test_a_host_paused_past_its_lease_has_its_late_writes_refused(
    pg_server: str, schema: str, tmp_path: Path
) -> None:
    effects = tmp_path / "effects.txt"
    owner = start("slow", pg_server, schema, effects)
    try:
        assert "thread_id" in said(owner)
        assert said(owner) == {"tool": "started"}
        owner.send_signal(signal.SIGSTOP)
        report = resumed(pg_server, schema, effects)  # after the paused host's lease
    finally:
        owner.send_signal(signal.SIGCONT)
    assert report["status"] == "effect_outcome_unknown"
    late = said(owner)  # the tool returned; the paused host tried to commit its result
    assert owner.wait(timeout=20) == 0
    assert late == report  # the journal is the new owner's: the late result was refused
    assert "charged 5" not in json.dumps(late)
    assert len(effects.read_text().splitlines()) == 1


def test_ten_hosts_racing_to_take_over_a_thread_run_it_exactly_once(
    pg_server: str, schema: str, tmp_path: Path
) -> None:
    """Ten host processes find the dead owner's thread at once: one claims it and
    finishes the turn (running the idempotent call again, once), the other nine only
    watch; all ten see the same settled thread."""
    effects = tmp_path / "effects.txt"
    owner = start("tool", pg_server, schema, effects, "idempotent")
    try:
        assert "thread_id" in said(owner)
        assert said(owner) == {"tool": "started"}
    finally:
        killed(owner)
    racers = [start("resume", pg_server, schema, effects, "idempotent") for _ in range(10)]
    try:
        reports = [said(racer) for racer in racers]
        assert [racer.wait(timeout=60) for racer in racers] == [0] * 10
    finally:
        for racer in racers:
            if racer.poll() is None:
                racer.kill()
    assert {report["status"] for report in reports} == {"done"}
    assert all(items(report) == items(reports[0]) for report in reports)
    keys = effects.read_text().splitlines()
    assert len(keys) == 2  # the dead owner's run, then exactly one winner's
    assert keys[0] == keys[1]
