// The chat page: plain JavaScript modules, no build step.
//
// Everything shown is rendered from the server's views (ThreadView.to_dict()), which
// arrive over server-sent events; the page keeps no state of its own that could
// disagree with them (a stopped answer's text too: the server keeps it, T26).
// Every action sends a request key (net.js), so nothing happens twice.

import { act, newKey, notice } from "./net.js";
import { el, fill, rows, signature } from "./transcript.js";

const $ = (id) => document.getElementById(id);

// -- state ---------------------------------------------------------------------------

let threadId = null; // the open thread
let view = null; // its latest view
let viewSource = null; // its event stream
let everConnected = false;
let leaseTtl = null; // seconds a crashed server's turns stay claimed (from /settings)
let reconnected = false; // the view stream (re)opened: its first view is taken as it is

function newer(candidate) {
  if (view === null || view.thread_id !== candidate.thread_id) return true;
  if (candidate.version !== view.version) return candidate.version > view.version;
  return candidate.live >= view.live;
}

function showView(candidate, fromStream = false) {
  if (candidate.thread_id !== threadId) return;
  // a reconnected stream's first view is the server's as it stands (T17), even when it
  // is older than a draft the page saw from a server that has since gone
  const fresh = fromStream && reconnected;
  if (fromStream) reconnected = false;
  if (!fresh && !newer(candidate)) return;
  const moved = view === null || view.version !== candidate.version || view.live !== candidate.live;
  view = candidate;
  if (moved) progress.at = Date.now();
  if (view.items.some((item) => item.live)) progress.restarted = false;
  render();
}

// -- connection ----------------------------------------------------------------------

let lostAt = null;
let reconnects = 0;
const progress = { at: Date.now(), restarted: false };

function connectionLost() {
  if (lostAt === null) lostAt = Date.now();
  const box = $("connection");
  box.hidden = false;
  box.className = "lost";
  box.textContent = "Connection to the server lost; reconnecting…";
}

function connectionBack() {
  if (lostAt === null) return;
  lostAt = null;
  progress.restarted = true;
  const box = $("connection");
  box.className = "back";
  box.dataset.reconnects = String(++reconnects);
  box.textContent = "Reconnected: showing the chat as the server has it.";
  setTimeout(() => {
    if (lostAt === null) box.hidden = true;
  }, 4000);
}

function followThreads() {
  const source = new EventSource("/events/threads");
  source.addEventListener("threads", (event) => renderThreads(JSON.parse(event.data).threads));
  source.onopen = () => {
    if (everConnected) connectionBack();
    everConnected = true;
    if (leaseTtl === null) loadSettings();
  };
  source.onerror = connectionLost;
}

async function loadSettings() {
  try {
    const response = await fetch("/settings");
    if (response.ok) leaseTtl = (await response.json()).lease_ttl;
  } catch (unreachable) {
    // shown without the figure
  }
}

function open(id) {
  if (viewSource !== null) viewSource.close();
  viewSource = null;
  threadId = id;
  view = null;
  following = true;
  lastScrollTop = 0; // the next look at the list must not read as a scroll up
  $("message").value = "";
  notice("");
  showThreads(false);
  if (id === null) {
    history.replaceState(null, "", location.pathname);
    render();
    return;
  }
  if (location.hash !== `#${id}`) history.replaceState(null, "", `#${id}`);
  const source = new EventSource(`/threads/${encodeURIComponent(id)}/events`);
  source.addEventListener("view", (event) => showView(JSON.parse(event.data), true));
  source.addEventListener("gone", () => {
    source.close();
    if (threadId === id) open(null);
  });
  source.onopen = () => {
    reconnected = true;
    connectionBack();
  };
  source.onerror = connectionLost;
  viewSource = source;
  render();
}

// -- the thread list -----------------------------------------------------------------

function renderThreads(list) {
  $("threads").replaceChildren(
    ...list.map((t) => {
      const li = el("li", t.thread_id === threadId ? "current" : "");
      li.dataset.id = t.thread_id;
      const pick = el("button", "", t.title || "New chat");
      pick.type = "button";
      pick.addEventListener("click", () => open(t.thread_id));
      li.append(pick);
      if (t.active) {
        const dot = el("span", "active-dot");
        dot.title = "working";
        li.append(dot);
      }
      return li;
    }),
  );
}

function showThreads(shown) {
  document.body.classList.toggle("threads-open", shown);
  $("toggle-threads").setAttribute("aria-expanded", String(shown));
}

// -- the conversation ----------------------------------------------------------------

const STATUS_TEXT = {
  idle: "idle",
  running: "running…",
  waiting: "waiting for you",
  done: "done",
  failed: "failed",
  cancelled: "stopped",
  effect_outcome_unknown: "interrupted",
};

const OUTCOME_TEXT = {
  failed: "The run failed",
  cancelled: "You stopped this answer; what it had written is kept above.",
  effect_outcome_unknown:
    "The server stopped while a tool was running, so whether it took effect is unknown",
};

const rendered = new Map(); // row id -> {signature, node}
let following = true; // the reader is at the bottom: new text scrolls into view
let lastScrollTop = 0; // where the list was scrolled to when last looked at

const actions = {
  respond,
  edit: startEdit,
  canEdit: (item) => !item.live && threadId !== null,
};

function atBottom(list) {
  return list.scrollHeight - list.scrollTop - list.clientHeight < 24;
}

// Whether to keep following, read from where the reader has scrolled: up from where the
// list was last seen stops following, back at the bottom follows again. Read at each
// render as well as on scroll events, since a scroll event comes late: content that
// grew in between must not be taken for the reader scrolling away, and a reader's
// scroll up must not be undone by a render that runs before its event.
function readScroll(list) {
  if (list.scrollTop < lastScrollTop - 1) following = false;
  else if (atBottom(list)) following = true;
  lastScrollTop = list.scrollTop;
}

function pendingQuestion() {
  if (view === null) return null;
  return (
    view.items.find(
      (item) =>
        item.kind === "interaction" && item.status === "pending" && item.interaction_kind !== "approval",
    ) || null
  );
}

function usageText() {
  const u = view.usage;
  const cached = u.cache_read_tokens + u.cache_write_tokens;
  const streamed = view.items
    .filter((item) => item.live)
    .reduce((sum, item) => sum + (item.text || item.partial_input || "").length, 0);
  const estimate = streamed ? Math.max(1, Math.ceil(streamed / 4)) : 0;
  if (u.input_tokens + u.output_tokens === 0) {
    return estimate ? `≈${estimate} out so far` : "no tokens yet";
  }
  return (
    `${u.input_tokens} in · ${u.output_tokens} out` +
    (cached ? ` · ${cached} cached` : "") +
    " tokens" +
    (estimate ? ` · ≈${estimate} more streaming` : "")
  );
}

function renderItems() {
  const list = $("items");
  const keepIds = new Set();
  let previous = null;
  for (const row of rows(view)) {
    keepIds.add(row.id);
    const sig = signature(row);
    let known = rendered.get(row.id);
    if (!known) {
      known = { signature: null, node: el("li") };
      rendered.set(row.id, known);
    }
    if (known.signature !== sig && known.node.dataset.editing !== "true") {
      fill(known.node, row, actions);
      known.signature = sig;
    }
    const wanted = previous ? previous.nextSibling : list.firstChild;
    if (wanted !== known.node) list.insertBefore(known.node, wanted);
    previous = known.node;
  }
  for (const [id, { node }] of rendered) {
    if (!keepIds.has(id)) {
      node.remove();
      rendered.delete(id);
    }
  }
}

function renderComposer() {
  const question = pendingQuestion();
  const box = $("composer");
  box.classList.toggle("answering", question !== null);
  $("answering").hidden = question === null;
  $("answering-text").textContent = question ? question.text : "";
  $("message").placeholder = question
    ? "Your answer (Enter to send)"
    : "Message (Enter to send, Shift+Enter for a new line)";
  $("send").textContent = question ? "Answer" : "Send";
  const approval = view && view.status === "waiting" && question === null;
  $("composer-hint").hidden = !approval;
}

function render() {
  $("empty").hidden = threadId !== null;
  $("thread").hidden = threadId === null;
  for (const li of $("threads").children) {
    li.className = li.dataset.id === threadId ? "current" : "";
  }
  const list = $("items");
  if (threadId === null || view === null) {
    list.replaceChildren();
    rendered.clear();
    renderResume();
    return;
  }
  readScroll(list); // before this render changes the list's height
  $("title").textContent = view.title || "New chat";
  $("status").textContent = STATUS_TEXT[view.status] || view.status;
  $("status").dataset.status = view.status;
  $("usage").textContent = usageText();
  renderTodos(view.todos);
  renderItems();

  const outcome = OUTCOME_TEXT[view.status];
  $("outcome").hidden = !outcome;
  $("outcome").dataset.status = view.status;
  $("outcome-text").textContent = outcome
    ? outcome +
      (view.error && view.status !== "cancelled"
        ? `: ${view.error}`
        : outcome.endsWith(".")
          ? ""
          : ".")
    : "";
  $("retry").hidden = !(view.status === "failed" || view.status === "effect_outcome_unknown");
  $("regenerate").hidden = view.status !== "cancelled";
  $("stop").disabled = !(view.status === "running" || view.status === "waiting");

  $("queue").replaceChildren(...view.queue.map(queuedNode));
  renderComposer();
  renderResume();
  if (following) list.scrollTop = list.scrollHeight;
  lastScrollTop = list.scrollTop;
}

function queuedNode(queued) {
  const li = el("li", "queued");
  li.dataset.turn = queued.turn_id;
  li.append(el("span", "label", "queued"), el("span", "text", queued.text));
  const remove = el("button", "", "Remove");
  remove.type = "button";
  remove.addEventListener("click", () =>
    act(`unqueue:${threadId}:${queued.turn_id}`, `/threads/${threadId}/queue/cancel`, {
      turn_id: queued.turn_id,
    }).then((answer) => answer && showView(answer)),
  );
  li.append(remove);
  return li;
}

// After a crash, the restarted server resumes a turn only once the dead one's lease
// has run out: say so while a running turn shows no progress (at once after a
// reconnection, else after a second and a half without news).
function renderResume() {
  const box = $("resume");
  const running = view !== null && view.status === "running";
  const quiet = progress.restarted || Date.now() - progress.at > 1500;
  const stalled = running && !view.items.some((item) => item.live) && quiet;
  box.hidden = !stalled;
  if (!stalled) return;
  const lease = leaseTtl === null ? "its lease" : `its lease, ${leaseTtl} s`;
  box.dataset.restarted = String(progress.restarted);
  box.textContent = progress.restarted
    ? "Resuming: the server restarted during this answer. It goes on once the stopped " +
      `server's claim on this chat is released or has run out (${lease}); nothing is lost.`
    : "Waiting for the answer to go on. If the server stopped while it ran, a restarted " +
      `one resumes it once the old one's claim on this chat (${lease}) has run out.`;
}

// -- actions -------------------------------------------------------------------------

async function sendText(id, text) {
  const answer = await act(`send:${id}:${text}`, `/threads/${id}/messages`, { text });
  if (answer === null) return null;
  following = true;
  lastScrollTop = 0; // the next look at the list must not read as a scroll up
  showView(answer);
  return answer;
}

async function send() {
  const text = $("message").value.trim();
  if (!text || threadId === null) return;
  const question = pendingQuestion();
  if (question !== null) {
    if (await respond(question, text)) $("message").value = "";
    return;
  }
  const id = threadId;
  const untitled = view !== null && !view.title && view.items.length === 0;
  const answer = await sendText(id, text);
  if (answer === null) return;
  if (threadId === id && $("message").value.trim() === text) $("message").value = "";
  if (untitled) {
    const title = text.length > 40 ? `${text.slice(0, 40)}…` : text;
    await act(`title:${id}:first`, `/threads/${id}/title`, { title });
  }
}

async function respond(item, answer) {
  const id = threadId;
  const reply = await act(`respond:${id}:${item.interaction_id}`, `/threads/${id}/respond`, {
    interaction_id: item.interaction_id,
    answer,
  });
  if (reply) showView(reply);
  return reply !== null;
}

async function stop() {
  if (view === null || !(view.status === "running" || view.status === "waiting")) return;
  const turn = view.current_turn;
  const answer = await act(`cancel:${threadId}:${turn}`, `/threads/${threadId}/cancel`);
  if (answer) showView(answer);
}

// Regenerate: ask again, in this chat, what the stopped turn was asked.
async function regenerate() {
  if (view === null || view.status !== "cancelled") return;
  const asked = view.items.filter((item) => item.kind === "user").pop();
  if (!asked) return;
  const id = threadId;
  const answer = await act(`regenerate:${id}:${view.version}`, `/threads/${id}/messages`, {
    text: asked.text,
  });
  if (answer) {
    following = true;
    lastScrollTop = 0; // the next look at the list must not read as a scroll up
    showView(answer);
  }
}

// Edit and re-send: a fork holding the conversation up to the message before the
// edited one (docs/threads.md T16), with the edited text sent there.
function startEdit(node, item) {
  node.dataset.editing = "true";
  const form = el("form", "edit-form");
  const area = el("textarea");
  area.value = item.text;
  area.rows = Math.min(8, item.text.split("\n").length + 1);
  area.setAttribute("aria-label", "Edited message");
  const save = el("button", "save", "Send in a new chat");
  save.type = "submit";
  const cancel = el("button", "", "Cancel");
  cancel.type = "button";
  const done = () => {
    delete node.dataset.editing;
    const known = rendered.get(item.id);
    if (known) known.signature = null;
    render();
  };
  cancel.addEventListener("click", done);
  area.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.stopPropagation();
      done();
    }
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = area.value.trim();
    if (!text) return;
    save.disabled = true;
    const forked = await resend(item, text);
    if (!forked) {
      save.disabled = false;
      return;
    }
  });
  form.append(area, el("div", "edit-note", "Sent in a fork: a new chat with the conversation up to here."), save, cancel);
  node.replaceChildren(form);
  area.focus();
}

async function resend(item, text) {
  const source = threadId;
  const index = view.items.findIndex((candidate) => candidate.id === item.id);
  const before = view.items
    .slice(0, index)
    .filter((candidate) => !candidate.live && candidate.kind !== "interaction")
    .pop();
  const title = view.title;
  const created = before
    ? await act(`edit:${source}:${item.id}:${text}`, `/threads/${source}/fork`, {
        item_id: before.id,
      })
    : await act(`edit:${source}:${item.id}:${text}`, "/threads", { title });
  if (!created) return false;
  open(created.thread_id);
  await sendText(created.thread_id, text);
  return true;
}

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  send();
});
$("message").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape" || event.defaultPrevented) return;
  if ($("confirm-delete").open) return; // the dialog closes itself
  if (document.body.classList.contains("threads-open")) return showThreads(false);
  stop();
});

$("items").addEventListener("scroll", () => readScroll($("items")));

$("stop").addEventListener("click", stop);
$("regenerate").addEventListener("click", regenerate);

$("retry").addEventListener("click", async () => {
  if (view === null) return;
  const answer = await act(`retry:${threadId}:${view.version}`, `/threads/${threadId}/retry`);
  if (answer) showView(answer);
});

let creating = null;
for (const button of document.querySelectorAll(".new-chat")) {
  button.addEventListener("click", async () => {
    if (creating === null) creating = newKey(); // one new chat per click, however many land
    const answer = await act(`create:${creating}`, "/threads", { title: "" });
    creating = null;
    if (answer) open(answer.thread_id);
  });
}

$("toggle-threads").addEventListener("click", () =>
  showThreads(!document.body.classList.contains("threads-open")),
);
$("backdrop").addEventListener("click", () => showThreads(false));

$("rename").addEventListener("click", () => {
  $("rename-input").value = view ? view.title : "";
  $("rename-form").hidden = false;
  $("title").hidden = true;
  $("rename-input").focus();
});

$("rename-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const title = $("rename-input").value.trim();
  const id = threadId;
  const answer = await act(`title:${id}:${title}`, `/threads/${id}/title`, { title });
  $("rename-form").hidden = true;
  $("title").hidden = false;
  if (answer) showView(answer);
});

$("fork").addEventListener("click", async () => {
  if (view === null) return;
  const settled = view.items.filter(
    (item) => !item.live && item.kind !== "interaction" && item.kind !== "thinking",
  );
  const last = settled[settled.length - 1];
  if (!last) return notice("Nothing to fork yet.");
  const answer = await act(`fork:${threadId}:${last.id}`, `/threads/${threadId}/fork`, {
    item_id: last.id,
  });
  if (answer) open(answer.thread_id);
});

$("delete").addEventListener("click", () => {
  if (threadId === null) return;
  $("confirm-delete-title").textContent = (view && view.title) || "this chat";
  $("confirm-delete").returnValue = "";
  $("confirm-delete").showModal();
});

$("confirm-delete").addEventListener("close", async () => {
  if ($("confirm-delete").returnValue !== "delete") return;
  const id = threadId;
  const answer = await act(`delete:${id}`, `/threads/${id}/delete`);
  if (answer && threadId === id) open(null);
});

// -- start ---------------------------------------------------------------------------

setInterval(renderResume, 500);
followThreads();
open(location.hash.length > 1 ? decodeURIComponent(location.hash.slice(1)) : null);
document.body.dataset.ready = "true";

// The thread's to-do list (ThreadView.todos, a journaled fact): plain text only.
function renderTodos(todos) {
  const items = todos ? todos.items : [];
  $("todos").hidden = items.length === 0;
  $("todo-items").replaceChildren(
    ...items.map((item) => {
      const node = document.createElement("li");
      node.dataset.status = item.status;
      node.dataset.priority = item.priority;
      node.textContent = item.content;
      return node;
    }),
  );
}
