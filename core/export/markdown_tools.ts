import { clip, type ClipLimits } from "./clip.ts";
import { codeBlock, escapeInline, inlineCode } from "./markdown_text.ts";

/** How long blocks are rendered: clipped to a head and a tail, or whole. */
export type BlockLimits = ClipLimits | null;

const fmtInt = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** `n` bytes in words: "812 B", "4.2 KB", "1.3 MB". */
function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * A code block of possibly long text: whole, or its start and end with a note of what was left
 * out between them (the database keeps it all).
 */
export function longBlock(text: string, lang: string, limits: BlockLimits): string {
  if (limits === null) return codeBlock(text, lang);
  const c = clip(text, limits);
  if (c.tail === null) return codeBlock(c.head, lang);
  const lines = c.omittedLines === 1 ? "1 line" : `${fmtInt(c.omittedLines)} lines`;
  return [
    codeBlock(c.head, lang),
    `_… ${lines} (${size(c.omittedBytes)}) left out here; the database keeps them all ` +
    `(\`bonsai export --full\` includes them) …_`,
    codeBlock(c.tail, lang),
  ].join("\n\n");
}

/** Argument values shown inline at most this long. */
const INLINE_MAX = 160;

const LANGS: Record<string, string> = {
  ts: "ts",
  tsx: "tsx",
  js: "js",
  jsx: "jsx",
  mjs: "js",
  json: "json",
  py: "python",
  rs: "rust",
  go: "go",
  rb: "ruby",
  java: "java",
  c: "c",
  h: "c",
  cpp: "cpp",
  cs: "csharp",
  sh: "sh",
  bash: "bash",
  md: "markdown",
  html: "html",
  css: "css",
  sql: "sql",
  yaml: "yaml",
  yml: "yaml",
  toml: "toml",
  diff: "diff",
  patch: "diff",
};

/** Argument names whose text is a file's content (highlighted by the file's extension). */
const CONTENT_KEYS = new Set([
  "content",
  "contents",
  "new_string",
  "old_string",
  "new_str",
  "old_str",
  "new_text",
  "old_text",
]);

function langOf(args: Record<string, unknown>, key: string): string {
  if (key === "patch" || key === "diff") return "diff";
  if (!CONTENT_KEYS.has(key)) return "text";
  const path = [args.path, args.file_path, args.filePath].find((p) => typeof p === "string");
  const ext = typeof path === "string" ? /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() : null;
  return (ext && LANGS[ext]) || "text";
}

/**
 * A tool call's arguments: short values as a list, long or multi-line ones as code blocks
 * (file contents highlighted by extension), anything not an object as JSON.
 */
export function renderArgs(raw: string | null, limits: BlockLimits): string[] {
  if (raw === null || raw.trim() === "") return ["_No arguments._"];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // Arguments the model sent as broken JSON are shown as they came.
    return [longBlock(raw, "text", limits)];
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return [longBlock(JSON.stringify(parsed, null, 2), "json", limits)];
  }
  const args = parsed as Record<string, unknown>;
  const entries = Object.entries(args);
  if (entries.length === 0) return ["_No arguments._"];
  const list: string[] = [];
  const blocks: string[] = [];
  for (const [key, value] of entries) {
    const name = `**${escapeInline(key)}:**`;
    const text = typeof value === "string" ? value : JSON.stringify(value);
    if (!text.includes("\n") && text.length <= INLINE_MAX) {
      list.push(`- ${name} ${inlineCode(text)}`);
    } else if (typeof value === "string") {
      blocks.push(name, longBlock(value, langOf(args, key), limits));
    } else {
      blocks.push(name, longBlock(JSON.stringify(value, null, 2), "json", limits));
    }
  }
  return [...(list.length ? [list.join("\n")] : []), ...blocks];
}

/** What a result label says about a call: status, exit code, duration. */
export function callFacts(
  status: string,
  exitCode: number | null,
  durationMs: number | null,
): string {
  const facts = [status];
  if (exitCode !== null) facts.push(`exit ${exitCode}`);
  if (durationMs !== null) facts.push(duration(durationMs));
  return facts.join(", ");
}

/** A duration in words: "850 ms", "2.3 s". */
export function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
