// What an imported tool call returned, as people read it, and whether it failed.
//
// Codex CLI writes a tool's output in several shapes over its versions:
// - a plain string, for `shell_command` "Exit code: 1\nWall time: 0.2 seconds\nOutput:\n…" and
//   for `exec_command`/`write_stdin` "Chunk ID: …\nWall time: …\nProcess exited with code 2\n
//   Original token count: …\nOutput:\n…" (or "Process running with session ID 7" while the
//   command goes on);
// - a JSON string {"output": "…", "metadata": {"exit_code": 0, "duration_seconds": 0.1}} from
//   the older `shell` tool;
// - an array of content items [{"type": "input_text", "text": "…"}, {"type": "input_image",
//   …}] from MCP tools, web search and image views.

/** The text of a tool output: a string as is, content items joined, the old shell JSON rendered. */
export function toolOutputText(output: unknown): string {
  if (typeof output === "string") return renderShellJson(output) ?? output;
  if (Array.isArray(output)) return output.map(itemText).filter((t) => t !== "").join("\n");
  if (output && typeof output === "object") {
    const o = output as Record<string, unknown>;
    if (typeof o.content === "string") return o.content;
    if (Array.isArray(o.content)) return toolOutputText(o.content);
  }
  return output === undefined || output === null ? "" : JSON.stringify(output);
}

function itemText(item: unknown): string {
  if (typeof item === "string") return item;
  if (!item || typeof item !== "object") return "";
  const i = item as Record<string, unknown>;
  if (typeof i.text === "string") return i.text;
  if (typeof i.type === "string" && i.type.includes("image")) return "[image]";
  return "";
}

/**
 * The older shell tool's JSON output as Codex itself shows it to the model ("Exit code: 0\n
 * Wall time: 0.1 seconds\nOutput:\n…"), or null when `text` is not that JSON.
 */
function renderShellJson(text: string): string | null {
  if (!text.startsWith("{")) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const p = parsed as { output?: unknown; metadata?: Record<string, unknown> } | null;
  if (!p || typeof p.output !== "string" || !p.metadata || typeof p.metadata !== "object") {
    return null;
  }
  const code = p.metadata.exit_code;
  const seconds = p.metadata.duration_seconds;
  const lines: string[] = [];
  if (typeof code === "number") lines.push(`Exit code: ${code}`);
  if (typeof seconds === "number") lines.push(`Wall time: ${seconds} seconds`);
  return [...lines, "Output:", p.output].join("\n");
}

const EXIT_LINE = /^(?:Exit code:|Process exited with code)\s*(-?\d+)\s*$/m;
const EXIT_JSON = /"exit_code"\s*:\s*(-?\d+)/;

/**
 * The exit code a tool output reports, or null when it reports none (a command still
 * running, a file read, a search). Only the header before "Output:" is read, so a program's
 * own output that mentions an exit code does not count.
 */
export function exitCodeOf(text: string): number | null {
  if (text.startsWith("{")) {
    const json = EXIT_JSON.exec(text.slice(0, 4096));
    if (json) return Number(json[1]);
  }
  const cut = text.search(/^Output:\s*$/m);
  const header = cut >= 0 ? text.slice(0, cut) : text.split("\n", 8).join("\n");
  const match = EXIT_LINE.exec(header);
  return match ? Number(match[1]) : null;
}
