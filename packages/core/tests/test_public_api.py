"""The public surface: what `automata.core` and `automata.core.testing` export is
pinned here, so a change to it is a deliberate edit of this file. Every other module
of the package is internal and says so with a leading underscore."""

from __future__ import annotations

import importlib
import pkgutil
import types
from pathlib import Path

import pytest

import automata.core
import automata.core.testing

PUBLIC_MODULES = (
    "automata.core",
    "automata.core.testing",
    "automata.core.testing.conformance",
    "automata.core.providers",
    "automata.core.providers.reading",
)

CORE = [
    "Agent",
    "AgentView",
    "Approval",
    "Approver",
    "ArgumentTypeError",
    "AutomataError",
    "Block",
    "CallOptions",
    "Citation",
    "CompactionError",
    "CompactionEvent",
    "CompactionSummary",
    "Compactor",
    "CompletionError",
    "DocumentBlock",
    "Embedder",
    "Embeddings",
    "EventCallbackError",
    "EventLoopRunningError",
    "FunctionTool",
    "GuardrailError",
    "GuardrailResult",
    "GuardrailTripped",
    "Handoff",
    "HandoffEvent",
    "Hook",
    "HookError",
    "ImageBlock",
    "IncompleteResponseError",
    "InputGuardrail",
    "InputGuardrailTripped",
    "InvalidArgumentError",
    "InvalidStructuredOutputError",
    "InvalidToolArguments",
    "MaxStepsError",
    "Message",
    "MissingAPIKeyError",
    "ModelCatalog",
    "ModelInfo",
    "ModelRequest",
    "ModelResponse",
    "ModelRetry",
    "ModelStep",
    "OutputGuardrail",
    "OutputGuardrailTripped",
    "OutputRetriesExceededError",
    "OutputSchema",
    "OutputValidator",
    "PartialOutputEvent",
    "Provider",
    "ProviderError",
    "ProviderStreamItem",
    "ProviderTimeoutError",
    "RateLimiter",
    "RawBlock",
    "ReplyTooLargeError",
    "RetryPolicy",
    "RetryableError",
    "RetryingTool",
    "Role",
    "RunContext",
    "RunError",
    "RunOptions",
    "RunResult",
    "RunSteps",
    "RunStream",
    "STRUCTURED_OUTPUT_TOOL",
    "Session",
    "SessionBusyError",
    "Step",
    "StepRun",
    "StopReason",
    "StreamAccumulator",
    "StreamEvent",
    "StreamProvider",
    "SubAgentTool",
    "TRANSCRIPT_VERSION",
    "Task",
    "TaskParams",
    "TextBlock",
    "TextDelta",
    "TextEvent",
    "ThinkingBlock",
    "ThinkingDelta",
    "ThinkingEvent",
    "Tool",
    "ToolBatchAbortedError",
    "ToolCallDelta",
    "ToolCallDeltaEvent",
    "ToolCallEvent",
    "ToolCallView",
    "ToolChoice",
    "ToolContext",
    "ToolDefinitionError",
    "ToolLimits",
    "ToolPolicy",
    "ToolResult",
    "ToolResultBlock",
    "ToolResultEvent",
    "ToolRetriesExceededError",
    "ToolSpec",
    "ToolStep",
    "ToolUseBlock",
    "TranscriptError",
    "TranscriptVersionError",
    "UnknownProviderError",
    "Usage",
    "UsageEvent",
    "UsageLimitExceeded",
    "UsageLimits",
    "__version__",
    "as_tool",
    "as_tool_func",
    "capability",
    "dump_messages",
    "handoff",
    "load_messages",
    "post_run",
    "pre_send",
    "tool",
    "with_tool_retry",
]

TESTING = [
    "BrokenStream",
    "FunctionProvider",
    "Reply",
    "ReplyFunction",
    "ScriptExhaustedError",
    "ScriptedProvider",
    "response_for",
    "tool_call",
    "tool_calls",
    "tool_results",
]

CONFORMANCE = [
    "ALL_CHECKS",
    "CONCURRENT_CALLS",
    "ConformanceError",
    "ConformanceScenario",
    "ProviderConformance",
    "ProviderFactory",
    "RequestGate",
    "StreamOutcome",
    "check_cancellation_propagates",
    "check_concurrent_calls_are_independent",
    "check_declares_what_it_advertises",
    "check_request_not_mutated",
    "check_stream_matches_complete",
    "check_stream_shape",
    "check_usage_and_stop_reason",
    "collect_stream",
    "run_conformance",
]
"""The provider conformance kit; `automata.core.providers` is pinned in test_providers.py,
`automata.core.providers.reading` in test_provider_reading.py."""

PINNED = {
    "automata.core": CORE,
    "automata.core.testing": TESTING,
    "automata.core.testing.conformance": CONFORMANCE,
}


@pytest.mark.parametrize(
    ("module", "expected"),
    [(importlib.import_module(name), names) for name, names in PINNED.items()],
    ids=list(PINNED),
)
def test_the_public_names_are_exactly_these(module: types.ModuleType, expected: list[str]) -> None:
    assert sorted(module.__all__) == expected
    assert len(set(module.__all__)) == len(module.__all__)


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_every_exported_name_imports(module_name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from {module_name} import *", namespace)
    assert set(importlib.import_module(module_name).__all__) <= set(namespace)


@pytest.mark.parametrize(
    "module", [automata.core, automata.core.testing], ids=["automata.core", "automata.core.testing"]
)
def test_every_public_attribute_is_exported(module: types.ModuleType) -> None:
    public = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public <= set(module.__all__)


def test_no_module_is_public_except_the_public_surfaces() -> None:
    root = Path(automata.core.__file__).parent
    found = ["automata.core"]
    for info in pkgutil.walk_packages([str(root)], prefix="automata.core."):
        leaf = info.name.rsplit(".", 1)[-1]
        if not leaf.startswith("_"):
            found.append(info.name)
    assert sorted(found) == sorted(PUBLIC_MODULES)


def test_the_version_is_the_installed_distributions() -> None:
    from importlib.metadata import version

    assert automata.core.__version__ == version("automata-ai-core")


def test_a_distribution_that_is_not_installed_has_the_unknown_version() -> None:
    from automata.core._version import installed_version

    assert installed_version("automata-ai-no-such-distribution") == "0+unknown"
