"""Which tests pin which tagged rules of which contract page: the project's registry.

Every page of `docs/` that states tagged rules (`**T3.**`) is registered here, each of
its tag prefixes exactly once; `scripts/tests/test_docs_rule_tags.py` fails on a page
stating a prefix no pinning names, and checks every book listed here.
"""

from __future__ import annotations

from dataclasses import dataclass

_CORE = "packages/core/tests/test_*.py"
_THREADS = "packages/threads/tests/test_*.py"


@dataclass(frozen=True)
class RulePinning:
    """The rules of `page` tagged with `prefixes`, cited in the docstrings of the
    functions named `citing*` of the files matching `cited_in` (globs from the
    repository root). A citation of a `retired` prefix (a page's old tags) is stale."""

    page: str
    prefixes: tuple[str, ...]
    cited_in: tuple[str, ...]
    retired: tuple[str, ...] = ()
    citing: tuple[str, ...] = ("test_",)


RULE_PINNINGS: tuple[RulePinning, ...] = (
    RulePinning("docs/eval.md", ("E",), ("packages/eval/tests/test_*.py",)),
    RulePinning("docs/eval-scorecard.md", ("SC",), ("packages/eval/tests/test_*.py",)),
    # Threads tests cite the loop rules a thread relies on ("core rule L88").
    RulePinning("docs/loop.md", ("L",), (_CORE, _THREADS)),
    RulePinning("docs/protocols.md", ("A",), ("extensions/acp/tests/test_*.py",)),
    # The MCP elicitation bridge's thread side is pinned in the threads package too.
    RulePinning(
        "docs/protocols.md",
        ("P",),
        (
            "extensions/mcp/tests/test_*.py",
            "packages/threads/tests/test_service_call_questions.py",
        ),
    ),
    RulePinning("docs/providers.md", ("OR",), ("extensions/openai/tests/test_*.py",)),
    # S, A and P are the old tags of ST, SA and NS (S is now threads-storage's, A and P
    # protocols'): a streaming test still citing one is stale.
    RulePinning(
        "docs/streaming.md",
        ("ST", "O", "F", "B", "R", "C", "SA", "NS", "M"),
        (_CORE, "examples/sse_server/tests/test_*.py", "extensions/anthropic/tests/test_*.py"),
        retired=("S", "A", "P"),
    ),
    RulePinning("docs/temporal.md", ("TP",), ("extensions/temporal/tests/test_*.py",)),
    # The store rules (S) and the retention rules (RT) are pinned by the conformance
    # checks every backend runs.
    RulePinning(
        "docs/threads-storage.md",
        ("S", "RT"),
        ("packages/threads/src/automata/threads/_conformance_*.py", _THREADS),
        citing=("check_", "test_"),
    ),
    RulePinning("docs/threads.md", ("T",), (_THREADS,)),
    RulePinning(
        "docs/threads.md",
        ("TD",),
        (
            "packages/threads/tests/test_service_todos*.py",
            "extensions/acp/tests/test_thread_sessions.py",
        ),
    ),
    # Tool activity is set in the core and journaled by threads.
    RulePinning(
        "docs/threads.md",
        ("AC",),
        (
            "packages/core/tests/test_streaming_activity.py",
            "packages/threads/tests/test_service_activity*.py",
        ),
    ),
    RulePinning(
        "docs/threads.md",
        ("AR",),
        (
            "packages/threads/tests/test_service_artifact*.py",
            "packages/core/tests/test_artifacts.py",
            "packages/tools/tests/test_http_fetch.py",
        ),
    ),
    RulePinning(
        "docs/threads.md",
        ("RL",),
        (
            "packages/core/tests/test_run_labels.py",
            "packages/threads/tests/test_service_activity*.py",
        ),
    ),
    # The context record: the service's tests and the store check every backend runs.
    RulePinning(
        "docs/threads.md",
        ("CX",),
        (
            "packages/threads/tests/test_service_context*.py",
            "packages/threads/tests/test_thread_cost.py",
            "packages/threads/src/automata/threads/_conformance_context.py",
        ),
        citing=("check_", "test_"),
    ),
    RulePinning("docs/tools.md", ("CT",), ("packages/tools/tests/test_*.py",)),
    RulePinning("docs/tools.md", ("SB",), ("packages/tools/tests/test_sandbox_*.py",)),
    RulePinning("docs/ui-protocols.md", ("U",), ("packages/ui/tests/test_*.py",)),
    RulePinning(
        "docs/workflows.md",
        ("W",),
        ("packages/workflow/tests/test_*.py", "extensions/temporal/tests/test_*.py"),
    ),
)
