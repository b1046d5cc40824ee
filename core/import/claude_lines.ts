// Claude Code transcript lines, parsed into an ImportSink. This module runs in the
// import's parsing worker (claude_worker.ts), so it touches no database.
import { z } from "zod";
import type { FileJob } from "./file_jobs.ts";
import { importedUsage } from "./imported_usage.ts";
import type { ImportLane, ImportSink } from "./import_writer.ts";
import { parseJsonLine, readLineBatches } from "./jsonl_reader.ts";
import { decodeClaudeFolder, projectPathOf } from "./project_path.ts";
import { isWarmup, slashCommand, titleFrom, WARMUP_TITLE } from "./prompt_title.ts";

// Claude Code transcripts: <config>/projects/<encoded cwd>/<session>.jsonl, subagents in
// <session>/subagents/agent-*.jsonl (or agent-*.jsonl beside the sessions, or inline with
// isSidechain). One API response is written as one line per content block, all sharing
// message.id and requestId; earlier lines may carry a partial output count.

const Block = z.object({
  type: z.string(),
  text: z.string().optional(),
  thinking: z.string().optional(),
  id: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
  tool_use_id: z.string().optional(),
  content: z.unknown().optional(),
  is_error: z.boolean().optional(),
}).passthrough();

const Count = z.number().finite().nonnegative();

const Usage = z.object({
  input_tokens: Count,
  output_tokens: Count,
  cache_creation_input_tokens: Count.optional(),
  cache_read_input_tokens: Count.optional(),
  cache_creation: z.object({
    ephemeral_5m_input_tokens: Count.optional(),
    ephemeral_1h_input_tokens: Count.optional(),
  }).passthrough().optional(),
}).passthrough();

const Line = z.object({
  type: z.string().optional(),
  uuid: z.string().optional(),
  sessionId: z.string().min(1).optional(),
  timestamp: z.string().optional(),
  cwd: z.string().optional(),
  isSidechain: z.boolean().optional(),
  requestId: z.string().min(1).optional(),
  summary: z.string().optional(),
  isMeta: z.boolean().optional(),
  message: z.object({
    id: z.string().min(1).optional(),
    role: z.string().optional(),
    model: z.string().min(1).optional(),
    stop_reason: z.string().nullish(),
    content: z.union([z.string(), z.array(Block)]).optional(),
    usage: z.unknown().optional(),
  }).passthrough().optional(),
}).passthrough();

type LineRecord = z.infer<typeof Line>;

/** Record types Claude Code writes; only user, assistant and summary carry what we import. */
const KNOWN_TYPES = new Set([
  "user",
  "assistant",
  "summary",
  "system",
  "file-history-snapshot",
  "queue-operation",
]);

/** What a file's lines share while they are parsed. */
interface FileContext {
  /** The project folder name (encoded cwd), a fallback when lines carry no cwd. */
  readonly folder: string;
  /** Session id from the path, or null when it must come from the lines (legacy agent-*.jsonl). */
  readonly pathSession: string | null;
  readonly subagentFile: boolean;
  /** Open tool calls by id: their start time, for durations. */
  readonly calls: Map<string, number>;
  /** Sessions already given a derived title. */
  readonly titled: Set<string>;
  /** Sessions this file already proposed a fallback title for (a slash command, a sub-agent's prompt). */
  readonly fallbacks: Set<string>;
  /** Summary lines may precede the first dated line of their session (shared by the import). */
  readonly pendingTitles: Map<string, string>;
}

/** The context of a transcript at `path`; `pendingTitles` is shared by every file of an import. */
function fileContext(
  path: string,
  pendingTitles: Map<string, string>,
): FileContext {
  const rel = path.slice(path.lastIndexOf("/projects/") + "/projects/".length);
  const parts = rel.split("/");
  const folder = parts[0] ?? "";
  const stem = (parts[parts.length - 1] ?? "").replace(/\.jsonl$/, "");
  const nested = parts.length > 2; // <session>/subagents/...
  const legacyAgent = !nested && stem.startsWith("agent-");
  return {
    folder,
    pathSession: nested ? parts[1]! : legacyAgent ? null : stem,
    subagentFile: nested || legacyAgent,
    calls: new Map(),
    titled: new Set(),
    fallbacks: new Set(),
    pendingTitles,
  };
}

/** Parses one transcript line into the sink; bad lines are counted, never thrown. */
export function handleLine(text: string, file: FileContext, sink: ImportSink): void {
  const json = parseJsonLine(text, sink.stats);
  if (json === undefined) return;
  const parsed = Line.safeParse(json);
  if (!parsed.success) {
    sink.stats.malformed++;
    return;
  }
  const line = parsed.data;
  if (line.type !== undefined && !KNOWN_TYPES.has(line.type)) {
    sink.stats.unknownRecords++;
    return;
  }
  const key = file.pathSession ?? line.sessionId;
  if (!key) return; // a record outside any session (snapshots of a file without a session id)
  const at = line.timestamp ? Date.parse(line.timestamp) : NaN;
  if (line.type === "summary" && line.summary) {
    file.pendingTitles.set(key, line.summary);
    return;
  }
  if (Number.isNaN(at)) {
    if (line.message?.usage !== undefined) sink.stats.malformed++;
    return;
  }
  const sessionId = sink.session(key, {
    projectPath: projectPathOf(line.cwd) ?? decodeClaudeFolder(file.folder),
    createdAt: at,
  });
  const title = file.pendingTitles.get(key);
  if (title !== undefined) {
    sink.title(sessionId, title, "import");
    file.pendingTitles.delete(key);
  }
  const lane: ImportLane = file.subagentFile || line.isSidechain ? "subagent" : "parent";
  if (line.message) importContent(line, sessionId, at, lane, file, sink);
  if (line.message?.usage !== undefined) importUsage(line, sessionId, at, lane, sink);
}

function importContent(
  line: LineRecord,
  sessionId: string,
  at: number,
  lane: ImportLane,
  file: FileContext,
  sink: ImportSink,
) {
  const m = line.message!;
  const role = m.role === "assistant" ? "assistant" : "user";
  const base = line.uuid ?? `${m.id ?? "line"}@${at}`;
  const content = typeof m.content === "string"
    ? [{ type: "text", text: m.content }]
    : m.content ?? [];
  content.forEach((b, i) => {
    const externalId = `${base}#${i}`;
    if (b.type === "text" && b.text) {
      sink.message(sessionId, { role, kind: "text", text: b.text, externalId, createdAt: at });
      if (role === "user" && !line.isMeta) proposeTitle(b.text, sessionId, lane, file, sink);
    } else if (b.type === "thinking" && b.thinking) {
      sink.message(sessionId, {
        role: "assistant",
        kind: "thinking",
        text: b.thinking,
        externalId,
        createdAt: at,
      });
    } else if (b.type === "tool_use" && b.id && b.name) {
      const args = JSON.stringify(b.input ?? {});
      sink.message(sessionId, {
        role: "assistant",
        kind: "tool_call",
        text: `${b.name} ${args.length > 200 ? `${args.slice(0, 200)}…` : args}`,
        toolCallId: b.id,
        toolName: b.name,
        toolArgs: args,
        externalId,
        createdAt: at,
      });
      file.calls.set(b.id, at);
      sink.toolCall(sessionId, { callId: b.id, name: b.name, args, at });
    } else if (b.type === "tool_result" && b.tool_use_id) {
      const output = resultText(b.content);
      sink.message(sessionId, {
        role: "tool",
        kind: "tool_result",
        text: output.slice(0, 4000),
        toolCallId: b.tool_use_id,
        toolResult: output,
        isError: b.is_error === true,
        externalId,
        createdAt: at,
      });
      sink.toolResult(sessionId, b.tool_use_id, {
        status: b.is_error ? "error" : "ok",
        output,
        at,
      });
    }
  });
}

function importUsage(
  line: LineRecord,
  sessionId: string,
  at: number,
  lane: ImportLane,
  sink: ImportSink,
): void {
  // Like ccusage: a usage object with missing or null counts is not a usage record.
  const parsed = Usage.safeParse(line.message!.usage);
  if (!parsed.success || hasNull(line.message!.usage)) {
    sink.stats.malformed++;
    return;
  }
  const u = parsed.data;
  const write = u.cache_creation_input_tokens ?? 0;
  const split = u.cache_creation && (u.cache_creation.ephemeral_5m_input_tokens !== undefined ||
    u.cache_creation.ephemeral_1h_input_tokens !== undefined);
  const w5 = split ? u.cache_creation!.ephemeral_5m_input_tokens ?? 0 : write;
  const w1 = split ? u.cache_creation!.ephemeral_1h_input_tokens ?? 0 : 0;
  const model = line.message!.model ?? "unknown";
  const tokens = {
    inputTokens: u.input_tokens,
    outputTokens: u.output_tokens,
    cacheReadTokens: u.cache_read_input_tokens ?? 0,
    cacheWrite5mTokens: w5,
    cacheWrite1hTokens: w1,
  };
  const entry = importedUsage({
    lane,
    provider: "anthropic",
    model,
    tokens,
    requestId: line.requestId,
    responseId: line.message!.id,
    finishReason: line.message!.stop_reason,
    createdAt: at,
    billed: model !== "<synthetic>", // local errors Claude Code writes as turns
  });
  const id = line.message!.id;
  const key = id ? (line.requestId ? `cc:${id}:${line.requestId}` : `cc:${id}`) : null;
  sink.usage(sessionId, key, entry);
}

function hasNull(usage: unknown): boolean {
  const u = usage as Record<string, unknown>;
  return ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]
    .some((k) => u[k] === null);
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((
      c,
    ) => (c && typeof c === "object" && "text" in c ? String((c as { text: unknown }).text) : ""))
      .join("\n");
  }
  return content === undefined ? "" : JSON.stringify(content);
}

/**
 * Titles a session from a user's text: the first prompt typed in the session's own lane.
 * A session without one still gets a name: the slash command it starts with (`/init`),
 * else a sub-agent's task, else, when all it holds are Claude Code's sub-agent warm-ups,
 * a title that says so.
 */
function proposeTitle(
  text: string,
  sessionId: string,
  lane: ImportLane,
  file: FileContext,
  sink: ImportSink,
): void {
  if (file.titled.has(sessionId)) return;
  if (lane === "parent" && !text.startsWith("<")) {
    file.titled.add(sessionId);
    sink.title(sessionId, titleFrom(text), "derived");
    return;
  }
  if (file.fallbacks.has(sessionId)) return;
  const command = lane === "parent" ? slashCommand(text) : null;
  if (command) sink.title(sessionId, command, "derived", 1);
  else if (lane === "subagent" && isWarmup(text)) sink.title(sessionId, WARMUP_TITLE, "derived", 3);
  else if (lane === "subagent" && !text.startsWith("<")) {
    sink.title(sessionId, titleFrom(text), "derived", 2);
  } else return;
  file.fallbacks.add(sessionId);
}

/**
 * Parses the jobs' files into `sink`, in order, calling `batchDone` after each chunk of
 * lines with the offset read up to and the bytes it covered (offset null: the file could
 * not be read, and was counted unreadable).
 */
export async function parseClaudeFiles(
  jobs: readonly FileJob[],
  sink: ImportSink,
  batchDone: (job: FileJob, offset: number | null, bytes: number) => void | Promise<void>,
): Promise<void> {
  const pendingTitles = new Map<string, string>();
  for (const job of jobs) {
    const file = fileContext(job.path, pendingTitles);
    let read = job.from;
    try {
      for (const batch of readLineBatches(job.path, job.from)) {
        for (const text of batch.lines) handleLine(text, file, sink);
        const bytes = batch.offset - read;
        read = batch.offset;
        await batchDone(job, batch.offset, bytes);
      }
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied)) {
        throw err;
      }
      sink.stats.unreadable++;
      await batchDone(job, null, 0);
    }
  }
}
