import { isAbsolute, join } from "node:path";
import { z } from "zod";
import type { Env } from "../home.ts";
import type { Ids } from "../ids.ts";
import type { Db } from "../storage/db.ts";
import { importedUsage } from "./imported_usage.ts";
import { pendingFiles } from "./file_jobs.ts";
import { findFiles, parseJsonLine, readLineBatches } from "./jsonl_reader.ts";
import { ImportWriter } from "./import_writer.ts";
import { emptyStats, type ImportStats } from "./stats.ts";

// Codex CLI rollouts: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl, one
// {timestamp, type, payload} envelope per line. Usage comes from token_count events:
// last_token_usage per response, total_token_usage cumulative; Codex re-emits the same
// event (same total) now and then, which must not count twice. input_tokens includes
// cached_input_tokens; output_tokens includes reasoning_output_tokens.

const Count = z.number().finite().nonnegative();
const TokenUsage = z.object({
  input_tokens: Count.optional(),
  cached_input_tokens: Count.optional(),
  output_tokens: Count.optional(),
  reasoning_output_tokens: Count.optional(),
  total_tokens: Count.optional(),
}).passthrough();

const Envelope = z.object({
  timestamp: z.string().optional(),
  type: z.string(),
  payload: z.record(z.string(), z.unknown()).optional(),
}).passthrough();

/** Envelope types of Codex rollouts. */
const KNOWN_TYPES = new Set([
  "session_meta",
  "turn_context",
  "response_item",
  "event_msg",
  "compacted",
]);

const Content = z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough());

/** Codex homes: CODEX_HOME (comma-separated), else ~/.codex. */
export function codexRoots(env: Env): string[] {
  const configured = env.CODEX_HOME?.split(",").map((s) => s.trim()).filter(Boolean);
  if (configured && configured.length) return configured;
  const home = env.HOME ?? env.USERPROFILE;
  return home ? [join(home, ".codex")] : [];
}

/** Options of a Codex import. */
export interface CodexImportOptions {
  readonly db: Db;
  readonly ids: Ids;
  /** Codex homes (with sessions/ inside) or sessions folders themselves. */
  readonly roots: readonly string[];
  readonly progress?: (done: number, total: number) => void;
  /** Records after which the import is written as a bulk load (see ImportWriter). */
  readonly bulkRecords?: number;
  /** Records per commit (tests make it small to spread an import over many commits). */
  readonly commitRecords?: number;
}

interface FileState {
  sessionKey: string;
  sessionId: string | null;
  cwd: string | null;
  model: string | null;
  previousTotal: z.infer<typeof TokenUsage> | null;
  titled: boolean;
  calls: Map<string, number>;
}

/** Imports Codex CLI rollouts: sessions, messages, tool calls, and one ledger row per response. */
export async function importCodex(options: CodexImportOptions): Promise<ImportStats> {
  const stats = emptyStats();
  const writer = new ImportWriter(options.db, options.ids, "codex", stats, {
    bulkRecords: options.bulkRecords,
    commitRecords: options.commitRecords,
  });
  const files: string[] = [];
  for (const root of options.roots) {
    const dirs = await hasDir(join(root, "sessions"))
      ? [join(root, "sessions"), join(root, "archived_sessions")]
      : [root];
    for (const d of dirs) files.push(...await findFiles(d, (n) => n.endsWith(".jsonl")));
  }
  // A grown file is re-read whole: the session's model and running totals come from its start.
  for (const job of pendingFiles(options.db, "codex", files, stats, { resume: false })) {
    options.progress?.(job.index, files.length);
    const path = job.path;
    const state: FileState = {
      sessionKey: (path.split("/").pop() ?? path).replace(/\.jsonl$/, "").replace(
        /^rollout-[\dT:-]+-/,
        "",
      ),
      sessionId: null,
      cwd: null,
      model: null,
      previousTotal: null,
      titled: false,
      calls: new Map(),
    };
    try {
      for (const batch of readLineBatches(path, 0)) {
        for (const text of batch.lines) handleLine(text, state, writer);
        writer.fileRead(path, { size: job.size, mtimeMs: job.mtimeMs, offset: batch.offset });
        writer.commitIfFull();
      }
    } catch (err) {
      if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied) {
        stats.unreadable++;
      } else throw err;
    }
  }
  writer.finish();
  options.progress?.(files.length, files.length);
  return stats;
}

function handleLine(text: string, state: FileState, writer: ImportWriter): void {
  const json = parseJsonLine(text, writer.stats);
  if (json === undefined) return;
  const parsed = Envelope.safeParse(json);
  if (!parsed.success) {
    // Files from before the envelope format (no token counts) have bare items: not usage.
    return;
  }
  const { type, payload = {} } = parsed.data;
  if (!KNOWN_TYPES.has(type)) {
    // Bare items of pre-envelope rollouts carry no usage; anything else is new to us.
    if (parsed.data.payload !== undefined) writer.stats.unknownRecords++;
    return;
  }
  const at = parsed.data.timestamp ? Date.parse(parsed.data.timestamp) : NaN;
  if (type === "session_meta") {
    if (typeof payload.id === "string" && payload.id) state.sessionKey = payload.id;
    if (typeof payload.cwd === "string") state.cwd = payload.cwd;
    return;
  }
  if (type === "turn_context") {
    if (typeof payload.model === "string") state.model = payload.model;
    if (typeof payload.cwd === "string") state.cwd ??= payload.cwd;
    return;
  }
  if (Number.isNaN(at)) return;
  const sessionId = state.sessionId ??= writer.session(state.sessionKey, {
    projectPath: state.cwd && isAbsolute(state.cwd) ? state.cwd : "/unknown",
    createdAt: at,
  });
  if (type === "response_item") importItem(payload, sessionId, at, state, writer);
  else if (type === "event_msg" && payload.type === "token_count") {
    importTokens(payload, sessionId, at, state, writer);
  }
}

function importItem(
  p: Record<string, unknown>,
  sessionId: string,
  at: number,
  state: FileState,
  writer: ImportWriter,
) {
  const externalId = `${at}:${String(p.type)}:${String(p.call_id ?? p.id ?? p.role ?? "")}`;
  if (p.type === "message" && (p.role === "user" || p.role === "assistant")) {
    const content = Content.safeParse(p.content);
    const text = content.success ? content.data.map((c) => c.text ?? "").join("\n").trim() : "";
    if (!text) return;
    writer.message(sessionId, { role: p.role, kind: "text", text, externalId, createdAt: at });
    if (p.role === "user" && !state.titled && !text.startsWith("<")) {
      state.titled = true;
      const line = text.split("\n")[0]!.replace(/\s+/g, " ");
      writer.title(
        sessionId,
        line.length > 60 ? `${line.slice(0, 60).replace(/\s+\S*$/, "")}…` : line,
        "derived",
      );
    }
  } else if (p.type === "reasoning") {
    const summary = Content.safeParse(p.summary);
    const text = summary.success ? summary.data.map((c) => c.text ?? "").join("\n").trim() : "";
    if (text) {
      writer.message(sessionId, {
        role: "assistant",
        kind: "thinking",
        text,
        externalId,
        createdAt: at,
      });
    }
  } else if (
    (p.type === "function_call" || p.type === "custom_tool_call") && typeof p.call_id === "string"
  ) {
    const name = String(p.name ?? "tool");
    const args = typeof p.arguments === "string"
      ? p.arguments
      : typeof p.input === "string"
      ? p.input
      : JSON.stringify(p.arguments ?? {});
    writer.message(sessionId, {
      role: "assistant",
      kind: "tool_call",
      text: `${name} ${args.length > 200 ? `${args.slice(0, 200)}…` : args}`,
      toolCallId: p.call_id,
      toolName: name,
      toolArgs: args,
      externalId,
      createdAt: at,
    });
    state.calls.set(p.call_id, at);
    writer.toolCall(sessionId, { callId: p.call_id, name, args, at });
  } else if (
    (p.type === "function_call_output" || p.type === "custom_tool_call_output") &&
    typeof p.call_id === "string"
  ) {
    const output = typeof p.output === "string" ? p.output : JSON.stringify(p.output ?? "");
    const failed = /"exit_code"\s*:\s*[1-9]/.test(output);
    writer.message(sessionId, {
      role: "tool",
      kind: "tool_result",
      text: output.slice(0, 4000),
      toolCallId: p.call_id,
      toolResult: output,
      isError: failed,
      externalId,
      createdAt: at,
    });
    writer.toolResult(sessionId, p.call_id, { status: failed ? "error" : "ok", output, at });
  }
}

function importTokens(
  p: Record<string, unknown>,
  sessionId: string,
  at: number,
  state: FileState,
  writer: ImportWriter,
) {
  const info = p.info as Record<string, unknown> | null | undefined;
  if (!info) return;
  const totalParsed = TokenUsage.safeParse(info.total_token_usage);
  const lastParsed = TokenUsage.safeParse(info.last_token_usage);
  const total = totalParsed.success && info.total_token_usage ? totalParsed.data : null;
  // A re-emitted event repeats the running total: nothing new was used.
  if (total && state.previousTotal && sameUsage(total, state.previousTotal)) {
    writer.stats.duplicates++;
    return;
  }
  let raw = lastParsed.success && info.last_token_usage ? lastParsed.data : null;
  if (!raw && total) raw = delta(total, state.previousTotal);
  if (total) state.previousTotal = total;
  if (!raw) return;
  const input = raw.input_tokens ?? 0;
  const cached = Math.min(raw.cached_input_tokens ?? 0, input);
  const output = raw.output_tokens ?? 0;
  if (input === 0 && cached === 0 && output === 0 && (raw.reasoning_output_tokens ?? 0) === 0) {
    return;
  }
  const model = (typeof info.model === "string" && info.model) ||
    (typeof p.model === "string" && p.model) || state.model || "gpt-5";
  const tokens = {
    inputTokens: input - cached,
    outputTokens: output,
    cacheReadTokens: cached,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
  };
  const entry = importedUsage({
    lane: "parent",
    provider: "openai",
    model,
    tokens,
    reasoningTokens: raw.reasoning_output_tokens ?? 0,
    createdAt: at,
  });
  // The running total identifies a response within its session, so re-imports and
  // re-emits dedupe; without one, the event time does.
  const key = `cx:${state.sessionKey}:${
    total ? `t${(total.input_tokens ?? 0) + (total.output_tokens ?? 0)}` : `@${at}`
  }`;
  writer.usage(sessionId, key, entry);
}

function sameUsage(a: z.infer<typeof TokenUsage>, b: z.infer<typeof TokenUsage>): boolean {
  return (a.input_tokens ?? 0) === (b.input_tokens ?? 0) &&
    (a.cached_input_tokens ?? 0) === (b.cached_input_tokens ?? 0) &&
    (a.output_tokens ?? 0) === (b.output_tokens ?? 0) &&
    (a.reasoning_output_tokens ?? 0) === (b.reasoning_output_tokens ?? 0);
}

function delta(
  total: z.infer<typeof TokenUsage>,
  previous: z.infer<typeof TokenUsage> | null,
): z.infer<typeof TokenUsage> {
  const d = (k: keyof z.infer<typeof TokenUsage>) =>
    Math.max(
      0,
      (total[k] as number | undefined ?? 0) - ((previous?.[k] as number | undefined) ?? 0),
    );
  return {
    input_tokens: d("input_tokens"),
    cached_input_tokens: d("cached_input_tokens"),
    output_tokens: d("output_tokens"),
    reasoning_output_tokens: d("reasoning_output_tokens"),
  };
}

async function hasDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
