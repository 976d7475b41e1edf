"""Conformance suites for agent runners and workflow-backed agents.

- The **agent conformance suite** (`AgentConformance`, `run_agent_conformance`, the
  `check_*` functions taking an `AgentFactory`): what any runner of an agent's loop
  keeps — a direct `Agent` and a `WorkflowAgent` both pass it. On one scripted
  conversation with tools: the same output, transcript, final message, stop reason,
  provider calls and usage totals as a direct `agent.run`; a failing provider and an
  exhausted `max_steps` raise the direct agent's typed errors with the same partial
  result; cancelling a run cancels its tools and raises `CancelledError`; `run_sync`
  gives the same result.
- The **workflow-agent suite** (`WorkflowAgentConformance`,
  `run_workflow_agent_conformance`): lifecycle and lineage on a store — run ids,
  one activation per model turn and tool batch in the run's history, resuming an
  interrupted run to the uninterrupted result without repeating a finished step (the
  interrupted batch again, with the same idempotency key), and a finished run
  answering from its journal without calling the model.

Subclass a suite class as `Test...` in a pytest module (async tests enabled) and it
collects as one test per check. Nothing here imports pytest: failures raise
`ConformanceError`, an `AssertionError`. The rules are W15-W17 of docs/workflows.md.
"""

from automata.workflow.testing._agent_suite import (
    AGENT_CHECKS,
    AgentConformance,
    AgentFactory,
    AgentUnderTest,
    ConformanceError,
    check_cancellation_propagates,
    check_errors_are_the_agents,
    check_max_steps,
    check_result_and_transcript,
    check_run_sync,
    check_usage_totals,
    run_agent_conformance,
)
from automata.workflow.testing._lifecycle_suite import (
    EXPECTED_NODES,
    WORKFLOW_AGENT_CHECKS,
    StoreFactory,
    WorkflowAgentConformance,
    WorkflowAgentFactory,
    check_finished_run_answers_from_its_journal,
    check_history_has_one_activation_per_step,
    check_resume_after_interruption,
    check_run_ids,
    run_workflow_agent_conformance,
)
from automata.workflow.testing._scenario import Conversation

__all__ = [
    "AGENT_CHECKS",
    "EXPECTED_NODES",
    "WORKFLOW_AGENT_CHECKS",
    "AgentConformance",
    "AgentFactory",
    "AgentUnderTest",
    "ConformanceError",
    "Conversation",
    "StoreFactory",
    "WorkflowAgentConformance",
    "WorkflowAgentFactory",
    "check_cancellation_propagates",
    "check_errors_are_the_agents",
    "check_finished_run_answers_from_its_journal",
    "check_history_has_one_activation_per_step",
    "check_max_steps",
    "check_result_and_transcript",
    "check_resume_after_interruption",
    "check_run_ids",
    "check_run_sync",
    "check_usage_totals",
    "run_agent_conformance",
    "run_workflow_agent_conformance",
]
