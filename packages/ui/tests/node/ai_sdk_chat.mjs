// Drives a chat with the AI SDK's own client (AbstractChat + DefaultChatTransport, what
// useChat runs) against a UI message stream server, and prints what it read as JSON.
// usage: node ai_sdk_chat.mjs <api url> <user text> [approve|deny] [client tool output]
//        [a second user text, sent after the first answer]
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
} from "ai";

class State {
  constructor() {
    this.status = "ready";
    this.error = undefined;
    this.messages = [];
  }
  pushMessage(message) { this.messages = [...this.messages, message]; }
  popMessage() { this.messages = this.messages.slice(0, -1); }
  replaceMessage(index, message) {
    this.messages = this.messages.map((old, i) => (i === index ? message : old));
  }
  snapshot(thing) { return structuredClone(thing); }
}

class Chat extends AbstractChat {
  constructor(options) { super({ ...options, state: new State() }); }
}

const [api, text, answer, clientOutput, followUp] = process.argv.slice(2);
const errors = [];
const data = [];
const chat = new Chat({
  transport: new DefaultChatTransport({ api }),
  onError: (error) => errors.push(String(error.message ?? error)),
  onData: (part) => data.push(structuredClone(part)), // the SDK updates a reconciled part in place
  // a client-side tool runs here, in the "browser", and its output goes back
  onToolCall: ({ toolCall }) => {
    if (clientOutput) {
      void chat.addToolOutput({ tool: toolCall.toolName, toolCallId: toolCall.toolCallId, output: clientOutput });
    }
  },
  sendAutomaticallyWhen: (options) =>
    lastAssistantMessageIsCompleteWithApprovalResponses(options) ||
    lastAssistantMessageIsCompleteWithToolCalls(options),
});

async function settled() {
  for (let i = 0; i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const last = chat.messages.at(-1);
    const open = last?.parts.some((p) => p.state === "approval-responded" || (clientOutput && p.state === "input-available"));
    if (chat.status !== "submitted" && chat.status !== "streaming" && !open) return;
  }
}

const rounds = [];
await chat.sendMessage({ text });
rounds.push(structuredClone(chat.messages));
const waiting = chat.lastMessage?.parts.find((part) => part.state === "approval-requested");
if (answer && waiting) {
  await chat.addToolApprovalResponse({
    id: waiting.approval.id,
    approved: answer === "approve",
    reason: answer === "approve" ? undefined : "not now",
  });
  // sendAutomaticallyWhen continues the chat with the answer; wait for that request
  await settled();
  rounds.push(structuredClone(chat.messages));
} else if (followUp) {
  await chat.sendMessage({ text: followUp });
  rounds.push(structuredClone(chat.messages));
} else if (clientOutput) {
  await settled();
  rounds.push(structuredClone(chat.messages));
}
process.stdout.write(JSON.stringify({ rounds, errors, data, status: chat.status }));
