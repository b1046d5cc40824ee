import type { Compaction } from "../storage/compactions.ts";
import type { Message } from "../storage/messages.ts";
import type { VerificationRun } from "../storage/verification_runs.ts";
import { DEFAULT_CLIP } from "./clip.ts";
import type { ExportDocument } from "./export_document.ts";
import { codeBlock, containedMarkdown, escapeInline, inlineCode } from "./markdown_text.ts";
import { type BlockLimits, callFacts, duration, longBlock, renderArgs } from "./markdown_tools.ts";

/** How an export renders. */
export interface MarkdownOptions {
  /** Keep every long tool output, argument and diff whole (default: start and end only). */
  readonly full?: boolean;
}

/** An ISO 8601 UTC time to the second. */
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const fmtInt = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
const plural = (n: number, one: string, many = `${one}s`) => `${fmtInt(n)} ${n === 1 ? one : many}`;

const SOURCES: Record<string, string> = {
  "bonsai": "bonsai",
  "claude-code": "imported from Claude Code",
  "codex": "imported from Codex",
};

/** Something recorded beside the transcript, placed in it by time. */
type SideEvent =
  | { readonly at: number; readonly type: "compaction"; readonly c: Compaction }
  | { readonly at: number; readonly type: "verification"; readonly v: VerificationRun };

/**
 * A session as Markdown (X5): a header (id, title, project, model, times, message count,
 * usage), every transcript entry in order with compactions and verification runs placed by
 * time, and a footer saying the file is a read-only snapshot. Pure: the same document always
 * gives the same text. The only HTML is the `<details>` block around thinking; stored text
 * cannot open HTML or break out of its code fence.
 */
export function renderMarkdown(doc: ExportDocument, options: MarkdownOptions = {}): string {
  const limits: BlockLimits = options.full ? null : DEFAULT_CLIP;
  const blocks: string[] = [...header(doc)];
  const events: SideEvent[] = [
    ...doc.compactions.map((c) => ({ at: c.createdAt, type: "compaction" as const, c })),
    ...doc.verification.map((v) => ({ at: v.createdAt, type: "verification" as const, v })),
  ].sort((a, b) => a.at - b.at);
  const answered = new Set(
    doc.messages.filter((m) => m.kind === "tool_result" && m.toolCallId).map((m) => m.toolCallId),
  );
  let inAssistant = false;
  let next = 0;
  for (const m of doc.messages) {
    while (next < events.length && events[next]!.at < m.createdAt) {
      blocks.push(...sideEvent(events[next++]!, limits));
      inAssistant = false;
    }
    const prose = m.role === "assistant" && (m.kind === "text" || m.kind === "thinking");
    if (prose && !inAssistant) blocks.push(`### Assistant · ${iso(m.createdAt)}`);
    inAssistant = prose;
    blocks.push(...entry(doc, m, limits, answered));
  }
  for (const e of events.slice(next)) blocks.push(...sideEvent(e, limits));
  blocks.push(...footer(doc));
  return `${blocks.join("\n\n")}\n`;
}

function header(doc: ExportDocument): string[] {
  const s = doc.session;
  const t = doc.totals;
  const status = s.endReason ? `${s.status} (${s.endReason})` : s.status;
  const model = [s.provider, s.model].filter(Boolean).join(" / ") || "unknown";
  const fields = [
    ["Session", inlineCode(s.id)],
    ["Project", inlineCode(s.projectPath)],
    ["Source", SOURCES[s.source] ?? escapeInline(s.source)],
    ["Status", escapeInline(status)],
    [
      "Model",
      `${escapeInline(model)}${s.reasoning ? ` (reasoning ${escapeInline(s.reasoning)})` : ""}`,
    ],
  ];
  const used = doc.models.filter((u) => u.model !== s.model || u.lane !== "parent");
  if (used.length > 0) {
    fields.push([
      "Models used",
      doc.models.map((u) =>
        `${escapeInline(u.model)} (${u.lane === "parent" ? "" : `${escapeInline(u.lane)}, `}${
          plural(u.turns, "response")
        })`
      ).join("; "),
    ]);
  }
  fields.push(
    ["Created", iso(s.createdAt)],
    ["Updated", iso(s.contentUpdatedAt)],
    ["Messages", fmtInt(doc.messages.length)],
    ["Usage", usage(doc)],
  );
  if (s.parentId) fields.push(["Parent session", inlineCode(s.parentId)]);
  if (t.attempts > t.turns) {
    fields.push(["Failed attempts", fmtInt(t.attempts - t.turns)]);
  }
  return [
    `# ${escapeInline(s.title) || "Untitled"}`,
    fields.map(([k, v]) => `- **${k}:** ${v}`).join("\n"),
    "---",
  ];
}

function usage(doc: ExportDocument): string {
  const t = doc.totals;
  if (t.attempts === 0) return "no model responses recorded";
  const tokens = t.inputTokens + t.outputTokens + t.cacheReadTokens + t.cacheWriteTokens;
  const parts = [
    `input ${fmtInt(t.inputTokens)}`,
    `output ${fmtInt(t.outputTokens)}`,
    `cache read ${fmtInt(t.cacheReadTokens)}`,
    `cache write ${fmtInt(t.cacheWriteTokens)}`,
  ];
  if (t.reasoningTokens > 0) parts.push(`reasoning ${fmtInt(t.reasoningTokens)}`);
  const usd = `$${t.costUsd.toFixed(4)}`;
  const cost = t.unpricedAttempts > 0
    ? `at least ${usd} (${plural(t.unpricedAttempts, "response")} without a known price)`
    : usd;
  const estimated = t.inexactAttempts > 0
    ? ` (usage estimated for ${plural(t.inexactAttempts, "response")})`
    : "";
  return `${plural(t.turns, "response")} · ${plural(tokens, "token")} (${
    parts.join(", ")
  })${estimated} · ${cost}`;
}

function footer(doc: ExportDocument): string[] {
  const s = doc.session;
  return [
    "---",
    `_Read-only snapshot of session ${inlineCode(s.id)} as stored at ${
      iso(s.contentUpdatedAt)
    }. bonsai's database is the authority: changes to this file are not read back. ` +
    `Run ${inlineCode(`bonsai export ${s.id}`)} to write it again._`,
  ];
}

/** " · cancelled" for an entry that did not complete. */
function statusNote(m: Message): string {
  switch (m.status) {
    case "complete":
      return "";
    case "streaming":
      return " · incomplete (still being written)";
    default:
      return ` · ${m.status}`;
  }
}

function entry(
  doc: ExportDocument,
  m: Message,
  limits: BlockLimits,
  answered: ReadonlySet<string | null>,
): string[] {
  const note = statusNote(m);
  switch (m.kind) {
    case "text":
      if (m.role === "user") return [`## User · ${iso(m.createdAt)}${note}`, body(m.text)];
      if (m.role === "assistant") return note ? [`_Reply${note}_`, body(m.text)] : [body(m.text)];
      return labelled(m.role === "system" ? "Notice" : "Tool", m, note);
    case "thinking":
      return [
        `<details>\n<summary>Thinking${note}</summary>`,
        m.text.trim() ? containedMarkdown(m.text) : "_No thinking text was recorded._",
        "</details>",
      ];
    case "tool_call":
      return toolCall(doc, m, limits, answered, note);
    case "tool_result":
      return toolResult(doc, m, limits);
    case "permission":
      return [`**Permission:** ${escapeInline(m.text)}`];
    case "error":
      return labelled("Error", m, note);
    case "notice":
      return labelled("Notice", m, note);
    case "summary":
      return [`### Summary of earlier turns · ${iso(m.createdAt)}`, quote(m.text)];
  }
}

/** A model's or person's Markdown, contained; "(empty)" when there is none. */
function body(text: string): string {
  return text.trim() ? containedMarkdown(text) : "_(empty)_";
}

/** A block quote of contained Markdown (a fence left open ends with the quote). */
function quote(text: string): string {
  return body(text).split("\n").map((l) => (l ? `> ${l}` : ">")).join("\n");
}

/** `**Error:** text` on one line, or a label over a code block for text of several lines. */
function labelled(label: string, m: Message, note: string): string[] {
  const text = m.text.trim();
  if (!text.includes("\n")) return [`**${label}${note}:** ${escapeInline(text) || "_(empty)_"}`];
  return [`**${label}${note}:**`, codeBlock(text, "text")];
}

function toolCall(
  doc: ExportDocument,
  m: Message,
  limits: BlockLimits,
  answered: ReadonlySet<string | null>,
  note: string,
): string[] {
  const name = m.toolName ?? "tool";
  const out = [`### Tool call · ${inlineCode(name)} · ${iso(m.createdAt)}${note}`];
  out.push(...renderArgs(m.toolArgs, limits));
  const call = m.toolCallId ? doc.toolCalls.get(m.toolCallId) : undefined;
  // A call whose result never reached the transcript (lost in a crash, still running).
  if (call && !answered.has(m.toolCallId)) {
    out.push(`**Status:** ${callFacts(call.status, call.exitCode, call.durationMs)}`);
    if (call.result) out.push(longBlock(call.result, "text", limits));
    if (call.diff) out.push("**Diff:**", longBlock(call.diff, "diff", limits));
  }
  return out;
}

function toolResult(doc: ExportDocument, m: Message, limits: BlockLimits): string[] {
  const call = m.toolCallId ? doc.toolCalls.get(m.toolCallId) : undefined;
  const status = call?.status ?? (m.isError ? "error" : "ok");
  const facts = callFacts(status, call?.exitCode ?? null, call?.durationMs ?? null);
  const output = m.toolResult ?? m.text;
  const out = [
    `**Result of ${inlineCode(m.toolName ?? "tool")}** (${facts}):`,
    output === "" ? "_(no output)_" : longBlock(output, "text", limits),
  ];
  if (call?.diff) out.push("**Diff:**", longBlock(call.diff, "diff", limits));
  return out;
}

function sideEvent(e: SideEvent, limits: BlockLimits): string[] {
  if (e.type === "compaction") {
    const c = e.c;
    return [
      `### Context compacted · ${iso(c.createdAt)}`,
      `_Context items ${c.fromSeq}–${c.toSeq} were replaced by a ${
        c.method === "model" ? "model-written" : "rule-based"
      } summary: ${fmtInt(c.tokensBefore)} → ${fmtInt(c.tokensAfter)} tokens._`,
      quote(c.summary),
    ];
  }
  const v = e.v;
  if (v.kind === "verify") {
    const result = v.exitCode === 0
      ? "passed"
      : v.exitCode === null
      ? "did not finish"
      : `failed (exit ${v.exitCode})`;
    const out = [
      `### Verification · ${iso(v.createdAt)}`,
      `${inlineCode(v.command ?? "")} ${result}${
        v.durationMs === null ? "" : ` in ${duration(v.durationMs)}`
      }.`,
    ];
    if (v.output) out.push(longBlock(v.output, "text", limits));
    return out;
  }
  return [
    `### Self-review · ${iso(v.createdAt)}`,
    v.findings ? longBlock(prettyJson(v.findings), "json", limits) : "_No findings._",
  ];
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
