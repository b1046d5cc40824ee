import { z } from "zod";
import type { ChatMessage, ModelClient } from "../providers/types.ts";
import type { SessionRuntime } from "../session/runtime.ts";
import type { Db } from "../storage/db.ts";
import type { LedgerEntry } from "../storage/ledger.ts";
import { ToolCallStore } from "../storage/tool_calls.ts";
import { type VerificationRun, VerificationStore } from "../storage/verification_runs.ts";
import { ledgerEntryFor } from "./ledger_entry.ts";
import { noPeers } from "../peers/peers.ts";
import { noWorkspace } from "../peers/workspace.ts";
import { execTool } from "./tools/exec.ts";
import type { ToolContext } from "./tools/tool.ts";

/** Default time limit of a verification command when no tool timeout is set. */
const VERIFY_TIMEOUT_MS = 600_000;
/** Most diff text one self-review pass reads. */
const REVIEW_DIFF_CHARS = 120_000;

/** What verification and self-review need. */
export interface ReviewDeps {
  readonly db: Db;
  readonly runtime: SessionRuntime;
  readonly clock: { now(): number };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly root: string;
  /** Cancels the check command or the review call (Ctrl-C, SIGTERM). */
  readonly signal: AbortSignal;
}

/**
 * A4: runs the verification command in the session root (its own process group, the tool
 * time limit) and stores command, exit code, duration and full output. A check that was
 * cancelled (Ctrl-C, SIGTERM) has no verdict: nothing is stored and null is returned.
 */
export async function verify(
  deps: ReviewDeps,
  command: string,
  timeoutMs: number | null,
): Promise<VerificationRun | null> {
  const started = deps.clock.now();
  const ctx: ToolContext = {
    root: deps.root,
    callId: "verify",
    signal: deps.signal,
    clock: deps.clock,
    env: deps.env,
    timeoutMs: timeoutMs ?? VERIFY_TIMEOUT_MS,
    files: { knownHash: () => null, recordRead: () => {}, recordWrite: () => {} },
    workspace: noWorkspace,
    peers: noPeers,
    setTitle: () => {},
    setPlan: () => {},
    recall: () => [],
    subagents: null,
    onUsage: () => {},
  };
  const result = await execTool.run({ command, timeout_ms: timeoutMs ?? VERIFY_TIMEOUT_MS }, ctx);
  deps.runtime.flush();
  if (deps.signal.aborted) return null;
  return deps.runtime.write(() =>
    new VerificationStore(deps.db).add(deps.runtime.id, {
      kind: "verify",
      command,
      exitCode: result.timedOut ? null : result.exitCode ?? null,
      durationMs: deps.clock.now() - started,
      output: result.fullOutput ?? result.output,
      findings: null,
      ledgerId: null,
      createdAt: started,
    })
  );
}

/** One finding of a self-review. */
export interface Finding {
  readonly severity: "high" | "medium" | "low";
  readonly path: string | null;
  readonly message: string;
}

const Findings = z.array(
  z.object({
    severity: z.enum(["high", "medium", "low"]).catch("medium"),
    path: z.string().nullish(),
    message: z.string(),
  }).passthrough(),
);

const REVIEW_SYSTEM =
  `You review a coding agent's own changes before the user sees them. Look for bugs, missed edge cases, broken behaviour, security problems and leftovers (debug output, TODOs). Reply with only a JSON array of findings: [{"severity":"high"|"medium"|"low","path":"file or null","message":"what is wrong and why"}]. Reply [] when there is nothing worth reporting.`;

/**
 * The session's own diff: the diffs of its write/edit calls on the files it changed, in
 * order, leaving out paths live peers changed too (P4: their edits are not this session's).
 */
export function sessionDiff(
  db: Db,
  runtime: SessionRuntime,
  peerPaths: ReadonlySet<string> = new Set(),
): string {
  const changed = new Set(
    runtime.changedFiles.map((f) => f.path).filter((p) => !peerPaths.has(p)),
  );
  const parts: string[] = [];
  for (const call of new ToolCallStore(db).list(runtime.id)) {
    if (!call.diff || call.status !== "ok") continue;
    const path = /^\+\+\+ b\/(.+)$/m.exec(call.diff)?.[1];
    if (path && changed.has(path)) parts.push(`# ${call.toolName} ${path}\n${call.diff}`);
  }
  return parts.join("\n");
}

/**
 * A4: one model pass over the session's diff in lane `self-review`; stores the findings
 * (and the raw reply when it was not the JSON asked for) with the ledger row.
 */
export async function selfReview(
  deps: ReviewDeps & {
    client: ModelClient;
    model: string;
    provider: string;
    projectId: number;
    /** Paths live peers changed: left out of the review. */
    peerPaths?: ReadonlySet<string>;
  },
): Promise<{ run: VerificationRun; findings: Finding[]; ledger: LedgerEntry[] } | null> {
  const diff = sessionDiff(deps.db, deps.runtime, deps.peerPaths);
  if (!diff) return null;
  const clipped = diff.length > REVIEW_DIFF_CHARS
    ? `${diff.slice(0, REVIEW_DIFF_CHARS)}\n[diff cut]`
    : diff;
  const messages: ChatMessage[] = [{
    role: "user",
    content: [{ type: "text", text: `Review this diff:\n\n${clipped}` }],
  }];
  const started = deps.clock.now();
  const ledger: LedgerEntry[] = [];
  let text = "";
  let failure: string | null = null;
  let ref: { id: number | null } | null = null;
  for await (
    const ev of deps.client.stream({
      model: deps.model,
      system: REVIEW_SYSTEM,
      messages,
      tools: [],
      maxOutputTokens: 4_000,
      reasoning: null,
      cacheKey: deps.runtime.session.cacheKey,
      signal: deps.signal,
    })
  ) {
    if (ev.type === "attempt") {
      const entry = ledgerEntryFor(ev.record, {
        sessionId: deps.runtime.id,
        projectId: deps.projectId,
        lane: "self-review",
        provider: deps.provider,
      });
      ledger.push(entry);
      ref = deps.runtime.addLedger(entry);
    } else if (ev.type === "done") {
      text = ev.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
    } else if (ev.type === "error") {
      failure = ev.failure.message;
    }
  }
  deps.runtime.flush();
  // Cancelled: the calls made are in the ledger, but an unfinished review has no findings.
  if (deps.signal.aborted) return null;
  const findings = parseFindings(text);
  const run = deps.runtime.write(() =>
    new VerificationStore(deps.db).add(deps.runtime.id, {
      kind: "self-review",
      command: null,
      exitCode: null,
      durationMs: deps.clock.now() - started,
      output: failure ?? text,
      findings: JSON.stringify(
        findings ?? [{ severity: "low", path: null, message: text.trim() || "(no reply)" }],
      ),
      ledgerId: ref?.id ?? null,
      createdAt: started,
    })
  );
  return { run, findings: findings ?? [], ledger };
}

/** Findings from the reply: the JSON array (possibly inside a code fence), or null if there is none. */
export function parseFindings(text: string): Finding[] | null {
  const start = text.indexOf("[");
  const end = text.lastIndexOf("]");
  if (start < 0 || end <= start) return null;
  try {
    const parsed = Findings.safeParse(JSON.parse(text.slice(start, end + 1)));
    return parsed.success
      ? parsed.data.map((f) => ({ severity: f.severity, path: f.path ?? null, message: f.message }))
      : null;
  } catch {
    return null; // not JSON after all: the raw reply is kept as one finding
  }
}
