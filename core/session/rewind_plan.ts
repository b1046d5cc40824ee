import { z } from "zod";
import { BonsaiError } from "../errors.ts";
import type { Ids } from "../ids.ts";
import type { Db } from "../storage/db.ts";
import { FileRecordStore } from "../storage/file_records.ts";
import { countAround, listPrompts, type PromptEntry, toolCallIdsFrom } from "../storage/prompts.ts";
import { type Session, SessionStore } from "../storage/sessions.ts";
import { type SnapshotGroup, SnapshotGroupStore } from "../storage/snapshot_groups.ts";
import { type SplitResult, splitSession } from "../storage/session_split.ts";
import { type ToolCallRecord, ToolCallStore } from "../storage/tool_calls.ts";
import { signature } from "./signature.ts";

/**
 * What rolling a session back to the user prompt at `point.seq` means (Z5): the transcript
 * and the context end just before that prompt; the prompt and everything after it (the
 * tail) go to a new linked session. Computed from the database only; changes nothing.
 */
export interface RewindPlan {
  readonly session: Session;
  /** The prompt rewound to: it and everything after it leave the session. */
  readonly point: PromptEntry;
  readonly keptMessages: number;
  readonly movedMessages: number;
  /**
   * The tail's tool calls, in the order they were made: its own, after those of a copied
   * part (a session made by an earlier rewind) whose rows stayed with the session it was
   * copied from (read only: they do not move).
   */
  readonly calls: readonly ToolCallRecord[];
  /** The session's plan and file hashes as they were at the prompt. */
  readonly groups: readonly SnapshotGroup[];
}

/** The steps a session can be rewound to: its user prompts. */
export function rewindPoints(db: Db, sessionId: string): PromptEntry[] {
  return listPrompts(db, sessionId);
}

/**
 * Plans a rewind of `session` to before its user prompt at `seq`. USAGE when the session was
 * imported (it cannot be continued) or `seq` is not one of its prompts.
 */
export function planRewind(db: Db, session: Session, seq: number): RewindPlan {
  if (session.source !== "bonsai") {
    throw new BonsaiError(
      "USAGE",
      `Cannot rewind session '${session.id}': it was imported and can be shown and searched, not continued`,
      { data: { session: session.id, source: session.source } },
    );
  }
  return db.read(() => {
    const prompts = listPrompts(db, session.id);
    const point = prompts.find((p) => p.seq === seq);
    if (!point) throw notAPrompt(session, seq, prompts);
    const { before, from } = countAround(db, session.id, seq);
    const all = new ToolCallStore(db).list(session.id);
    const inTail = (c: ToolCallRecord) =>
      c.messageSeq !== null
        ? c.messageSeq >= seq
        : (c.startedAt ?? point.createdAt) >= point.createdAt;
    const own = all.filter(inTail);
    const calls = [...inherited(db, session, seq, own), ...own];
    const earlier = all.filter((c) => !inTail(c));
    return {
      session,
      point,
      keptMessages: before,
      movedMessages: from,
      calls,
      groups: stateAt(db, session.id, point, earlier, calls),
    };
  });
}

/** Carries a plan out in one transaction (re-checking nothing: the caller does). */
export function applyRewind(db: Db, ids: Ids, plan: RewindPlan): SplitResult {
  const title = plan.session.title.length > 150
    ? `${plan.session.title.slice(0, 150)}…`
    : plan.session.title;
  return splitSession(db, ids, {
    sessionId: plan.session.id,
    fromSeq: plan.point.seq,
    fromAt: plan.point.createdAt,
    title: `rewound from '${title}' at #${plan.point.seq}`,
    groups: plan.groups,
  });
}

/**
 * Calls the tail's transcript asks for that are not the session's own: the copied part of a
 * session an earlier rewind made keeps its tool-call rows in the session it came from (or
 * further up), found there by call id.
 */
function inherited(
  db: Db,
  session: Session,
  seq: number,
  own: readonly ToolCallRecord[],
): ToolCallRecord[] {
  const known = new Set(own.map((c) => c.callId));
  const wanted = new Set(toolCallIdsFrom(db, session.id, seq).filter((id) => !known.has(id)));
  const found: ToolCallRecord[][] = [];
  const seen = new Set([session.id]);
  let parent = session.parentId;
  const sessions = new SessionStore(db);
  while (parent !== null && wanted.size > 0 && !seen.has(parent)) {
    seen.add(parent);
    const calls = new ToolCallStore(db).list(parent).filter((c) => wanted.has(c.callId));
    for (const c of calls) wanted.delete(c.callId);
    found.unshift(calls);
    parent = sessions.find(parent)?.parentId ?? null;
  }
  return found.flat();
}

function notAPrompt(session: Session, seq: number, prompts: PromptEntry[]): BonsaiError {
  const list = prompts.length === 0
    ? "it has none"
    : `its prompts are at ${prompts.slice(-12).map((p) => p.seq).join(", ")}${
      prompts.length > 12 ? " (the last 12)" : ""
    }`;
  return new BonsaiError(
    "USAGE",
    `Cannot rewind session '${session.id}' to ${seq}: a rewind goes back to before one of the user's prompts, and ${list}`,
    { data: { session: session.id, seq, prompts: prompts.map((p) => p.seq) } },
  );
}

const PlanArgs = z.object({
  plan: z.string().optional(),
  todos: z.array(z.object({
    id: z.string().optional(),
    content: z.string(),
    status: z.enum(["pending", "in_progress", "completed"]),
  })),
});

/**
 * The plan and file hashes as of the prompt: the plan from the last `todo_write` before it;
 * the file hashes as now, except for files the tail read or changed, which go back to what
 * the session last knew of them before the prompt (or are forgotten, so the agent reads
 * them again before changing them).
 */
function stateAt(
  db: Db,
  sessionId: string,
  point: PromptEntry,
  earlier: readonly ToolCallRecord[],
  tail: readonly ToolCallRecord[],
): SnapshotGroup[] {
  const now = db.clock.now();
  let plan: { plan: string | null; todos: { id: string; content: string; status: string }[] } = {
    plan: null,
    todos: [],
  };
  for (const c of earlier) {
    if (c.toolName !== "todo_write" || c.status !== "ok") continue;
    const parsed = PlanArgs.safeParse(safeJson(c.args));
    if (!parsed.success) continue;
    plan = {
      plan: parsed.data.plan ?? null,
      todos: parsed.data.todos.map((t, i) => ({
        id: t.id ?? String(i + 1),
        content: t.content,
        status: t.status,
      })),
    };
  }
  const stored = new SnapshotGroupStore(db).get(sessionId).get("files")?.body;
  const hashes = new Map(Object.entries(parseHashes(stored)));
  const reads = new FileRecordStore(db).reads(sessionId);
  const touched = new Set<string>();
  for (const r of reads) if (r.readAt >= point.createdAt) touched.add(r.path);
  for (const c of tail) {
    if (c.file) touched.add(c.file.path);
    const path = argPath(c);
    if (path) touched.add(path);
  }
  for (const path of touched) {
    let best: { at: number; hash: string } | null = null;
    for (const r of reads) {
      if (r.path === path && r.readAt < point.createdAt && (!best || r.readAt >= best.at)) {
        best = { at: r.readAt, hash: r.fileHash };
      }
    }
    for (const c of earlier) {
      const at = c.endedAt ?? c.startedAt ?? 0;
      if (c.file?.path === path && (!best || at >= best.at)) best = { at, hash: c.file.afterHash };
    }
    if (best) hashes.set(path, best.hash);
    else hashes.delete(path);
  }
  return [
    group("plan", JSON.stringify(plan), now),
    group("files", JSON.stringify(Object.fromEntries(hashes)), now),
  ];
}

function group(grp: string, body: string, at: number): SnapshotGroup {
  return { grp, signature: signature(body), body, updatedAt: at };
}

/** The `path` argument of a write or edit call, as the model gave it. */
export function argPath(call: ToolCallRecord): string | null {
  if (call.toolName !== "write" && call.toolName !== "edit") return null;
  const args = safeJson(call.args);
  const path = typeof args === "object" && args !== null
    ? (args as Record<string, unknown>).path
    : null;
  return typeof path === "string" ? path.replace(/^\.\//, "") : null;
}

function parseHashes(body: string | undefined): Record<string, string> {
  const parsed = z.record(z.string(), z.string()).safeParse(body ? safeJson(body) : {});
  return parsed.success ? parsed.data : {};
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null; // not JSON: treated as absent
  }
}
