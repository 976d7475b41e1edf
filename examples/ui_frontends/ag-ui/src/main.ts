// A chat page on AG-UI's own client: an `HttpAgent` runs the automata agent served at
// /api/agent and applies its events to `agent.messages`, which this page draws (text,
// reasoning, tool calls and their results). A call that needs approval ends the run with
// an interrupt; Approve or Deny resumes it (`resume: [{interruptId, status, payload}]`).
// Everything a model or a tool wrote is set as textContent, never as HTML.
import { HttpAgent, type Interrupt, type Message, type ResumeEntry, type ToolCall } from "@ag-ui/client";

type Status = "ready" | "streaming" | "waiting" | "error";
type Usage = { inputTokens: number; outputTokens: number };

let counter = 0;
function newId(kind: string): string {
  counter += 1;
  return `${kind}-${Date.now().toString(36)}-${counter}`;
}

const agent = new HttpAgent({ url: "/api/agent", threadId: newId("thread") });
let status: Status = "ready";
let errorText = "";
let interrupts: Interrupt[] = [];
const answers = new Map<string, ResumeEntry>();

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json; // still streaming, or not JSON: shown as it is
  }
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part && typeof part === "object" && "text" in part ? String(part.text) : "")).join("");
  }
  return "";
}

// the page's skeleton, built once; only its parts' text changes after
const root = document.getElementById("root")!;
const main = el("main");
const header = el("header");
header.append(el("h1", "", "automata · AG-UI"));
const sub = el("p", "sub");
sub.append(el("code", "", "HttpAgent"), " on the AG-UI events of ", el("code", "", "/api/agent"));
header.append(sub);
const list = el("ol");
list.id = "messages";
list.setAttribute("aria-live", "polite");
const errorLine = el("p", "error");
errorLine.setAttribute("role", "alert");
const form = el("form");
form.id = "composer";
const input = el("textarea");
input.id = "message";
input.rows = 2;
input.placeholder = "Message the agent (Enter sends, Shift+Enter breaks the line)";
const send = el("button", "", "Send");
send.id = "send";
send.type = "submit";
const stop = el("button", "", "Stop");
stop.id = "stop";
stop.type = "button";
form.append(input, send, stop);
const footer = el("footer");
footer.id = "status";
const statusText = el("span");
const usageText = el("span");
usageText.id = "usage";
footer.append(statusText, usageText);
main.append(header, list, errorLine, form, footer);
root.append(main);

function toolCard(call: ToolCall, results: Map<string, Message>): HTMLElement {
  const result = results.get(call.id);
  const waiting = interrupts.find((interrupt) => interrupt.toolCallId === call.id);
  const denied = result !== undefined && contentText(result.content).startsWith("denied");
  const state = result ? (denied ? "output-denied" : "output-available") : waiting ? "approval-requested" : "input-available";
  const label = {
    "output-denied": "denied",
    "output-available": "done",
    "approval-requested": answers.has(waiting?.id ?? "") ? "answered" : "waiting for your approval",
    "input-available": status === "streaming" ? "running…" : "not run",
  }[state];
  const card = el("div", `tool tool-${state}`);
  card.dataset.tool = call.function.name;
  const head = el("div", "tool-head");
  head.append(el("span", "tool-name", call.function.name), el("span", "tool-state", label));
  card.append(head, el("pre", "tool-input", pretty(call.function.arguments)));
  if (result) card.append(el("pre", denied ? "tool-output error" : "tool-output", contentText(result.content)));
  if (waiting && !answers.has(waiting.id)) {
    const box = el("div", "approval");
    const approve = el("button", "approve", "Approve");
    const deny = el("button", "deny", "Deny");
    approve.type = deny.type = "button";
    approve.addEventListener("click", () => answer(waiting, true));
    deny.addEventListener("click", () => answer(waiting, false));
    box.append(el("span", "", "Run this call?"), approve, deny);
    card.append(box);
  }
  return card;
}

function render(): void {
  const open = new Set(
    [...list.querySelectorAll<HTMLDetailsElement>("details[open]")].map((d) => d.dataset.id),
  );
  const results = new Map<string, Message>();
  for (const message of agent.messages) {
    if (message.role === "tool") results.set(message.toolCallId, message);
  }
  const items: HTMLElement[] = [];
  for (const message of agent.messages) {
    if (message.role === "user") {
      const item = el("li", "message user");
      item.dataset.role = "user";
      item.append(el("div", "text", contentText(message.content)));
      items.push(item);
    } else if (message.role === "reasoning") {
      const item = el("li", "message assistant");
      item.dataset.role = "assistant";
      const details = el("details", "reasoning");
      details.dataset.id = message.id;
      details.open = open.has(message.id);
      details.append(el("summary", "", "Thinking"), el("div", "text", message.content));
      item.append(details);
      items.push(item);
    } else if (message.role === "assistant") {
      const item = el("li", "message assistant");
      item.dataset.role = "assistant";
      if (message.content) item.append(el("div", "text", message.content));
      for (const call of message.toolCalls ?? []) item.append(toolCard(call, results));
      items.push(item);
    }
  }
  if (items.length === 0) {
    items.push(el("li", "hint", "Try “What's the weather in Tokyo?” or “Please email the team”."));
  }
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.replaceChildren(...items);
  if (atBottom || status !== "streaming") list.scrollTop = list.scrollHeight;
  errorLine.textContent = errorText;
  errorLine.hidden = !errorText;
  statusText.textContent = status === "waiting" ? "waiting for your approval" : status;
  footer.dataset.status = status;
  const usage = (agent.state as { usage?: Usage } | undefined)?.usage;
  usageText.textContent = usage ? `${usage.inputTokens} in · ${usage.outputTokens} out` : "";
  const busy = status === "streaming";
  send.hidden = busy;
  stop.hidden = !busy;
  send.disabled = status === "waiting" || !input.value.trim();
}

let scheduled = false;
function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    render();
  });
}

async function run(resume?: ResumeEntry[]): Promise<void> {
  status = "streaming";
  errorText = "";
  interrupts = [];
  answers.clear();
  render();
  try {
    await agent.runAgent(
      { runId: newId("run"), ...(resume ? { resume } : {}) },
      {
        onEvent: () => schedule(),
        onRunFinishedEvent: ({ event }) => {
          if (event.outcome?.type === "interrupt") interrupts = event.outcome.interrupts;
        },
        onRunErrorEvent: ({ event }) => {
          errorText = event.message;
        },
      },
    );
    status = errorText ? "error" : interrupts.length ? "waiting" : "ready";
  } catch (error) {
    const aborted = error instanceof DOMException && error.name === "AbortError";
    status = aborted ? "ready" : "error";
    if (!aborted) errorText = error instanceof Error ? error.message : String(error);
  }
  render();
}

function answer(interrupt: Interrupt, approved: boolean): void {
  answers.set(interrupt.id, {
    interruptId: interrupt.id,
    status: "resolved",
    payload: approved ? { approved: true } : { approved: false, reason: "denied in the page" },
  });
  if (interrupts.every((pending) => answers.has(pending.id))) {
    void run([...answers.values()]);
  } else {
    render();
  }
}

function submit(event: Event): void {
  event.preventDefault();
  const text = input.value.trim();
  if (!text || status === "streaming" || status === "waiting") return;
  input.value = "";
  agent.addMessage({ id: newId("user"), role: "user", content: text });
  void run();
}

form.addEventListener("submit", submit);
input.addEventListener("input", () => render());
input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) submit(event);
});
stop.addEventListener("click", () => agent.abortRun());
render();
document.body.dataset.ready = "";
