// Runs an agent with AG-UI's own client (HttpAgent: SSE parsing, verifyEvents, the
// default event application) against an AG-UI server, and prints what it read as JSON.
// usage: node ag_ui_run.mjs <url> <user text> [client tool name] [approve|deny] [thread id]
import { HttpAgent } from "@ag-ui/client";

const [url, text, clientTool, answer, threadId] = process.argv.slice(2);
const agent = new HttpAgent({
  url,
  threadId: threadId || "thread-1",
  initialMessages: [{ id: "u1", role: "user", content: text }],
  initialState: { theme: "dark" },
});
const runs = [];
async function run(parameters) {
  const events = [];
  const result = await agent.runAgent(parameters, { onEvent: ({ event }) => { events.push(event); } });
  runs.push({ events, outcome: result.outcome ?? null, messages: structuredClone(agent.messages), state: structuredClone(agent.state) });
  return events;
}
const tools = clientTool
  ? [{ name: clientTool, description: "Asks the browser.", parameters: { type: "object", properties: {} } }]
  : [];
try {
  const events = await run({ runId: "run-1", tools });
  const finished = events.find((event) => event.type === "RUN_FINISHED");
  const interrupts = finished?.outcome?.interrupts ?? [];
  const pending = finished?.outcome?.pendingToolCallIds ?? [];
  if (answer && interrupts.length) {
    await run({
      runId: "run-2",
      tools,
      resume: interrupts.map((interrupt) => ({
        interruptId: interrupt.id,
        status: "resolved",
        payload: { approved: answer === "approve", reason: "not now" },
      })),
    });
  } else if (pending.length) {
    for (const id of pending) {
      agent.addMessage({ id: `result-${id}`, role: "tool", toolCallId: id, content: "dark mode is on" });
    }
    await run({ runId: "run-2", tools });
  }
  process.stdout.write(JSON.stringify({ runs, error: null }));
} catch (error) {
  process.stdout.write(JSON.stringify({ runs, error: String(error?.message ?? error) }));
}
