// Drives a chat with the AI SDK's own client (AbstractChat + DefaultChatTransport, what
// useChat runs) against a UI message stream server, and prints what it read as JSON.
// usage: node ai_sdk_chat.mjs <api url> <user text> [approve|deny]
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
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

const [api, text, answer] = process.argv.slice(2);
const errors = [];
const data = [];
const chat = new Chat({
  transport: new DefaultChatTransport({ api }),
  onError: (error) => errors.push(String(error.message ?? error)),
  onData: (part) => data.push(part),
  sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
});

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
  for (let i = 0; i < 200 && (chat.status === "submitted" || chat.status === "streaming" || rounds.length && chat.messages.at(-1).parts.some((p) => p.state === "approval-responded")); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  rounds.push(structuredClone(chat.messages));
}
process.stdout.write(JSON.stringify({ rounds, errors, data, status: chat.status }));
