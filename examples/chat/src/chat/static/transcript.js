// The conversation's items, drawn into the <li> nodes the page keeps for them.
//
// `rows(view)` says what to show: the view's items, with an approval folded into the
// card of the call it gates, an `ask_user` call shown as its question only, and the
// text a cancel kept of a stopped answer (status `stopped`, docs/threads.md T26)
// marked as such.
// `fill(node, row, actions)` draws one row into its node; the page calls it only for
// rows whose content changed, and always into the same node, so finished items keep
// their DOM nodes (and a reader's selection or open fold) while an answer streams.
// Everything a model, a tool or a user wrote goes in as text (textContent) or through
// renderMarkdown (sanitized); nothing is ever set as raw HTML.

import { renderMarkdown } from "./markdown.js";

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(className, text, onClick) {
  const node = el("button", className, text);
  node.type = "button";
  node.addEventListener("click", onClick);
  return node;
}

/** The rows to draw for `view`: [{id, item, approval, hidden, stopped}], in order. */
export function rows(view) {
  const byCall = new Map();
  for (const item of view.items) {
    if (item.kind === "interaction" && item.call_id) byCall.set(item.call_id, item);
  }
  const out = [];
  for (const item of view.items) {
    const asked = item.kind === "tool_call" ? byCall.get(item.call_id) : undefined;
    out.push({
      id: item.id,
      item,
      approval: asked && asked.interaction_kind === "approval" ? asked : null,
      hidden:
        (item.kind === "interaction" && item.interaction_kind === "approval") ||
        (item.kind === "tool_call" && asked !== undefined && asked.interaction_kind !== "approval"),
      stopped: item.status === "stopped",
    });
  }
  return out;
}

export function signature(row) {
  return JSON.stringify(row);
}

/** Draw `row` into `node` (an <li>), replacing what it showed. */
export function fill(node, row, actions) {
  const { item } = row;
  node.dataset.id = row.id;
  node.dataset.kind = item.kind;
  node.className =
    `item ${item.kind}` + (item.live ? " live" : "") + (row.stopped ? " stopped" : "");
  node.hidden = row.hidden;
  if (row.hidden) {
    node.replaceChildren();
  } else if (item.kind === "thinking") {
    fillThinking(node, item);
  } else if (item.kind === "user") {
    node.replaceChildren(el("div", "text", item.text));
    if (actions.canEdit(item)) {
      node.append(button("edit", "Edit", () => actions.edit(node, item)));
    }
  } else if (item.kind === "assistant") {
    const body = el("div", "text markdown");
    body.append(renderMarkdown(item.text));
    node.replaceChildren(body);
    if (row.stopped) node.append(el("div", "stopped-note", "stopped: the answer so far"));
  } else if (item.kind === "tool_call") {
    node.replaceChildren(toolCard(item, row.approval, actions));
  } else if (item.kind === "interaction") {
    node.replaceChildren(questionBox(item));
  }
}

function fillThinking(node, item) {
  // keeps its <details> (and whether the reader opened it) as it grows
  let fold = node.querySelector(":scope > details");
  if (!fold) {
    node.replaceChildren();
    fold = el("details");
    node.append(fold);
  }
  fold.replaceChildren(
    el("summary", "", item.live ? "Thinking…" : "Thinking"),
    el("div", "text", item.text),
  );
}

/** A call's arguments, one row each: strings as they are, the rest as indented JSON. */
function argumentList(input) {
  const list = el("dl", "tool-args");
  for (const [name, value] of Object.entries(input)) {
    list.append(el("dt", "", name));
    list.append(el("dd", "", typeof value === "string" ? value : JSON.stringify(value, null, 2)));
  }
  return list;
}

function toolCard(item, approval, actions) {
  const card = el("div", "tool-card");
  const head = el("div", "tool-head");
  head.append(el("span", "tool-name", item.tool_name));
  const waiting = approval && approval.status === "pending";
  const badge = waiting ? "needs approval" : item.status || "writing";
  head.append(el("span", `badge ${waiting ? "approval" : item.status || "pending"}`, badge));
  card.append(head);
  if (item.tool_input && Object.keys(item.tool_input).length) {
    card.append(argumentList(item.tool_input));
  } else if (item.partial_input) {
    card.append(el("pre", "tool-partial", item.partial_input));
  }
  if (item.activity) card.append(activityBox(item.activity));
  if (approval) card.append(approvalBox(approval, actions));
  if (item.result !== null && item.result !== undefined) {
    card.append(el("pre", "tool-result", item.result));
  }
  return card;
}

/** What the call shows a person (docs/threads.md AC1): its label, rows and status,
 * live while it runs. Every row goes in as text, markdown and code included: it is
 * display data a tool wrote, never markup the page runs. */
function activityBox(activity) {
  const box = el("div", "activity");
  if (activity.label) box.append(el("div", "activity-label", activity.label));
  if (activity.dropped) box.append(el("div", "activity-dropped", `${activity.dropped} earlier rows`));
  for (const row of activity.rows || []) {
    const node = el(row.kind === "text" ? "div" : "pre", `activity-row ${row.kind}`, row.text);
    node.dataset.kind = row.kind;
    box.append(node);
  }
  if (activity.operation) {
    const targets = activity.operation.targets.join(", ");
    box.append(el("div", "activity-operation", `${activity.operation.action}: ${targets}`));
  }
  if (activity.status) box.append(el("div", "activity-status", activity.status));
  return box;
}

function approvalBox(approval, actions) {
  const box = el("div", `approval ${approval.status}`);
  box.dataset.interaction = approval.interaction_id;
  if (approval.status === "pending") {
    box.append(el("span", "question", `Allow ${approval.tool_name} with these arguments?`));
    box.append(
      button("approve", "Approve", () => actions.respond(approval, true)),
      button("deny", "Deny", () => actions.respond(approval, false)),
    );
  } else if (approval.status === "answered") {
    const denied = approval.result && approval.result.startsWith("denied");
    box.append(el("span", "answer-given", denied ? "you denied this" : "you approved this"));
  } else {
    box.append(el("span", "answer-given", "closed without an answer"));
  }
  return box;
}

function questionBox(item) {
  const box = el("div", `prompt ${item.status}`);
  box.append(el("div", "question", item.text));
  if (item.status === "pending") {
    box.append(el("div", "where", "Answer in the message box below."));
  } else if (item.status === "answered") {
    box.append(el("div", "answer-given", `you answered: ${item.result}`));
  } else {
    box.append(el("div", "answer-given", "closed without an answer"));
  }
  return box;
}
