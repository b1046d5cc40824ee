import type { z } from "zod";
import type { Clock } from "../../clock.ts";
import type { Env } from "../../home.ts";
import type { PeerPort } from "../../peers/peers.ts";
import type { Workspace } from "../../peers/workspace.ts";
import type { LedgerEntry } from "../../storage/ledger.ts";
import type { FileCheckpoint } from "../../storage/tool_calls.ts";

/** What a tool needs the user's leave for. */
export type ToolPermission = "none" | "write" | "exec";

/** The result a tool returns to the model (and the database). */
export interface ToolResult {
  /** Text for the model (may be capped); the full text goes to `fullOutput`. */
  readonly output: string;
  readonly isError: boolean;
  /** Everything, uncapped, for the database (defaults to `output`). */
  readonly fullOutput?: string;
  readonly diff?: string;
  /** What a write or edit did to its file: hashes and the content before, for rewind (Z5). */
  readonly file?: FileCheckpoint;
  readonly exitCode?: number;
  /** A few words for the UI ("12 lines", "exit 0"). */
  readonly summary?: string;
  /** True when the tool was stopped by its time limit. */
  readonly timedOut?: boolean;
}

/** Files the session has read and written, kept by the session layer. */
export interface FileTracker {
  /** Hash of the file as this session last saw it (read or wrote), or null. */
  knownHash(rel: string): string | null;
  /** Records read evidence (S3). */
  recordRead(
    read: {
      rel: string;
      startLine: number;
      endLine: number;
      contentHash: string;
      fileHash: string;
    },
  ): void;
  /** Records that the session wrote the file, with its new hash. */
  recordWrite(rel: string, fileHash: string): void;
}

/** A todo item of the plan (todo_write). */
export interface Todo {
  readonly id: string;
  readonly content: string;
  readonly status: "pending" | "in_progress" | "completed";
}

/** A past message found by recall. */
export interface RecallHit {
  readonly sessionId: string;
  readonly sessionTitle: string;
  readonly role: string;
  readonly createdAt: number;
  readonly snippet: string;
}

/** A job handed to a subagent (the task tool). */
export interface SubagentJob {
  readonly description: string;
  readonly prompt: string;
  /** Another model of the same provider, or null for the parent's. */
  readonly model: string | null;
  /** A narrower tool set (names), or null for every tool the parent may give. */
  readonly tools: readonly string[] | null;
  /** The parent's tool call that runs the job. */
  readonly callId: string;
  /** Each usage row of the subagent, as it is recorded (the parent's run counts it). */
  readonly onUsage: (entry: LedgerEntry) => void;
}

/** How a subagent's run ended. */
export interface SubagentOutcome {
  /** The child session that holds its whole transcript. */
  readonly sessionId: string;
  readonly status: "completed" | "budget_exhausted" | "cancelled" | "failed";
  /** Its final answer (or what it said before it stopped). */
  readonly answer: string;
  readonly model: string;
  readonly turns: number;
  /** Project files its write and edit calls changed. */
  readonly changedFiles: readonly string[];
  /** Why it stopped early, when it did. */
  readonly error: string | null;
}

/** Runs subagents for the task tool (the session host provides it). */
export interface SubagentPort {
  run(job: SubagentJob, signal: AbortSignal): Promise<SubagentOutcome>;
}

/** Everything a tool may use while it runs. */
export interface ToolContext {
  /** Canonical project root; tools never touch anything outside it. */
  readonly root: string;
  readonly callId: string;
  readonly signal: AbortSignal;
  readonly clock: Clock;
  /** Environment for `exec` (already without bonsai's own secrets). */
  readonly env: Env;
  /** The per-call time limit from budgets, ms, or null. */
  readonly timeoutMs: number | null;
  readonly files: FileTracker;
  /** Writes of the shared workspace (write, edit). */
  readonly workspace: Workspace;
  /** The session's peers (the peers tool; who claims what write and edit touch). */
  readonly peers: PeerPort;
  setTitle(title: string): void;
  setPlan(plan: string | null, todos: readonly Todo[]): void;
  recall(query: string, limit: number): RecallHit[];
  /** Subagents for the task tool; null where there are none (inside a subagent). */
  readonly subagents: SubagentPort | null;
  /** Usage of work done for this call by another agent (a subagent), counted in this run. */
  readonly onUsage: (entry: LedgerEntry) => void;
}

/** A tool the model can call. Arguments are validated with `schema` before `run`. */
export interface Tool<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly schema: S;
  readonly permission: ToolPermission;
  /** True when the tool returns promptly by itself once its signal aborts (exec kills its process group). */
  readonly stopsOnAbort?: boolean;
  /**
   * Consecutive calls of such a tool in one model turn run at once (task: each is a
   * subagent) and are not cut short by the per-call time limit: their own calls have it.
   */
  readonly concurrent?: boolean;
  /** A short rendering of the arguments for the UI and permission prompts. */
  describe(args: z.infer<S>): string;
  /** What saved permission rules match (the whole command line, or the path), uncut. */
  subject?(args: z.infer<S>): string;
  run(args: z.infer<S>, ctx: ToolContext): Promise<ToolResult>;
}

/** Defines a tool with its argument type inferred from the schema. */
export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool<S> {
  return tool;
}

/** An error result. */
export function toolError(message: string): ToolResult {
  return { output: message, isError: true, summary: "error" };
}

/** Hex SHA-256 of text. */
export async function sha256(text: string | Uint8Array): Promise<string> {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Caps text for the model, keeping head and tail and saying how much was cut. */
export function capOutput(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.6);
  const tail = max - head;
  const cut = text.length - head - tail;
  return `${
    text.slice(0, head)
  }\n\n[... ${cut} characters cut; the full output is stored in the session ...]\n\n${
    text.slice(text.length - tail)
  }`;
}
