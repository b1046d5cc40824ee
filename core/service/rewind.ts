import type { Clock } from "../clock.ts";
import { BonsaiError } from "../errors.ts";
import type { Ids } from "../ids.ts";
import { liveSessionError } from "../session/lifecycle.ts";
import { liveElsewhere, type ProcessId, type ProcessProbe } from "../session/liveness.ts";
import { applyRewind, planRewind } from "../session/rewind_plan.ts";
import type { Db } from "../storage/db.ts";
import type { PromptEntry } from "../storage/prompts.ts";
import { type Session, SessionStore } from "../storage/sessions.ts";
import type { ToolCallStatus } from "../storage/tool_calls.ts";
import {
  checkFiles,
  type FileCheck,
  type FileOutcome,
  type RevertFiles,
  revertFiles,
  type Unrevertable,
} from "./file_revert.ts";

/** What a rewind needs from the world. */
export interface RewindDeps {
  readonly db: Db;
  readonly ids: Ids;
  readonly clock: Clock;
  /** This process: its own sessions are not live elsewhere. */
  readonly me: ProcessId;
  readonly probe: ProcessProbe;
  readonly files: RevertFiles;
}

/** How to rewind. */
export interface RewindOptions {
  /** The seq of a user prompt: the session goes back to just before it. */
  readonly to: number;
  /** Also revert the file changes this session's write and edit calls made from there on. */
  readonly files?: boolean;
  /** Revert files that changed since bonsai wrote them, and skip those that cannot be. */
  readonly force?: boolean;
}

/** An `exec` call in the rewound part: what it did cannot be undone. */
export interface ExecCall {
  readonly callId: string;
  readonly command: string;
  readonly status: ToolCallStatus;
}

/** A rewind before it happens: what would move, and (with files) the state of the files. */
export interface RewindPreview {
  readonly session: Session;
  /** The prompt rewound to: it and everything after it move to the linked session. */
  readonly point: PromptEntry;
  readonly keptMessages: number;
  readonly movedMessages: number;
  /** Tool calls in the rewound part (they move with it). */
  readonly toolCalls: number;
  readonly execCalls: readonly ExecCall[];
  /** Files the rewound part changed with write or edit. */
  readonly changedFiles: readonly string[];
  /** The files check, when files are to be reverted. */
  readonly files: FileCheck | null;
}

/** What a rewind did (front-end neutral; `rewindJson` is its JSON). */
export interface RewindResult {
  /** The session, rolled back. */
  readonly session: Session;
  /** The new session (linked by `parent_id`) holding the whole conversation: continuing it undoes the rewind. */
  readonly linked: Session;
  readonly point: PromptEntry;
  readonly keptMessages: number;
  readonly movedMessages: number;
  readonly movedLedgerRows: number;
  readonly movedToolCalls: number;
  readonly execCalls: readonly ExecCall[];
  readonly changedFiles: readonly string[];
  /** Null when files were not asked to be reverted (they were left as they are). */
  readonly files: FileRewind | null;
}

/** The files part of a rewind. */
export interface FileRewind {
  readonly reverted: FileOutcome["reverted"];
  /** Files that did not hold what bonsai left; reverted anyway (force). */
  readonly changedSince: readonly string[];
  /** Already as before the step. */
  readonly unchanged: readonly string[];
  /** Skipped (force), with why. */
  readonly unrevertable: readonly Unrevertable[];
  /** Could not be written. */
  readonly failed: readonly Unrevertable[];
}

/**
 * Plans a rewind of `session` and checks the files: reads only. USAGE when `to` is not a
 * user prompt, SESSION_LIVE when another live process owns the session.
 */
export async function previewRewind(
  deps: RewindDeps,
  session: Session,
  options: RewindOptions,
): Promise<RewindPreview> {
  refuseLive(deps, session);
  const plan = planRewind(deps.db, session, options.to);
  const execCalls = plan.calls.filter((c) => c.toolName === "exec" && RAN.has(c.status)).map((
    c,
  ) => ({ callId: c.callId, command: commandOf(c.args), status: c.status }));
  const changedFiles = [...new Set(plan.calls.flatMap((c) => (c.file ? [c.file.path] : [])))];
  const files = options.files
    ? await checkFiles(session.projectPath, plan.calls, deps.files)
    : null;
  return {
    session,
    point: plan.point,
    keptMessages: plan.keptMessages,
    movedMessages: plan.movedMessages,
    toolCalls: plan.calls.length,
    execCalls,
    changedFiles,
    files,
  };
}

/**
 * Carries out a previewed rewind: refuses (changing nothing) when files are to be reverted
 * and some changed since bonsai wrote them or cannot be reverted, unless `force`; then, in
 * one transaction that checks liveness again, moves the rewound part to a new linked
 * session; then puts the files back. `onCommitted` runs as soon as the transaction committed.
 */
export async function executeRewind(
  deps: RewindDeps,
  preview: RewindPreview,
  options: RewindOptions,
  onCommitted?: () => void,
): Promise<RewindResult> {
  const { db } = deps;
  const check = preview.files;
  refuseRewind(preview, options);
  const split = db.write(() => {
    const fresh = new SessionStore(db).get(preview.session.id);
    refuseLive(deps, fresh);
    const plan = planRewind(db, fresh, options.to);
    if (plan.movedMessages !== preview.movedMessages || plan.calls.length !== preview.toolCalls) {
      throw new BonsaiError(
        "SESSION_LIVE",
        `Cannot rewind session '${fresh.id}': it changed while the rewind was being prepared; try again`,
      );
    }
    return applyRewind(db, deps.ids, plan);
  });
  // Before anything awaits: a host reloads the session here, so no timer of its writes
  // with the epoch the rewind moved on.
  onCommitted?.();
  const outcome = check
    ? await revertFiles(preview.session.projectPath, check, {
      force: options.force ?? false,
      files: deps.files,
    })
    : null;
  return {
    session: split.session,
    linked: split.linked,
    point: preview.point,
    keptMessages: split.keptMessages,
    movedMessages: split.movedMessages,
    movedLedgerRows: split.movedLedgerRows,
    movedToolCalls: split.movedToolCalls,
    execCalls: preview.execCalls,
    changedFiles: preview.changedFiles,
    files: check && outcome
      ? {
        reverted: outcome.reverted,
        changedSince: check.changedSince,
        unchanged: check.unchanged,
        unrevertable: check.unrevertable,
        failed: outcome.failed,
      }
      : null,
  };
}

/** Exec statuses of a call that (may have) run. */
const RAN = new Set<ToolCallStatus>(["ok", "error", "timeout", "cancelled", "lost", "running"]);

function refuseLive(deps: RewindDeps, session: Session): void {
  if (liveElsewhere(session, deps.clock.now(), deps.me, deps.probe)) {
    throw liveSessionError(session, "rewind");
  }
}

/**
 * FILES_CHANGED when the preview's files are to be reverted but some changed since bonsai
 * wrote them or cannot be reverted, unless `force`: front ends call it before asking.
 */
export function refuseRewind(preview: RewindPreview, options: RewindOptions): void {
  const check = preview.files;
  if (!check || options.force) return;
  if (check.changedSince.length === 0 && check.unrevertable.length === 0) return;
  const session = preview.session;
  const parts: string[] = [];
  if (check.changedSince.length > 0) {
    parts.push(`changed since bonsai wrote them: ${check.changedSince.join(", ")}`);
  }
  if (check.unrevertable.length > 0) {
    parts.push(
      `cannot be reverted: ${check.unrevertable.map((u) => `${u.path} (${u.reason})`).join("; ")}`,
    );
  }
  throw new BonsaiError(
    "FILES_CHANGED",
    `Cannot revert the files of session '${session.id}'; nothing was changed. Files ${
      parts.join("; files ")
    } (--force reverts the others and writes over changed files)`,
    {
      data: {
        session: session.id,
        changed_since: check.changedSince,
        unrevertable: check.unrevertable.map((u) => ({ path: u.path, reason: u.reason })),
      },
    },
  );
}

function commandOf(args: string): string {
  try {
    const parsed = JSON.parse(args) as { command?: unknown };
    return typeof parsed.command === "string" ? parsed.command : args;
  } catch {
    return args; // not JSON: show it as the model sent it
  }
}
