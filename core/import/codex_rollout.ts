// One Codex CLI rollout, parsed line by line into an import.
//
// Current rollouts hold one {timestamp, type, payload} envelope per line: session_meta,
// turn_context (the model), response_item (messages, reasoning, tool calls and outputs),
// event_msg (user_message: what the person typed; token_count: usage) and compacted.
// Rollouts from before the envelope (mid 2025) open with a bare header {id, timestamp,
// instructions, cwd?, git?}, then `{"record_type":"state"}` markers and bare response items
// without times; they carry no usage, but their conversation is still worth searching.
import { z } from "zod";
import {
  BURST_GAP_MS,
  burstStart,
  isConversation,
  originOf,
  payloadHash,
  ReplayFilter,
  type TimedUsage,
} from "./codex_replay.ts";
import { type UsageEvent, UsageTracker } from "./codex_usage.ts";
import { importedUsage } from "./imported_usage.ts";
import type { ImportLane, ImportSink } from "./import_writer.ts";
import { parseJsonLine } from "./jsonl_reader.ts";
import { projectPathOf } from "./project_path.ts";
import { codexPrompt, titleFrom } from "./prompt_title.ts";
import { exitCodeOf, toolOutputText } from "./tool_output.ts";

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

/** What a fork can have copied from its parent: the parent's rollout up to the fork. */
export interface ParentCopy {
  /** The parent's usage events. */
  readonly usage: readonly TimedUsage[];
  /** Hashes (`payloadHash`) of the parent's conversation lines. */
  readonly lines: ReadonlySet<number>;
}

/** Where the parent of a fork is, and what it held before the fork. */
export interface ForkParents {
  /** The rollout of session `id`, other than `child` itself; null when it is not among the files. */
  find(id: string, child: string): string | null;
  /** The parent's rollout up to `forkedAt`. */
  copy(parentPath: string, forkedAt: number | null): ParentCopy;
}

/**
 * The opening of a fork's rollout that may be a copy: the lines after its session_meta that
 * follow each other (from the fork instant) within a second. With the parent's rollout at
 * hand, a line there is a copy if the parent has it; without it, every line there is.
 */
interface CopyRegion {
  open: boolean;
  last: number;
  readonly parent: ReadonlySet<number> | null;
}

/** Parses one rollout into `sink`: feed it every line in order, then call `end()`. */
export class RolloutParser {
  readonly #path: string;
  readonly #sink: ImportSink;
  readonly #parents: ForkParents;
  #format: "unknown" | "envelope" | "legacy" = "unknown";
  #lineNo = 0;
  /** The session's id at its source (the file name's until the session_meta says). */
  #key: string;
  #metaSeen = false;
  #cwd: string | null = null;
  #model: string | null = null;
  #lane: ImportLane = "parent";
  #sessionId: string | null = null;
  readonly #usage = new UsageTracker();
  #replay: ReplayFilter | null = null;
  #region: CopyRegion | null = null;
  /** Occurrences of each message id base, so lines written in the same millisecond stay apart. */
  readonly #idCounts = new Map<string, number>();
  readonly #prompts = {
    own: null as string | null,
    ownItem: null as string | null,
    copied: null as string | null,
    copiedItem: null as string | null,
  };
  #legacyAt = NaN;

  constructor(path: string, sink: ImportSink, parents: ForkParents) {
    this.#path = path;
    this.#sink = sink;
    this.#parents = parents;
    this.#key = (path.split("/").pop() ?? path).replace(/\.jsonl$/, "").replace(
      /^rollout-[\dT:-]+-/,
      "",
    );
  }

  /** Parses the next line of the file. */
  line(text: string): void {
    const lineNo = this.#lineNo++;
    const json = parseJsonLine(text, this.#sink.stats);
    if (json === undefined) return;
    if (this.#format === "unknown") {
      this.#format = isLegacyHeader(json) ? "legacy" : "envelope";
      if (this.#format === "legacy") return this.#legacyHeader(json as Record<string, unknown>);
    }
    if (this.#format === "legacy") return this.#legacyLine(json);
    const parsed = Envelope.safeParse(json);
    if (!parsed.success) return; // a stray bare item: nothing to import
    const { type, payload = {} } = parsed.data;
    if (!KNOWN_TYPES.has(type)) {
      if (parsed.data.payload !== undefined) this.#sink.stats.unknownRecords++;
      return;
    }
    if (type === "session_meta") return this.#meta(payload, lineNo === 0 ? json : null);
    if (type === "turn_context") {
      const model = payload.model ?? payload.model_name;
      if (typeof model === "string" && model.trim()) this.#model = model.trim();
      if (typeof payload.cwd === "string") this.#cwd ??= payload.cwd;
      return;
    }
    const at = parsed.data.timestamp ? Date.parse(parsed.data.timestamp) : NaN;
    const copied = this.#copied(at, type, payload);
    if (Number.isNaN(at)) return;
    this.#session(at);
    if (type === "response_item") {
      // A copy is the parent's: imported here only when the parent's rollout is missing
      // (this is then the only one), and never as tool calls of this session.
      const messages = !copied || this.#region?.parent === null;
      this.#item(payload, at, { copied, messages });
    } else if (type === "event_msg" && payload.type === "token_count") this.#tokens(payload, at);
    else if (type === "event_msg" && payload.type === "user_message") {
      const prompt = typeof payload.message === "string" ? codexPrompt(payload.message) : null;
      if (prompt && copied) this.#prompts.copied = prompt;
      else if (prompt) this.#prompts.own ??= prompt;
    }
  }

  /**
   * Finishes the file: titles the session (its first own prompt; else, for a fork or a
   * sub-agent, the last copied one, which for a sub-agent is its task), and counts a legacy
   * rollout imported or skipped.
   */
  end(): void {
    this.#sink.stats.duplicates += this.#usage.duplicates;
    const stats = this.#sink.stats;
    if (this.#format === "legacy") {
      if (this.#sessionId) stats.legacyRollouts++;
      else if (Number.isNaN(this.#legacyAt)) stats.legacyNoTimestamp++;
      else stats.legacyNoMessages++;
    }
    if (!this.#sessionId) return;
    const p = this.#prompts;
    const prompt = p.own ?? p.ownItem ?? p.copied ?? p.copiedItem;
    if (prompt) this.#sink.title(this.#sessionId, titleFrom(prompt), "derived");
    if (this.#model) this.#sink.modelHint(this.#sessionId, "openai", this.#model);
  }

  #session(at: number): string {
    return this.#sessionId ??= this.#sink.session(this.#key, {
      projectPath: projectPathOf(this.#cwd) ?? "/unknown",
      createdAt: at,
    });
  }

  /** The first session_meta is this session's; later ones are ancestors' copied by a fork. */
  #meta(payload: Record<string, unknown>, firstLine: unknown): void {
    if (this.#metaSeen) return;
    this.#metaSeen = true;
    if (typeof payload.id === "string" && payload.id) this.#key = payload.id;
    if (typeof payload.cwd === "string") this.#cwd = payload.cwd;
    const source = payload.source as { subagent?: unknown } | null | undefined;
    if (source?.subagent !== undefined || payload.thread_source === "subagent") {
      this.#lane = "subagent";
    }
    // Like ccusage, only a session_meta on the file's first line makes it a fork.
    const origin = firstLine === null ? null : originOf(firstLine);
    if (!origin?.parentId) return;
    const parent = this.#parents.find(origin.parentId, this.#path);
    if (!parent) this.#sink.stats.forksWithoutParent++;
    const copy = parent ? this.#parents.copy(parent, origin.at) : null;
    this.#replay = new ReplayFilter(copy?.usage ?? [], () => burstStart(this.#path));
    this.#region = {
      open: origin.at !== null,
      last: origin.at ?? NaN,
      parent: copy?.lines ?? null,
    };
  }

  /** Whether a line of a fork's opening is a copy of its parent's (see CopyRegion). */
  #copied(at: number, type: string, payload: Record<string, unknown>): boolean {
    const region = this.#region;
    if (!region?.open) return false;
    const gap = at - region.last;
    if (Number.isNaN(gap) || gap < 0 || gap > BURST_GAP_MS) {
      region.open = false;
      return false;
    }
    region.last = at;
    if (!isConversation(type, payload)) return false;
    return region.parent === null || region.parent.has(payloadHash(payload));
  }

  /** Usage, unless ccusage's fork rule finds the event copied from the parent. */
  #tokens(payload: Record<string, unknown>, at: number): void {
    const event = this.#usage.next(payload);
    if (!event) return;
    if (this.#replay && !this.#replay.done && this.#replay.replayed(event.usage, at)) return;
    this.#writeUsage(payload, event, at);
  }

  #writeUsage(payload: Record<string, unknown>, event: UsageEvent, at: number): void {
    const u = event.usage;
    const info = payload.info as Record<string, unknown>;
    const cached = Math.min(u.cached, u.input);
    const model = (typeof info.model === "string" && info.model) ||
      (typeof payload.model === "string" && payload.model) || this.#model || "gpt-5";
    const entry = importedUsage({
      lane: this.#lane,
      provider: "openai",
      model,
      tokens: {
        inputTokens: u.input - cached,
        outputTokens: u.output,
        cacheReadTokens: cached,
        cacheWrite5mTokens: 0,
        cacheWrite1hTokens: 0,
      },
      reasoningTokens: u.reasoning,
      createdAt: at,
    });
    // The running total identifies a response within its session, so re-imports and
    // re-emits dedupe; without one, the event time does.
    const t = event.total;
    const key = `cx:${this.#key}:${t ? `t${t.input + t.output}` : `@${at}`}`;
    this.#sink.usage(this.#session(at), key, entry);
  }

  #externalId(base: string): string {
    const n = (this.#idCounts.get(base) ?? 0) + 1;
    this.#idCounts.set(base, n);
    return n === 1 ? base : `${base}#${n}`;
  }

  #item(
    p: Record<string, unknown>,
    at: number,
    take: { readonly copied: boolean; readonly messages: boolean },
  ): void {
    const sink = this.#sink;
    const base = `${at}:${String(p.type)}:${String(p.call_id ?? p.id ?? p.role ?? "")}`;
    if (p.type === "message" && (p.role === "user" || p.role === "assistant")) {
      const content = Content.safeParse(p.content);
      const text = content.success ? content.data.map((c) => c.text ?? "").join("\n").trim() : "";
      if (!text) return;
      if (p.role === "user") this.#userText(text, take.copied);
      if (!take.messages) return;
      const externalId = this.#externalId(base);
      const sessionId = this.#session(at);
      sink.message(sessionId, { role: p.role, kind: "text", text, externalId, createdAt: at });
    } else if (p.type === "reasoning") {
      const summary = Content.safeParse(p.summary);
      const text = summary.success ? summary.data.map((c) => c.text ?? "").join("\n").trim() : "";
      if (!text || !take.messages) return;
      sink.message(this.#session(at), {
        role: "assistant",
        kind: "thinking",
        text,
        externalId: this.#externalId(base),
        createdAt: at,
      });
    } else if (isCall(p)) {
      if (!take.messages) return;
      const name = p.type === "local_shell_call" ? "local_shell" : String(p.name ?? "tool");
      const args = callArgs(p);
      const sessionId = this.#session(at);
      sink.message(sessionId, {
        role: "assistant",
        kind: "tool_call",
        text: `${name} ${args.length > 200 ? `${args.slice(0, 200)}…` : args}`,
        toolCallId: p.call_id,
        toolName: name,
        toolArgs: args,
        externalId: this.#externalId(base),
        createdAt: at,
      });
      if (!take.copied) sink.toolCall(sessionId, { callId: p.call_id, name, args, at });
    } else if (
      (p.type === "function_call_output" || p.type === "custom_tool_call_output") &&
      typeof p.call_id === "string"
    ) {
      if (!take.messages) return;
      const output = toolOutputText(p.output);
      const exitCode = exitCodeOf(output);
      const failed = exitCode !== null && exitCode !== 0;
      const sessionId = this.#session(at);
      sink.message(sessionId, {
        role: "tool",
        kind: "tool_result",
        text: output.slice(0, 4000),
        toolCallId: p.call_id,
        toolResult: output,
        isError: failed,
        externalId: this.#externalId(base),
        createdAt: at,
      });
      if (!take.copied) {
        sink.toolResult(sessionId, p.call_id, {
          status: failed ? "error" : "ok",
          output,
          at,
          exitCode,
        });
      }
    }
  }

  #userText(text: string, copied: boolean): void {
    if (this.#format === "legacy" && this.#cwd === null) {
      this.#cwd = /<cwd>([^<]+)<\/cwd>/.exec(text)?.[1]?.trim() ?? null;
    }
    const prompt = codexPrompt(text);
    if (!prompt) return;
    if (copied) this.#prompts.copiedItem = prompt;
    else this.#prompts.ownItem ??= prompt;
  }

  #legacyHeader(header: Record<string, unknown>): void {
    if (typeof header.id === "string" && header.id) this.#key = header.id;
    this.#legacyAt = typeof header.timestamp === "string" ? Date.parse(header.timestamp) : NaN;
    if (typeof header.cwd === "string") this.#cwd = header.cwd;
    if (typeof header.model === "string" && header.model) this.#model = header.model;
  }

  #legacyLine(json: unknown): void {
    const item = json as Record<string, unknown> | null;
    if (!item || typeof item !== "object" || typeof item.type !== "string") return;
    const own = typeof item.timestamp === "string" ? Date.parse(item.timestamp) : NaN;
    const at = Number.isNaN(own) ? this.#legacyAt : own;
    if (Number.isNaN(at)) return;
    this.#item(item, at, { copied: false, messages: true });
  }
}

/** A pre-envelope rollout's first line: a bare session header. */
function isLegacyHeader(json: unknown): boolean {
  if (!json || typeof json !== "object" || Array.isArray(json)) return false;
  const j = json as Record<string, unknown>;
  return typeof j.id === "string" && !("type" in j) && !("payload" in j) &&
    !("record_type" in j);
}

function isCall(
  p: Record<string, unknown>,
): p is Record<string, unknown> & { call_id: string } {
  return (p.type === "function_call" || p.type === "custom_tool_call" ||
    p.type === "local_shell_call") && typeof p.call_id === "string";
}

function callArgs(p: Record<string, unknown>): string {
  if (typeof p.arguments === "string") return p.arguments;
  if (typeof p.input === "string") return p.input;
  if (p.type === "local_shell_call") return JSON.stringify(p.action ?? {});
  return JSON.stringify(p.arguments ?? {});
}
