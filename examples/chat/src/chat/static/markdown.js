// Markdown from a model, made safe to show: parsed by marked, sanitized by DOMPurify,
// code highlighted by highlight.js (all three served from /static/vendor; see the
// README for their versions and licences).
//
// What a model or a tool wrote never runs and never reaches out:
// - raw HTML in the markdown is shown as text (`<script>` reads as `<script>`);
// - DOMPurify then removes whatever could still run (event handlers, scripts, styles,
//   forms) as a second line;
// - a link keeps its address only when it is http(s) or mailto (a `javascript:` link
//   is left as plain text) and opens in a new tab with rel="noopener noreferrer";
// - an image is never loaded: it is shown as a note with its description and address;
// - the page's Content-Security-Policy forbids inline and foreign scripts besides.

const { Marked } = window.marked;
const DOMPurify = window.DOMPurify;
const hljs = window.hljs;

const SAFE_URL = /^(?:https?:|mailto:)/i;

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const parser = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    // raw HTML (block or inline) is text, never markup
    html(token) {
      return escapeHtml(token.text);
    },
  },
});

// Images lose their address before the sanitized tree exists (so nothing is fetched,
// and the CSP is never asked to block anything); links are checked and made to open
// in a new tab.
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.nodeName === "IMG") {
    node.setAttribute("data-src", node.getAttribute("src") || "");
    node.removeAttribute("src");
    node.removeAttribute("srcset");
  } else if (node.nodeName === "A") {
    const href = node.getAttribute("href") || "";
    if (!SAFE_URL.test(href.trim())) {
      node.removeAttribute("href");
    } else {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    }
  }
});

const PURIFY = {
  RETURN_DOM_FRAGMENT: true,
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "svg", "math"],
  FORBID_ATTR: ["style"],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
};

hljs.configure({ ignoreUnescapedHTML: true });

function blockedImage(img) {
  const note = document.createElement("span");
  note.className = "blocked-image";
  const alt = img.getAttribute("alt") || "image";
  const src = img.getAttribute("data-src") || "";
  note.textContent = `[${alt}: not loaded${src ? ` (${src})` : ""}]`;
  return note;
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "offscreen";
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("copy refused");
}

function codeBlock(pre) {
  const code = pre.querySelector("code");
  const wrap = document.createElement("div");
  wrap.className = "code-block";
  const bar = document.createElement("div");
  bar.className = "code-bar";
  const match = code ? /language-([\w+#.-]+)/.exec(code.className) : null;
  const language = match ? match[1] : "";
  const label = document.createElement("span");
  label.className = "code-language";
  label.textContent = language || "text";
  const copy = document.createElement("button");
  copy.type = "button";
  copy.className = "copy";
  copy.textContent = "Copy";
  copy.setAttribute("aria-label", "Copy the code");
  copy.addEventListener("click", async () => {
    try {
      await copyText((code || pre).textContent.replace(/\n$/, ""));
      copy.textContent = "Copied";
      copy.dataset.copied = "true";
    } catch (refused) {
      copy.textContent = "Copy failed";
      copy.dataset.copied = "false";
    }
    setTimeout(() => {
      copy.textContent = "Copy";
      delete copy.dataset.copied;
    }, 2000);
  });
  bar.append(label, copy);
  pre.replaceWith(wrap);
  wrap.append(bar, pre);
  if (code && language && hljs.getLanguage(language)) {
    code.className = `language-${language}`;
    hljs.highlightElement(code);
  }
}

/** The markdown `text` as a safe DocumentFragment of the page's document. */
export function renderMarkdown(text) {
  const html = parser.parse(text);
  const fragment = DOMPurify.sanitize(html, PURIFY);
  for (const img of fragment.querySelectorAll("img")) img.replaceWith(blockedImage(img));
  for (const table of fragment.querySelectorAll("table")) {
    const scroller = document.createElement("div");
    scroller.className = "table-wrap";
    table.replaceWith(scroller);
    scroller.append(table);
  }
  for (const pre of fragment.querySelectorAll("pre")) codeBlock(pre);
  return fragment;
}
