// The chat page: plain JavaScript, no build step.
//
// Everything shown is rendered from the server's views (ThreadView.to_dict()), which
// arrive over server-sent events; the page keeps no state of its own that could
// disagree with them. Every action sends a request key made once per user action and
// sent again when the request is retried, so a double click or a retry after a lost
// connection does nothing twice (docs/threads.md T3).
"use strict";

const $ = (id) => document.getElementById(id);

// -- request keys --------------------------------------------------------------------

const pendingKeys = new Map();

function newKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The key of one user action: the same for every click or retry of that action until
// it has been answered, then forgotten.
function keyFor(action) {
  if (!pendingKeys.has(action)) pendingKeys.set(action, newKey());
  return pendingKeys.get(action);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// POST `body` with the action's request key; retried with the same key while the
// server cannot be reached or is restarting. Resolves to the JSON answer, or null
// when the server refused the request (the reason is shown).
async function act(action, path, body = {}) {
  const payload = JSON.stringify({ ...body, request_key: keyFor(action) });
  for (let attempt = 0; attempt < 40; attempt++) {
    let response;
    try {
      response = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: payload,
      });
    } catch (unreachable) {
      notice("The server is not answering; trying again…");
      await sleep(500);
      continue;
    }
    if (response.status === 503) {
      notice("The server is restarting; trying again…");
      await sleep(500);
      continue;
    }
    pendingKeys.delete(action);
    const answer = await response.json();
    if (!response.ok) {
      notice(answer.message || `the server answered ${response.status}`);
      return null;
    }
    notice("");
    return answer;
  }
  notice("The server did not come back; try again later.");
  return null;
}

function notice(text) {
  $("notice").textContent = text;
}

// -- state ---------------------------------------------------------------------------

let threadId = null; // the open thread
let view = null; // its latest view
let viewSource = null; // its event stream
let listSource = null;
let everConnected = false;

function newer(candidate) {
  if (view === null || view.thread_id !== candidate.thread_id) return true;
  if (candidate.version !== view.version) return candidate.version > view.version;
  return candidate.live >= view.live;
}

function showView(candidate) {
  if (candidate.thread_id !== threadId || !newer(candidate)) return;
  view = candidate;
  render();
}

// -- connection ----------------------------------------------------------------------

let lostAt = null;
let reconnects = 0;

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
  const box = $("connection");
  box.className = "back";
  box.dataset.reconnects = String(++reconnects);
  box.textContent = "Reconnected: showing the chat as the server has it.";
  setTimeout(() => {
    if (lostAt === null) box.hidden = true;
  }, 4000);
}

function followThreads() {
  listSource = new EventSource("/events/threads");
  listSource.addEventListener("threads", (event) => {
    renderThreads(JSON.parse(event.data).threads);
  });
  listSource.onopen = () => {
    if (everConnected) connectionBack();
    everConnected = true;
  };
  listSource.onerror = connectionLost;
}

function open(id) {
  if (viewSource !== null) viewSource.close();
  viewSource = null;
  threadId = id;
  view = null;
  $("message").value = "";
  notice("");
  if (id === null) {
    history.replaceState(null, "", location.pathname);
    render();
    return;
  }
  if (location.hash !== `#${id}`) history.replaceState(null, "", `#${id}`);
  const source = new EventSource(`/threads/${encodeURIComponent(id)}/events`);
  source.addEventListener("view", (event) => showView(JSON.parse(event.data)));
  source.addEventListener("gone", () => {
    source.close();
    if (threadId === id) open(null);
  });
  source.onopen = connectionBack;
  source.onerror = connectionLost;
  viewSource = source;
  render();
}

// -- the thread list -----------------------------------------------------------------

let threads = [];

function renderThreads(list) {
  threads = list;
  const ul = $("threads");
  ul.replaceChildren(
    ...list.map((t) => {
      const li = document.createElement("li");
      li.dataset.id = t.thread_id;
      li.className = t.thread_id === threadId ? "current" : "";
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = t.title || "New chat";
      button.addEventListener("click", () => open(t.thread_id));
      li.append(button);
      if (t.active) {
        const dot = document.createElement("span");
        dot.className = "active-dot";
        dot.title = "working";
        li.append(dot);
      }
      return li;
    }),
  );
}

// -- the conversation ----------------------------------------------------------------

const STATUS_TEXT = {
  idle: "idle",
  running: "running…",
  waiting: "waiting for you",
  done: "done",
  failed: "failed",
  cancelled: "cancelled",
  effect_outcome_unknown: "interrupted",
};

const OUTCOME_TEXT = {
  failed: "The run failed",
  cancelled: "The run was cancelled.",
  effect_outcome_unknown:
    "The server stopped while a tool was running, so whether it took effect is unknown",
};

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function itemNode(item, existing) {
  // thinking keeps its <details> (and whether it is open) as it grows
  if (item.kind === "thinking") {
    const node = existing && existing.dataset.kind === "thinking" ? existing : el("li");
    let fold = node.querySelector("details");
    if (!fold) {
      fold = el("details");
      node.append(fold);
    }
    fold.replaceChildren(
      el("summary", "", item.live ? "Thinking…" : "Thinking"),
      el("div", "text", item.text),
    );
    return node;
  }
  const node = el("li");
  if (item.kind === "user" || item.kind === "assistant") {
    node.append(el("div", "text", item.text));
  } else if (item.kind === "tool_call") {
    const head = el("div", "tool-head");
    head.append(el("span", "tool-name", item.tool_name));
    const input = item.tool_input ? JSON.stringify(item.tool_input) : item.partial_input || "";
    head.append(el("code", "tool-input", input));
    head.append(el("span", `badge ${item.status || "pending"}`, item.status || "writing"));
    node.append(head);
    if (item.result !== null) node.append(el("pre", "tool-result", item.result));
  } else if (item.kind === "interaction") {
    node.append(interactionNode(item));
  }
  return node;
}

function interactionNode(item) {
  const box = el("div", `prompt ${item.status}`);
  box.append(el("div", "question", item.text));
  if (item.status === "pending") {
    if (item.interaction_kind === "approval") {
      const approve = el("button", "approve", "Approve");
      const deny = el("button", "deny", "Deny");
      approve.type = deny.type = "button";
      approve.addEventListener("click", () => respond(item, true));
      deny.addEventListener("click", () => respond(item, false));
      box.append(approve, deny);
    } else {
      const form = el("form", "answer");
      const input = el("input");
      input.setAttribute("aria-label", "Your answer");
      const submit = el("button", "", "Answer");
      form.append(input, submit);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        if (input.value.trim()) respond(item, input.value.trim());
      });
      box.append(form);
    }
  } else if (item.status === "answered") {
    box.append(el("div", "answer-given", answerText(item)));
  } else {
    box.append(el("div", "answer-given", "closed without an answer"));
  }
  return box;
}

function answerText(item) {
  if (item.interaction_kind !== "approval") return `you answered: ${item.result}`;
  return item.result && item.result.startsWith("denied") ? "you denied this" : "you approved this";
}

const rendered = new Map(); // item id -> [signature, node]

function render() {
  $("empty").hidden = threadId !== null;
  $("thread").hidden = threadId === null;
  for (const li of $("threads").children) {
    li.className = li.dataset.id === threadId ? "current" : "";
  }
  if (threadId === null || view === null) {
    $("items").replaceChildren();
    rendered.clear();
    return;
  }
  $("title").textContent = view.title || "New chat";
  $("status").textContent = STATUS_TEXT[view.status] || view.status;
  $("status").dataset.status = view.status;
  const u = view.usage;
  const cached = u.cache_read_tokens + u.cache_write_tokens;
  $("usage").textContent =
    `${u.input_tokens} in · ${u.output_tokens} out` + (cached ? ` · ${cached} cached` : "") + " tokens";

  const list = $("items");
  const keep = new Set();
  let previous = null;
  for (const item of view.items) {
    keep.add(item.id);
    const signature = JSON.stringify(item);
    const known = rendered.get(item.id);
    let node = known ? known[1] : null;
    if (!known || known[0] !== signature) {
      const fresh = itemNode(item, node);
      fresh.dataset.id = item.id;
      fresh.dataset.kind = item.kind;
      fresh.className = `item ${item.kind}` + (item.live ? " live" : "");
      if (node && node !== fresh) node.replaceWith(fresh);
      node = fresh;
      rendered.set(item.id, [signature, node]);
    }
    const wanted = previous ? previous.nextSibling : list.firstChild;
    if (wanted !== node) list.insertBefore(node, wanted);
    previous = node;
  }
  for (const [id, [, node]] of rendered) {
    if (!keep.has(id)) {
      node.remove();
      rendered.delete(id);
    }
  }

  const outcome = OUTCOME_TEXT[view.status];
  $("outcome").hidden = !outcome;
  $("outcome").dataset.status = view.status;
  $("outcome-text").textContent = outcome
    ? outcome + (view.error && view.status !== "cancelled" ? `: ${view.error}` : outcome.endsWith(".") ? "" : ".")
    : "";
  $("retry").hidden = !(view.status === "failed" || view.status === "effect_outcome_unknown");
  $("cancel").disabled = !(view.status === "running" || view.status === "waiting");

  $("queue").replaceChildren(
    ...view.queue.map((queued) => {
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
    }),
  );
  list.scrollTop = list.scrollHeight;
}

// -- actions -------------------------------------------------------------------------

async function send() {
  const text = $("message").value.trim();
  if (!text || threadId === null) return;
  const id = threadId;
  const untitled = view !== null && !view.title && view.items.length === 0;
  const answer = await act(`send:${id}:${text}`, `/threads/${id}/messages`, { text });
  if (answer === null) return;
  if (threadId === id && $("message").value.trim() === text) $("message").value = "";
  showView(answer);
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
}

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  send();
});
$("message").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    send();
  }
});

$("cancel").addEventListener("click", async () => {
  if (view === null) return;
  const answer = await act(`cancel:${threadId}:${view.current_turn}`, `/threads/${threadId}/cancel`);
  if (answer) showView(answer);
});

$("retry").addEventListener("click", async () => {
  if (view === null) return;
  const answer = await act(`retry:${threadId}:${view.version}`, `/threads/${threadId}/retry`);
  if (answer) showView(answer);
});

let creating = null;
$("new-thread").addEventListener("click", async () => {
  if (creating === null) creating = newKey(); // one new chat per click, however many clicks land
  const answer = await act(`create:${creating}`, "/threads", { title: "" });
  creating = null;
  if (answer) open(answer.thread_id);
});

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

$("delete").addEventListener("click", async () => {
  const id = threadId;
  const answer = await act(`delete:${id}`, `/threads/${id}/delete`);
  if (answer && threadId === id) open(null);
});

// -- start ---------------------------------------------------------------------------

followThreads();
open(location.hash.length > 1 ? decodeURIComponent(location.hash.slice(1)) : null);
