// What a stopped answer had written, kept by the page.
//
// A cancel drops the reply being written (docs/threads.md T22: the draft never
// reaches the journal), so the thread's view no longer has it. The page keeps the
// text it was showing when the reader pressed Stop, per chat and turn, in the tab's
// sessionStorage: it survives a reload of the tab, and is shown marked "stopped"
// after the turn's other items. Another tab or browser does not have it.

const PREFIX = "automata-chat.stopped:";

function load(threadId) {
  try {
    return JSON.parse(sessionStorage.getItem(PREFIX + threadId) || "{}");
  } catch (unreadable) {
    return {};
  }
}

/** The kept answers of `threadId`: a Map of turn id -> items (assistant, thinking). */
export function keptFor(threadId) {
  return new Map(Object.entries(load(threadId)));
}

/** Keep `items` (the live text of `turnId` when it was stopped) for `threadId`. */
export function keep(threadId, turnId, items) {
  const kept = load(threadId);
  kept[turnId] = items;
  try {
    sessionStorage.setItem(PREFIX + threadId, JSON.stringify(kept));
  } catch (full) {
    // storage full or disabled: the text stays shown until the page is left
  }
}

/** The streamed items of `turnId` in `view`, as they would be kept. */
export function streamedItems(view, turnId) {
  return view.items
    .filter(
      (item) =>
        item.live && item.turn_id === turnId && (item.kind === "assistant" || item.kind === "thinking"),
    )
    .map((item) => ({ ...item, live: false }));
}
