// Requests to the server: every action carries a request key made once per user
// action and sent again, unchanged, when the request is retried, so a double click or
// a retry after a lost connection does nothing twice (docs/threads.md T3).

const pendingKeys = new Map();

export function newKey() {
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

/** Show `text` in the page's notice line (empty hides it). */
export function notice(text) {
  document.getElementById("notice").textContent = text;
}

/** POST `body` with the action's request key; retried with the same key while the
 * server cannot be reached or is restarting. Resolves to the JSON answer, or null
 * when the server refused the request (the reason is shown). */
export async function act(action, path, body = {}) {
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
