// A small Markdown renderer that builds DOM nodes, never HTML: whatever the text holds
// (`<script>`, event attributes, `javascript:` links) stays text. It covers what models and
// people write in a coding session: fenced code, headings, lists, quotes, tables, rules,
// emphasis, code spans and links (http, https and mailto only).
import { h } from "./dom.js";

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])\s+/;
const TABLE_SEP = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/** Renders Markdown text into a fragment of safe DOM nodes. */
export function markdown(text) {
  const frag = document.createDocumentFragment();
  blocks(String(text ?? "").replace(/\r\n?/g, "\n").split("\n"), frag);
  return frag;
}

function blocks(lines, out) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const body = [];
      const close = new RegExp(`^ {0,3}${fence[1][0]}{${fence[1].length},}\\s*$`);
      i++;
      while (i < lines.length && !close.test(lines[i])) body.push(lines[i++]);
      i++;
      out.appendChild(codeBlock(body.join("\n"), fence[2]));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      // Headings inside a transcript sit below the page's own (h1, h2).
      const level = Math.min(6, heading[1].length + 2);
      out.appendChild(h(`h${level}`, {}, inline(heading[2])));
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.appendChild(h("hr"));
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body = [];
      while (i < lines.length && QUOTE.test(lines[i])) body.push(lines[i++].replace(QUOTE, ""));
      const quote = h("blockquote");
      blocks(body, quote);
      out.appendChild(quote);
      continue;
    }
    if (ITEM.test(line)) {
      i = list(lines, i, out);
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1])) {
      i = table(lines, i, out);
      continue;
    }
    if (/^( {4}|\t)/.test(line)) {
      const body = [];
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i]) || lines[i].trim() === "")) {
        body.push(lines[i++].replace(/^( {4}|\t)/, ""));
      }
      out.appendChild(codeBlock(body.join("\n").replace(/\n+$/, ""), ""));
      continue;
    }
    const para = [];
    while (
      i < lines.length && lines[i].trim() !== "" && !FENCE.test(lines[i]) &&
      !HEADING.test(lines[i]) && !QUOTE.test(lines[i]) && !RULE.test(lines[i]) &&
      !(para.length > 0 && ITEM.test(lines[i]))
    ) {
      para.push(lines[i++].trim());
    }
    const p = h("p");
    para.forEach((l, n) => {
      if (n > 0) p.appendChild(document.createTextNode("\n"));
      p.appendChild(inline(l));
    });
    out.appendChild(p);
  }
}

function codeBlock(text, lang) {
  const code = h("code", lang ? { class: `language-${lang}` } : {}, text);
  return h("pre", { tabindex: "0", "aria-label": lang ? `${lang} code` : "code" }, code);
}

function list(lines, i, out) {
  const first = ITEM.exec(lines[i]);
  const ordered = /\d/.test(first[2]);
  const el = ordered ? h("ol") : h("ul");
  if (ordered && parseInt(first[2], 10) !== 1) el.setAttribute("start", parseInt(first[2], 10));
  while (i < lines.length) {
    const m = ITEM.exec(lines[i]);
    if (!m || /\d/.test(m[2]) !== ordered) break;
    const indent = m[0].length;
    const body = [lines[i].slice(indent)];
    i++;
    while (i < lines.length) {
      const l = lines[i];
      if (l.trim() === "") {
        if (i + 1 < lines.length && /^\s+/.test(lines[i + 1]) && lines[i + 1].trim() !== "") {
          body.push("");
          i++;
          continue;
        }
        break;
      }
      if (ITEM.test(l) && l.search(/\S/) < indent) break;
      if (!/^\s/.test(l) && (HEADING.test(l) || FENCE.test(l) || QUOTE.test(l))) break;
      body.push(l.replace(new RegExp(`^ {0,${indent}}`), ""));
      i++;
    }
    const li = h("li");
    if (body.length === 1) li.appendChild(inline(body[0]));
    else blocks(body, li);
    el.appendChild(li);
  }
  out.appendChild(el);
  return i;
}

function cells(line) {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split(/(?<!\\)\|/).map((c) =>
    c.trim().replace(/\\\|/g, "|")
  );
}

function table(lines, i, out) {
  const head = cells(lines[i]);
  i += 2;
  const rows = [];
  while (i < lines.length && lines[i].includes("|") && lines[i].trim() !== "") {
    rows.push(cells(lines[i++]));
  }
  out.appendChild(
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, inline(c))))),
        h(
          "tbody",
          {},
          rows.map((r) => h("tr", {}, head.map((_, n) => h("td", {}, inline(r[n] ?? ""))))),
        ),
      ),
    ),
  );
  return i;
}

const INLINE =
  /(`+)([\s\S]*?[^`])\1(?!`)|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__|\*(?=[^\s*])([\s\S]*?[^\s*])\*|(?<![\w])_(?=\S)([\s\S]*?\S)_(?![\w])|~~(?=\S)([\s\S]*?\S)~~|!?\[([^\]]*)\]\(\s*<?([^\s)>]*)>?(?:\s+"[^"]*")?\s*\)|<((?:https?|mailto):[^\s>]+)>|\\([\\`*_{}[\]()#+\-.!|~<>])/;

/** Inline Markdown of one block's text into a fragment. */
export function inline(text) {
  const frag = document.createDocumentFragment();
  let rest = text;
  while (rest) {
    const m = INLINE.exec(rest);
    if (!m) {
      frag.appendChild(document.createTextNode(rest));
      break;
    }
    if (m.index > 0) frag.appendChild(document.createTextNode(rest.slice(0, m.index)));
    frag.appendChild(token(m));
    rest = rest.slice(m.index + m[0].length);
  }
  return frag;
}

function token(m) {
  if (m[1]) return h("code", {}, m[2].replace(/^ (.*) $/, "$1"));
  if (m[3] !== undefined) return h("strong", {}, inline(m[3]));
  if (m[4] !== undefined) return h("strong", {}, inline(m[4]));
  if (m[5] !== undefined) return h("em", {}, inline(m[5]));
  if (m[6] !== undefined) return h("em", {}, inline(m[6]));
  if (m[7] !== undefined) return h("del", {}, inline(m[7]));
  if (m[8] !== undefined) return link(m[8], m[9], m[0].startsWith("!"));
  if (m[10] !== undefined) return link(m[10], m[10], false);
  return document.createTextNode(m[11]);
}

/** A link only to a web or mail address; anything else (javascript:, data:) stays text. */
function link(label, href, image) {
  const url = safeUrl(href);
  const text = label || href;
  if (!url) return document.createTextNode(image ? `[image: ${text}]` : text);
  // Images are not loaded (no network but this server); they become links.
  return h(
    "a",
    { href: url, rel: "noopener noreferrer nofollow", target: "_blank" },
    image ? `[image: ${text}]` : inline(text),
  );
}

/** The URL if it is http(s) or mailto, else null. */
export function safeUrl(href) {
  let url;
  try {
    url = new URL(href, "http://invalid.invalid/");
  } catch {
    return null;
  }
  if (url.origin === "http://invalid.invalid") return null; // relative: means nothing here
  return ["http:", "https:", "mailto:"].includes(url.protocol) ? url.href : null;
}
