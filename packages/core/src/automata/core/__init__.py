"""automata.core: composable agent primitives.

Blocks and messages, tools, providers, the agent loop, sessions, streaming and the
stream accumulator. Depends only on pydantic and opentelemetry-api.
"""

from automata.core.accumulator import AgentView, StreamAccumulator, ToolCallView
from automata.core.agent import Agent
from automata.core.approval import Approval, Approver
from automata.core.blocks import (
    Block,
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
from automata.core.compaction import CompactionError, Compactor
from automata.core.errors import (
    AutomataError,
    CompletionError,
    HookError,
    IncompleteResponseError,
    InvalidStructuredOutputError,
    MaxStepsError,
    ProviderError,
    RetryableError,
    RunError,
    ToolBatchAbortedError,
    ToolDefinitionError,
    TranscriptError,
)
from automata.core.events import (
    StreamEvent,
    TextEvent,
    ThinkingEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from automata.core.hooks import Hook, post_run, pre_send
from automata.core.options import CallOptions, ToolChoice
from automata.core.policy import RateLimiter, ToolLimits, ToolPolicy
from automata.core.provider import (
    ModelRequest,
    ModelResponse,
    OutputSchema,
    Provider,
    ProviderStreamItem,
    StreamProvider,
    TextDelta,
    ThinkingDelta,
    ToolSpec,
)
from automata.core.result import RunResult
from automata.core.runner import RunOptions, Task
from automata.core.session import Session, SessionBusyError
from automata.core.stop import StopReason
from automata.core.stream import RunStream
from automata.core.structured import STRUCTURED_OUTPUT_TOOL
from automata.core.subagent import SubAgentTool, TaskParams, as_tool, as_tool_func
from automata.core.tool_retry import RetryingTool, with_tool_retry
from automata.core.tools import InvalidToolArguments, Tool, ToolContext, ToolResult, tool
from automata.core.usage import Usage

__all__ = [
    "STRUCTURED_OUTPUT_TOOL",
    "Agent",
    "AgentView",
    "Approval",
    "Approver",
    "AutomataError",
    "Block",
    "CallOptions",
    "CompactionError",
    "Compactor",
    "CompletionError",
    "Hook",
    "HookError",
    "ImageBlock",
    "IncompleteResponseError",
    "InvalidStructuredOutputError",
    "InvalidToolArguments",
    "MaxStepsError",
    "Message",
    "ModelRequest",
    "ModelResponse",
    "OutputSchema",
    "Provider",
    "ProviderError",
    "ProviderStreamItem",
    "RateLimiter",
    "RawBlock",
    "RetryableError",
    "RetryingTool",
    "Role",
    "RunError",
    "RunOptions",
    "RunResult",
    "RunStream",
    "Session",
    "SessionBusyError",
    "StopReason",
    "StreamAccumulator",
    "StreamEvent",
    "StreamProvider",
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
    "ToolBatchAbortedError",
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
    "ToolSpec",
    "ToolUseBlock",
    "TranscriptError",
    "Usage",
    "UsageEvent",
    "as_tool",
    "as_tool_func",
    "dump_messages",
    "load_messages",
    "post_run",
    "pre_send",
    "tool",
    "with_tool_retry",
]
