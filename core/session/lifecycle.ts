import type { Ids } from "../ids.ts";
import { BonsaiError } from "../errors.ts";
import type { Db } from "../storage/db.ts";
import { BackgroundTaskStore } from "../storage/background_tasks.ts";
import { type Session, type SessionKind, SessionStore } from "../storage/sessions.ts";
import { MailboxStore } from "../storage/mailbox.ts";
import { MessageStore } from "../storage/messages.ts";
import { ToolCallStore } from "../storage/tool_calls.ts";
import { liveElsewhere, type ProcessId, type ProcessProbe } from "./liveness.ts";
import { SessionRuntime } from "./runtime.ts";
import { answerOpenToolCalls, lostResult } from "./tool_repair.ts";

/** The process that owns a live session. */
export type Owner = ProcessId;

export { recoverCrashed } from "./recovery.ts";

/** L1: a new session row for the project, owned by this process, with a fresh cache key. */
export function startSession(
  db: Db,
  ids: Ids,
  input: {
    projectPath: string;
    owner: Owner;
    provider?: string | null;
    model?: string | null;
    reasoning?: string | null;
    parentId?: string | null;
    kind?: SessionKind;
  },
): SessionRuntime {
  const session = new SessionStore(db, ids).create({
    projectPath: input.projectPath,
    provider: input.provider ?? null,
    model: input.model ?? null,
    reasoning: input.reasoning ?? null,
    parentId: input.parentId ?? null,
    kind: input.kind,
    ownerPid: input.owner.pid,
    ownerHost: input.owner.host,
  });
  const runtime = SessionRuntime.load(db, session.id);
  runtime.heartbeat(db.clock.now());
  return runtime;
}

/** The refusal for a session another live process owns. */
export function liveSessionError(session: Session, verb: string): BonsaiError {
  return new BonsaiError(
    "SESSION_LIVE",
    `Cannot ${verb} session '${session.id}': it is live in process ${session.ownerPid ?? "?"}${
      session.ownerHost ? ` on ${session.ownerHost}` : ""
    }`,
    { data: { session: session.id, pid: session.ownerPid, host: session.ownerHost } },
  );
}

/**
 * R1/R3: finds the session to resume — the project's latest, or the one an id prefix names —
 * and refuses other projects' sessions and live ones. Reads only: a refusal changes nothing.
 */
export function findResumable(
  db: Db,
  input: { projectPath: string; prefix: string | null; me: ProcessId; probe?: ProcessProbe },
): Session {
  const store = new SessionStore(db);
  let session: Session;
  if (input.prefix === null) {
    const latest = store.latest(input.projectPath);
    if (!latest) {
      throw new BonsaiError("NOT_FOUND", `No session to continue in '${input.projectPath}'`);
    }
    session = latest;
  } else {
    session = store.resolve(input.prefix);
  }
  if (session.source !== "bonsai") {
    throw new BonsaiError(
      "USAGE",
      `Cannot resume session '${session.id}': it was imported from ${
        session.source === "codex" ? "Codex" : "Claude Code"
      } and can be shown and searched, not continued`,
      { data: { session: session.id, source: session.source } },
    );
  }
  if (session.projectPath !== input.projectPath) {
    throw new BonsaiError(
      "CROSS_PROJECT",
      `Cannot resume session '${session.id}': it belongs to project '${session.projectPath}', not '${input.projectPath}' (run bonsai from that project)`,
      { data: { session: session.id, project: session.projectPath } },
    );
  }
  if (liveElsewhere(session, db.clock.now(), input.me, input.probe)) {
    throw liveSessionError(session, "resume");
  }
  return session;
}

/**
 * R3/R4/Z6: the atomic switch. Loads the runtime first (everything that can fail happens
 * before any write), then in one transaction re-checks liveness, takes the row over (its
 * epoch, the fencing token, moves on: the old owner can write nothing more), marks the old
 * process's shells, background tasks and running tool calls `lost`, and answers every tool
 * call the stored context left open, so the next request is one both APIs accept.
 */
export function resumeSession(
  db: Db,
  session: Session,
  owner: Owner,
  probe?: ProcessProbe,
): SessionRuntime {
  const runtime = SessionRuntime.load(db, session.id);
  db.write(() => {
    const fresh = new SessionStore(db).get(session.id);
    const now = db.clock.now();
    if (liveElsewhere(fresh, now, owner, probe)) {
      throw new BonsaiError(
        "SESSION_LIVE",
        `Cannot resume session '${session.id}': another process took it just now`,
      );
    }
    // The old owner's last sign of life is when its unfinished work ended, as far as we know.
    const lostAt = Math.min(now, fresh.heartbeatAt ?? now);
    new BackgroundTaskStore(db).markLost(session.id, now);
    new ToolCallStore(db).markLost(session.id, lostAt, lostResult);
    new MessageStore(db).settleStreaming(session.id);
    new MailboxStore(db).releaseLeases(session.id);
    runtime.takeOver(owner, now);
    answerOpenToolCalls(db, runtime, lostAt);
    runtime.flush();
  });
  return runtime;
}

/** Records how the session ended (typed reason) and flushes everything. */
export function endSession(
  runtime: SessionRuntime,
  status: Session["status"],
  reason: string,
  detail: string | null = null,
): void {
  runtime.setStatus(status, reason, detail);
  runtime.flush();
}
