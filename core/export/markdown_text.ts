// Markdown building blocks that stored text cannot break out of: fenced code whose fence is
// longer than any backtick run inside, inline code spans, escaped one-line text, and prose
// (a model's Markdown) with raw HTML neutralised and any fence it left open closed.

// deno-lint-ignore no-control-regex
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
// C0 and C1 controls other than tab and newline, DEL, and lone surrogates.
// deno-lint-ignore no-control-regex
const C0_C1 = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const CONTROLS = new RegExp(`${C0_C1.source}|${LONE_SURROGATE.source}`, "g");

/**
 * Text as a file should hold it: line endings as `\n`, terminal colour codes removed, other
 * control characters (and broken surrogate halves) shown as U+FFFD.
 */
export function cleanText(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(ANSI, "")
    .replace(CONTROLS, "\ufffd");
}

/** The longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/**
 * A fenced code block holding `text` verbatim (cleaned): its backtick fence is longer than
 * any backtick run in the text, so no line of it can close the block.
 */
export function codeBlock(text: string, lang = ""): string {
  const body = cleanText(text);
  const fence = "`".repeat(Math.max(3, longestRun(body, "`") + 1));
  const info = lang.replace(/[`\s]/g, "");
  return `${fence}${info}\n${body}${body.endsWith("\n") || body === "" ? "" : "\n"}${fence}`;
}

/** An inline code span holding one line of text verbatim (cleaned, newlines as spaces). */
export function inlineCode(text: string): string {
  const body = cleanText(text).replace(/\n/g, " ");
  if (body === "") return "` `";
  const ticks = "`".repeat(longestRun(body, "`") + 1);
  // A span that starts or ends with a backtick (or a space) needs padding, which is stripped.
  const pad = /^[` ]|[` ]$/.test(body) && body.trim() !== "" ? " " : "";
  return `${ticks}${pad}${body}${pad}${ticks}`;
}

/**
 * One line of plain text that renders as itself: whitespace collapsed, every character
 * Markdown could read as syntax or HTML backslash-escaped.
 */
export function escapeInline(text: string): string {
  return cleanText(text)
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\\`*_[\]<>|~&]/g, (c) => `\\${c}`)
    // What starts a heading, list item or block quote only at the start of a line.
    .replace(/^(\d+)([.)])/, "$1\\$2")
    .replace(/^([-+=#])/, "\\$1");
}

const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;

/** A fence line's character and length if `line` closes a block opened by `open`. */
function closes(line: string, open: { char: string; length: number }): boolean {
  const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return m !== null && m[1]![0] === open.char && m[1]!.length >= open.length;
}

/**
 * A model's (or person's) Markdown, kept as Markdown but contained: raw HTML outside code is
 * escaped (the export's only HTML is its own), and a code fence left open is closed so the
 * rest of the document is not swallowed.
 */
export function containedMarkdown(text: string): string {
  const lines = cleanText(text).replace(/^\n+|\s+$/g, "").split("\n");
  const out: string[] = [];
  let open: { char: string; length: number } | null = null;
  for (const line of lines) {
    if (open) {
      out.push(line);
      if (closes(line, open)) open = null;
      continue;
    }
    const m = FENCE_OPEN.exec(line);
    // A backtick fence's info string may not hold a backtick (CommonMark).
    if (m && !(m[2]![0] === "`" && m[3]!.includes("`"))) {
      open = { char: m[2]![0]!, length: m[2]!.length };
      out.push(line);
      continue;
    }
    out.push(escapeHtml(line));
  }
  if (open) out.push(open.char.repeat(open.length));
  return out.join("\n");
}

const AUTOLINK = /^<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>/;

/** Escapes `<` that could open an HTML tag, comment or declaration, outside code spans. */
function escapeHtml(line: string): string {
  let out = "";
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === "`") {
      let n = 1;
      while (line[i + n] === "`") n++;
      const ticks = "`".repeat(n);
      let close = line.indexOf(ticks, i + n);
      while (close >= 0 && line[close + n] === "`") {
        // A longer run is not the closing one; look past it.
        let m = n;
        while (line[close + m] === "`") m++;
        close = line.indexOf(ticks, close + m);
      }
      if (close < 0) {
        out += ticks;
        i += n;
        continue;
      }
      out += line.slice(i, close + n);
      i = close + n;
      continue;
    }
    if (c === "\\" && i + 1 < line.length) {
      out += line.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === "<") {
      const link = AUTOLINK.exec(line.slice(i));
      if (link) {
        out += link[0];
        i += link[0].length;
        continue;
      }
      if (/[A-Za-z/!?]/.test(line[i + 1] ?? "")) {
        out += "\\<";
        i++;
        continue;
      }
    }
    out += c;
    i++;
  }
  return out;
}
