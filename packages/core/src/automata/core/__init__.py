"""automata.core: composable agent primitives.

Blocks and messages, tools, providers, the agent loop, sessions, streaming and the
stream accumulator. Depends only on pydantic and opentelemetry-api.
"""

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
from automata.core.errors import (
    AutomataError,
    CompletionError,
    HookError,
    IncompleteResponseError,
    InvalidStructuredOutputError,
    MaxStepsError,
    ProviderError,
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
from automata.core.stop import StopReason
from automata.core.tools import InvalidToolArguments, Tool, ToolContext, ToolResult, tool
from automata.core.usage import Usage

__all__ = [
    "Approval",
    "Approver",
    "AutomataError",
    "Block",
    "CallOptions",
    "CompletionError",
    "HookError",
    "Hook",
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
    "Role",
    "RunError",
    "RunResult",
    "StopReason",
    "StreamEvent",
    "StreamProvider",
    "TextBlock",
    "TextDelta",
    "TextEvent",
    "ThinkingBlock",
    "ThinkingDelta",
    "ThinkingEvent",
    "Tool",
    "ToolBatchAbortedError",
    "ToolCallEvent",
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
    "dump_messages",
    "load_messages",
    "post_run",
    "pre_send",
    "tool",
]
