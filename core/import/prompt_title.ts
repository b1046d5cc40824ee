// Titles of imported sessions: the first thing a person asked, not the context their tool
// injected around it.

/** Longest derived title, in characters (an ellipsis marks a cut). */
const TITLE_CHARS = 60;

/** A one-line title from a prompt: its first non-empty line, cut at a word near 60 characters. */
export function titleFrom(text: string): string {
  const line = text.split("\n").map((l) => l.trim()).find((l) => l) ?? "";
  const flat = line.replace(/\s+/g, " ");
  return flat.length <= TITLE_CHARS
    ? flat
    : `${flat.slice(0, TITLE_CHARS).replace(/\s+\S*$/, "")}…`;
}

// Codex CLI and its IDE and desktop clients put context into user messages: the AGENTS.md
// instructions and the environment as messages of their own, and attached files, IDE state or
// browser context above the request, which then follows a "## My request for Codex:" heading.
const REQUEST_HEADING = /^#{1,3} My request(?: for Codex)?:[ \t]*$/m;
const CODEX_PREAMBLES = [
  "# AGENTS.md instructions for",
  "# Context from my IDE setup:",
  "# Files mentioned by the user:",
  "# Files pasted by the user:",
  "# In app browser:",
  "# Browser comments:",
  "## Referenced chats with Codex:",
];

/**
 * What the person typed in a Codex user message: the request under an IDE or desktop
 * preamble, or the message itself; null when the message is only injected context
 * (instructions, `<environment_context>`, other `<…>` blocks, a preamble without a request).
 */
export function codexPrompt(text: string): string | null {
  const t = text.trim();
  if (t === "") return null;
  const heading = REQUEST_HEADING.exec(t);
  if (heading) {
    const request = t.slice(heading.index + heading[0].length).trim();
    return request === "" ? null : request;
  }
  if (t.startsWith("<") || CODEX_PREAMBLES.some((p) => t.startsWith(p))) return null;
  return t;
}

/**
 * The slash command a Claude Code user line records ("/init --force"), from its
 * `<command-name>` and `<command-args>` markup; null when the line is not one.
 */
export function slashCommand(text: string): string | null {
  const name = /<command-name>\s*([^<]*?)\s*<\/command-name>/.exec(text)?.[1];
  if (!name) return null;
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1]?.trim() ?? "";
  const command = name.startsWith("/") ? name : `/${name}`;
  return args ? `${command} ${args.replace(/\s+/g, " ")}` : command;
}

/** The title of a Claude Code session whose only turns are sub-agent warm-ups. */
export const WARMUP_TITLE = "Sub-agent warm-up (no prompt)";

/**
 * The fallback weight (see ImportSink.title) a stored derived title was given, recognised by
 * its form (a slash command, the warm-up title), so that a later import can still replace it
 * with a prompt; 0 for any other title.
 */
export function storedFallback(title: string): number {
  if (title === WARMUP_TITLE) return 3;
  return /^\/[\w:.-]+(?: |$)/.test(title) ? 1 : 0;
}

/** Whether a sub-agent's prompt is Claude Code's cache warm-up rather than a task. */
export function isWarmup(text: string): boolean {
  return text.trim() === "Warmup";
}
