"""automata.core: composable agent primitives.

Blocks and messages, tools, providers, the agent loop, sessions, streaming and the
stream accumulator. Depends only on pydantic and opentelemetry-api.
"""

from automata.core._accumulator import AgentView, StreamAccumulator, ToolCallView
from automata.core._activity import (
    Activity,
    ActivityRow,
    AnswerSummary,
    SubAgentOperation,
)
from automata.core._agent import Agent
from automata.core._approval import Approval, Approver
from automata.core._artifacts import PREVIEW_CHARS, Artifact, artifact_of, preview_block
from automata.core._blocks import (
    TRANSCRIPT_VERSION,
    Block,
    Citation,
    DocumentBlock,
    ImageBlock,
    Message,
    RawBlock,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    dump_messages,
    load_messages,
)
from automata.core._capabilities import Embedder, Embeddings, ModelCatalog, ModelInfo, capability
from automata.core._compaction import CompactionError, Compactor
from automata.core._cost import Cost, CostTally, PriceTable
from automata.core._deps import RunContext
from automata.core._errors import (
    ArgumentTypeError,
    AutomataError,
    CompletionError,
    EventCallbackError,
    EventLoopRunningError,
    HookError,
    IncompleteResponseError,
    InvalidArgumentError,
    InvalidStructuredOutputError,
    MaxStepsError,
    MissingAPIKeyError,
    ModelRetry,
    OutputRetriesExceededError,
    ProviderError,
    ProviderTimeoutError,
    ReplyTooLargeError,
    RetryableError,
    RunError,
    ToolBatchAbortedError,
    ToolDefinitionError,
    ToolRetriesExceededError,
    TranscriptError,
    TranscriptVersionError,
)
from automata.core._events import (
    ActivityEvent,
    CompactionEvent,
    CompactionSummary,
    HandoffEvent,
    PartialOutputEvent,
    StreamEvent,
    TextEvent,
    ThinkingEvent,
    ToolCallDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from automata.core._fallback import FallbackAttempt, FallbackExhaustedError, FallbackProvider
from automata.core._guardrails import (
    GuardrailError,
    GuardrailResult,
    GuardrailTripped,
    InputGuardrail,
    InputGuardrailTripped,
    OutputGuardrail,
    OutputGuardrailTripped,
)
from automata.core._handoffs import Handoff, handoff
from automata.core._hooks import Hook, post_run, pre_send
from automata.core._iter import RunSteps
from automata.core._labels import RunLabels
from automata.core._limits import UsageLimitExceeded, UsageLimits
from automata.core._model_strings import UnknownProviderError
from automata.core._options import CallOptions, ToolChoice
from automata.core._output_validators import OutputValidator
from automata.core._policy import RateLimiter, ToolLimits, ToolPolicy
from automata.core._provider import (
    ModelRequest,
    ModelResponse,
    OutputSchema,
    Provider,
    ProviderStreamItem,
    StreamProvider,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolSpec,
)
from automata.core._result import RunResult
from automata.core._retry import RetryPolicy
from automata.core._runner import RunOptions, Task
from automata.core._session import Session, SessionBusyError
from automata.core._steps import ModelStep, RunRef, Step, ToolStep
from automata.core._stop import StopReason
from automata.core._stream import RunStream
from automata.core._structured import STRUCTURED_OUTPUT_TOOL
from automata.core._subagent import SubAgentTool, TaskParams, as_tool, as_tool_func
from automata.core._tool_activity import ToolActivity
from automata.core._tool_retry import RetryingTool, with_tool_retry
from automata.core._tool_warnings import ToolDefinitionWarning
from automata.core._tools import (
    FunctionTool,
    InvalidToolArguments,
    Tool,
    ToolContext,
    ToolResult,
    tool,
)
from automata.core._usage import Usage
from automata.core._version import installed_version as _installed_version

__version__ = _installed_version("automata-ai-core")
"""The installed version of `automata-ai-core` ("0+unknown" from a source tree)."""

__all__ = [
    "PREVIEW_CHARS",
    "STRUCTURED_OUTPUT_TOOL",
    "TRANSCRIPT_VERSION",
    "Activity",
    "ActivityEvent",
    "ActivityRow",
    "Agent",
    "AgentView",
    "AnswerSummary",
    "Approval",
    "Approver",
    "ArgumentTypeError",
    "Artifact",
    "AutomataError",
    "Block",
    "CallOptions",
    "Citation",
    "CompactionError",
    "CompactionEvent",
    "CompactionSummary",
    "Compactor",
    "CompletionError",
    "Cost",
    "CostTally",
    "DocumentBlock",
    "Embedder",
    "Embeddings",
    "EventCallbackError",
    "EventLoopRunningError",
    "FallbackAttempt",
    "FallbackExhaustedError",
    "FallbackProvider",
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
    "PriceTable",
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
    "RunLabels",
    "RunOptions",
    "RunRef",
    "RunResult",
    "RunSteps",
    "RunStream",
    "Session",
    "SessionBusyError",
    "Step",
    "StopReason",
    "StreamAccumulator",
    "StreamEvent",
    "StreamProvider",
    "SubAgentOperation",
    "SubAgentTool",
    "Task",
    "TaskParams",
    "TextBlock",
    "TextDelta",
    "TextEvent",
    "ThinkingBlock",
    "ThinkingDelta",
    "ThinkingEvent",
    "Tool",
    "ToolActivity",
    "ToolBatchAbortedError",
    "ToolCallDelta",
    "ToolCallDeltaEvent",
    "ToolCallEvent",
    "ToolCallView",
    "ToolChoice",
    "ToolContext",
    "ToolDefinitionError",
    "ToolDefinitionWarning",
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
    "artifact_of",
    "as_tool",
    "as_tool_func",
    "capability",
    "dump_messages",
    "handoff",
    "load_messages",
    "post_run",
    "pre_send",
    "preview_block",
    "tool",
    "with_tool_retry",
]
