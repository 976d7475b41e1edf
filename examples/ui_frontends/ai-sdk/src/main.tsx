// A chat page on the AI SDK's own React hook: `useChat` reads the UI message stream an
// automata agent serves at /api/chat. It draws text, reasoning and tool parts, and asks
// the person to approve or deny a tool call that needs it (`addToolApprovalResponse`;
// the chat then continues by itself). Everything a model or a tool wrote is drawn as
// React text, never as HTML.
import { useChat } from "@ai-sdk/react";
import {
  DefaultChatTransport,
  getToolName,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type DynamicToolUIPart,
  type ToolUIPart,
  type UIMessage,
} from "ai";
import { StrictMode, useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { createRoot } from "react-dom/client";

type Usage = { inputTokens: number; outputTokens: number };
type ToolPart = ToolUIPart | DynamicToolUIPart;

const transport = new DefaultChatTransport({ api: "/api/chat" });

const STATE_LABELS: Record<ToolPart["state"], string> = {
  "input-streaming": "writing the call…",
  "input-available": "running…",
  "approval-requested": "waiting for your approval",
  "approval-responded": "answered",
  "output-available": "done",
  "output-error": "failed",
  "output-denied": "denied",
};

function pretty(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2) ?? "";
}

function ToolCall({
  part,
  onAnswer,
}: {
  part: ToolPart;
  onAnswer: (approvalId: string, approved: boolean) => void;
}) {
  const approval = part.state === "approval-requested" ? part.approval : undefined;
  return (
    <div className={`tool tool-${part.state}`} data-tool={getToolName(part)}>
      <div className="tool-head">
        <span className="tool-name">{getToolName(part)}</span>
        <span className="tool-state">{STATE_LABELS[part.state]}</span>
      </div>
      {part.input !== undefined && <pre className="tool-input">{pretty(part.input)}</pre>}
      {part.state === "output-available" && (
        <pre className="tool-output">{pretty(part.output)}</pre>
      )}
      {part.state === "output-error" && <pre className="tool-output error">{part.errorText}</pre>}
      {approval && (
        <div className="approval">
          <span>Run this call?</span>
          <button type="button" className="approve" onClick={() => onAnswer(approval.id, true)}>
            Approve
          </button>
          <button type="button" className="deny" onClick={() => onAnswer(approval.id, false)}>
            Deny
          </button>
        </div>
      )}
    </div>
  );
}

function Message({
  message,
  onAnswer,
}: {
  message: UIMessage;
  onAnswer: (approvalId: string, approved: boolean) => void;
}) {
  return (
    <li className={`message ${message.role}`} data-role={message.role}>
      {message.parts.map((part, index) => {
        const key = `${message.id}-${index}`;
        if (part.type === "text") {
          return <div key={key} className="text">{part.text}</div>;
        }
        if (part.type === "reasoning") {
          return (
            <details key={key} className="reasoning">
              <summary>Thinking</summary>
              <div className="text">{part.text}</div>
            </details>
          );
        }
        if (isToolUIPart(part)) {
          return <ToolCall key={key} part={part} onAnswer={onAnswer} />;
        }
        return null;
      })}
    </li>
  );
}

function App() {
  const [usage, setUsage] = useState<Usage | null>(null);
  const { messages, sendMessage, status, stop, error, addToolApprovalResponse } = useChat({
    transport,
    // an answered approval continues the run without another message
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onData: (part) => {
      if (part.type === "data-usage") setUsage(part.data as Usage);
    },
  });
  const [input, setInput] = useState("");
  const end = useRef<HTMLLIElement>(null);
  const busy = status === "submitted" || status === "streaming";
  const waiting =
    !busy &&
    (messages.at(-1)?.parts.some((p) => isToolUIPart(p) && p.state === "approval-requested") ?? false);
  const shown = waiting ? "waiting" : status;

  useEffect(() => {
    document.body.dataset.ready = "";
  }, []);

  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [messages]);

  function send(event?: FormEvent) {
    event?.preventDefault();
    const text = input.trim();
    if (!text || busy) return;
    setInput("");
    void sendMessage({ text });
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey) send(event);
  }

  function onAnswer(id: string, approved: boolean) {
    void addToolApprovalResponse({ id, approved, reason: approved ? undefined : "denied in the page" });
  }

  return (
    <main>
      <header>
        <h1>automata · AI SDK</h1>
        <p className="sub">
          <code>useChat</code> on the UI message stream of <code>/api/chat</code>
        </p>
      </header>
      <ol id="messages" aria-live="polite">
        {messages.length === 0 && (
          <li className="hint">Try “What's the weather in Tokyo?” or “Please email the team”.</li>
        )}
        {messages.map((message) => (
          <Message key={message.id} message={message} onAnswer={onAnswer} />
        ))}
        <li ref={end} className="end" aria-hidden="true" />
      </ol>
      {error && <p className="error" role="alert">{error.message}</p>}
      <form id="composer" onSubmit={send}>
        <textarea
          id="message"
          rows={2}
          value={input}
          placeholder="Message the agent (Enter sends, Shift+Enter breaks the line)"
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={onKeyDown}
        />
        {busy ? (
          <button type="button" id="stop" onClick={() => void stop()}>Stop</button>
        ) : (
          <button type="submit" id="send" disabled={!input.trim()}>Send</button>
        )}
      </form>
      <footer id="status" data-status={shown}>
        <span>{waiting ? "waiting for your approval" : status}</span>
        {usage && (
          <span id="usage">
            {usage.inputTokens} in · {usage.outputTokens} out
          </span>
        )}
      </footer>
    </main>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
