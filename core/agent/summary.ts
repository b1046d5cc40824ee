import type { ChatMessage, ContentBlock } from "../providers/types.ts";
import type { Plan } from "../session/runtime.ts";

/** Lines of each kind a summary keeps (the newest), so it stays small on long sessions. */
const LIMITS = { requests: 40, decisions: 30, errors: 15, commands: 30, files: 60 };

/**
 * A deterministic rule-based summary of a stretch of conversation (X6), built only from the
 * stored messages: who asked what, files read and changed, commands, decisions, errors.
 * The first user instruction is kept verbatim: standing instructions are never summarised away.
 */
export function ruleSummary(
  messages: readonly ChatMessage[],
  range: { from: number; to: number },
): string {
  const requests: string[] = [];
  const decisions: string[] = [];
  const errors: string[] = [];
  const commands: string[] = [];
  const read = new Set<string>();
  const changed = new Map<string, number>();
  let firstInstruction: string | null = null;
  const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  for (const m of messages) {
    for (const b of m.content as ContentBlock[]) {
      if (m.role === "user" && b.type === "text") {
        firstInstruction ??= b.text;
        requests.push(oneLine(b.text, 200));
      } else if (m.role === "assistant" && b.type === "text") {
        const sentence = firstSentence(b.text);
        if (sentence) decisions.push(sentence);
      } else if (b.type === "tool_call") {
        const input = (b.input && typeof b.input === "object" ? b.input : {}) as Record<
          string,
          unknown
        >;
        calls.set(b.id, { name: b.name, input });
        const path = typeof input.path === "string" ? input.path : null;
        if (b.name === "read" && path) read.add(path);
        if ((b.name === "write" || b.name === "edit") && path) {
          changed.set(path, (changed.get(path) ?? 0) + 1);
        }
      } else if (b.type === "tool_result") {
        const call = calls.get(b.toolCallId);
        if (call?.name === "exec" && typeof call.input.command === "string") {
          const exit = /\[exit code (\d+)\]\s*$/.exec(b.content)?.[1];
          commands.push(
            `\`${oneLine(call.input.command, 100)}\`${
              exit !== undefined ? ` (exit ${exit})` : b.isError ? " (failed)" : ""
            }`,
          );
        }
        if (b.isError) errors.push(`${call?.name ?? "tool"}: ${oneLine(b.content, 160)}`);
      }
    }
  }
  const out = [
    `[Summary of the earlier conversation — context items ${range.from}–${range.to}, summarised by bonsai's rules. The full history is kept in the session; use recall to search it.]`,
  ];
  if (firstInstruction !== null) {
    out.push("", "The user's first instruction (verbatim):", firstInstruction);
  }
  section(out, "What the user asked, in order", requests, LIMITS.requests, true);
  if (read.size) section(out, "Files read", [[...read].join(", ")], 1);
  if (changed.size) {
    section(out, "Files changed", [
      [...changed].map(([p, n]) => (n > 1 ? `${p} (${n} changes)` : p)).join(", "),
    ], 1);
  }
  section(out, "Commands run", commands, LIMITS.commands);
  section(out, "What the assistant concluded or decided", decisions, LIMITS.decisions);
  section(out, "Errors", errors, LIMITS.errors);
  return out.join("\n");
}

/** The current plan and todos as text for the model (never summarised away). */
export function planBlock(plan: Plan): string | null {
  if (plan.plan === null && plan.todos.length === 0) return null;
  const lines = ["[Current plan and todos — kept by bonsai across summaries]"];
  if (plan.plan) lines.push(plan.plan);
  for (const t of plan.todos) {
    lines.push(
      `- [${t.status === "completed" ? "x" : t.status === "in_progress" ? "~" : " "}] ${t.content}`,
    );
  }
  return lines.join("\n");
}

function section(
  out: string[],
  title: string,
  items: string[],
  limit: number,
  numbered = false,
): void {
  if (items.length === 0) return;
  const kept = items.slice(-limit);
  const skipped = items.length - kept.length;
  out.push("", `${title}:`);
  if (skipped > 0) out.push(`(${skipped} earlier entries left out)`);
  kept.forEach((item, i) => out.push(numbered ? `${skipped + i + 1}. ${item}` : `- ${item}`));
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function firstSentence(text: string): string | null {
  const flat = text.replace(/\s+/g, " ").trim();
  if (!flat) return null;
  const end = flat.search(/[.!?](\s|$)/);
  return oneLine(end >= 0 ? flat.slice(0, end + 1) : flat, 160);
}

/** One line describing a finished episode: its first request, files changed, last conclusion. */
export function episodeSummary(messages: readonly ChatMessage[]): string {
  let request: string | null = null;
  let conclusion: string | null = null;
  const changed = new Set<string>();
  for (const m of messages) {
    for (const b of m.content as ContentBlock[]) {
      if (m.role === "user" && b.type === "text") request ??= oneLine(b.text, 120);
      if (m.role === "assistant" && b.type === "text") {
        conclusion = firstSentence(b.text) ?? conclusion;
      }
      if (b.type === "tool_call" && (b.name === "write" || b.name === "edit")) {
        const path = (b.input as { path?: unknown } | null)?.path;
        if (typeof path === "string") changed.add(path);
      }
    }
  }
  const parts = [
    request ? `Asked: ${request}` : null,
    changed.size
      ? `Changed: ${[...changed].slice(0, 8).join(", ")}${changed.size > 8 ? ", ..." : ""}`
      : null,
    conclusion ? `Last: ${conclusion}` : null,
  ].filter((p) => p !== null);
  return parts.join(" | ") || "(no messages)";
}
