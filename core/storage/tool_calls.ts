import { BonsaiError } from "../errors.ts";
import { type Db, hasIndex, withDiskSorts } from "./db.ts";

/** Where a tool call is in its life. */
export type ToolCallStatus =
  | "pending"
  | "running"
  | "ok"
  | "error"
  | "denied"
  | "cancelled"
  | "timeout"
  | "lost";

/**
 * What a write or edit did to one file, for rewind (Z5): hashes of the bytes before (null:
 * the file did not exist) and after, and the content before. The content is stored only up
 * to `MAX_CHECKPOINT_BYTES` (and redacted like all text): a checkpoint whose stored content
 * no longer hashes to `beforeHash` cannot restore the file.
 */
export interface FileCheckpoint {
  /** Relative to the project root. */
  readonly path: string;
  readonly beforeHash: string | null;
  readonly before: string | null;
  readonly afterHash: string;
}

/** Largest content before a change (UTF-8 bytes) a checkpoint stores. */
export const MAX_CHECKPOINT_BYTES = 1024 * 1024;

/** A tool call with its arguments, result and diff, retained in full (X2). */
export interface ToolCallRecord {
  readonly callId: string;
  readonly messageSeq: number | null;
  readonly toolName: string;
  /** JSON as the model sent it. */
  readonly args: string;
  readonly status: ToolCallStatus;
  readonly result: string | null;
  readonly diff: string | null;
  readonly exitCode: number | null;
  readonly startedAt: number | null;
  readonly endedAt: number | null;
  readonly durationMs: number | null;
  /** The file a successful write or edit changed (absent on other calls and older rows). */
  readonly file?: FileCheckpoint | null;
}

/** How one call went, without its output: `ToolCallStore.outcomes()`. */
export type ToolCallOutcome = Pick<
  ToolCallRecord,
  "callId" | "status" | "diff" | "exitCode" | "durationMs"
>;

interface ToolCallDbRecord {
  call_id: string;
  message_seq: number | null;
  tool_name: string;
  args: string;
  status: ToolCallStatus;
  result: string | null;
  diff: string | null;
  exit_code: number | null;
  started_at: number | null;
  ended_at: number | null;
  duration_ms: number | null;
  file_path: string | null;
  file_before_hash: string | null;
  file_before: string | null;
  file_after_hash: string | null;
}

/**
 * The index the usage dashboard walks for exact 95th percentiles (as migration 0005 made
 * it). Its keys are durations, so each new call lands on a random page: a big import drops
 * it and builds it once at the end, which costs a sort instead of a page write per call.
 */
export const DURATION_INDEX = "tool_calls_by_duration";
const CREATE_DURATION_INDEX = `CREATE INDEX IF NOT EXISTS ${DURATION_INDEX}
  ON tool_calls(tool_name, duration_ms, started_at, project_id) WHERE duration_ms IS NOT NULL`;

/** Tool calls of sessions. */
export class ToolCallStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Drops the duration index until `buildDurationIndex` (queries work without it, slower). */
  dropDurationIndex(): void {
    this.#db.write(() => this.#db.connection.exec(`DROP INDEX IF EXISTS ${DURATION_INDEX}`));
  }

  /**
   * Builds the duration index if it is missing (after a big import, or one that was killed
   * before it could). Its sort spills to temporary files, not memory.
   */
  buildDurationIndex(): void {
    if (hasIndex(this.#db, DURATION_INDEX)) return;
    withDiskSorts(
      this.#db,
      () => this.#db.write(() => this.#db.connection.exec(CREATE_DURATION_INDEX)),
    );
  }

  /**
   * Inserts or updates calls by (session, call id); with `keepExisting` a known call is left
   * as it is (imports meet the same call again). Text is redacted. New rows are added to the
   * tool rollups in one statement per batch; updated rows adjust them by trigger.
   */
  put(
    sessionId: string,
    calls: readonly ToolCallRecord[],
    options: { keepExisting?: boolean } = {},
  ): void {
    if (calls.length === 0) return;
    const db = this.#db;
    const r = db.redactor;
    db.write(() => {
      const project = db.prepare("SELECT project_id FROM sessions WHERE id = ?").get(sessionId) as
        | { project_id: number }
        | undefined;
      if (!project) throw new BonsaiError("NOT_FOUND", `No session with id '${sessionId}'`);
      const before = (db.prepare("SELECT coalesce(max(id), 0) AS id FROM tool_calls").get() as {
        id: number;
      }).id;
      const stmt = db.prepare(
        `INSERT INTO tool_calls (session_id, project_id, call_id, message_seq, tool_name, args, status,
           result, diff, exit_code, started_at, ended_at, duration_ms, file_path, file_before_hash,
           file_before, file_after_hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (session_id, call_id) DO ${
          options.keepExisting ? "NOTHING" : `UPDATE SET message_seq = excluded.message_seq,
           tool_name = excluded.tool_name, args = excluded.args, status = excluded.status,
           result = excluded.result, diff = excluded.diff, exit_code = excluded.exit_code,
           started_at = excluded.started_at, ended_at = excluded.ended_at, duration_ms = excluded.duration_ms,
           file_path = coalesce(excluded.file_path, file_path),
           file_before_hash = CASE WHEN excluded.file_path IS NULL THEN file_before_hash ELSE excluded.file_before_hash END,
           file_before = CASE WHEN excluded.file_path IS NULL THEN file_before ELSE excluded.file_before END,
           file_after_hash = coalesce(excluded.file_after_hash, file_after_hash)`
        }`,
      );
      for (const c of calls) {
        const f = c.file ?? null;
        const before = f?.before ?? null;
        const storedBefore = before !== null && byteLength(before) <= MAX_CHECKPOINT_BYTES
          ? r.redact(before)
          : null;
        stmt.run(
          sessionId,
          project.project_id,
          c.callId,
          c.messageSeq,
          c.toolName,
          r.redact(c.args),
          c.status,
          r.redactOptional(c.result),
          r.redactOptional(c.diff),
          c.exitCode,
          c.startedAt,
          c.endedAt,
          c.durationMs,
          f?.path ?? null,
          f?.beforeHash ?? null,
          storedBefore,
          f?.afterHash ?? null,
        );
      }
      // Rows above `before` are this batch's inserts (upserted rows keep their old ids).
      db.prepare(
        `INSERT INTO tool_rollup (bucket, project_id, tool_name, calls, failures, total_ms, timed)
         SELECT started_at - (started_at % 900000) AS b, project_id, tool_name, count(*),
           sum(status IN ('error', 'timeout', 'denied', 'cancelled', 'lost')),
           coalesce(sum(duration_ms), 0), count(duration_ms)
         FROM tool_calls WHERE id > ? AND started_at IS NOT NULL
         GROUP BY b, project_id, tool_name
         ON CONFLICT (bucket, project_id, tool_name) DO UPDATE SET
           calls = calls + excluded.calls,
           failures = failures + excluded.failures,
           total_ms = total_ms + excluded.total_ms,
           timed = timed + excluded.timed`,
      ).run(before);
      db.prepare(
        `INSERT INTO tool_day (day, tool_name, calls, failures, total_ms, timed)
         SELECT started_at - (started_at % 86400000) AS d, tool_name, count(*),
           sum(status IN ('error', 'timeout', 'denied', 'cancelled', 'lost')),
           coalesce(sum(duration_ms), 0), count(duration_ms)
         FROM tool_calls WHERE id > ? AND started_at IS NOT NULL
         GROUP BY d, tool_name
         ON CONFLICT (day, tool_name) DO UPDATE SET
           calls = calls + excluded.calls,
           failures = failures + excluded.failures,
           total_ms = total_ms + excluded.total_ms,
           timed = timed + excluded.timed`,
      ).run(before);
    });
  }

  /** Records the result of a call seen earlier (imports read calls and results from separate lines). */
  complete(
    sessionId: string,
    callId: string,
    result: { status: ToolCallStatus; output: string; endedAt: number },
  ): boolean {
    const { changes } = this.#db.prepare(
      `UPDATE tool_calls SET status = ?, result = ?, ended_at = ?,
         duration_ms = CASE WHEN started_at IS NULL THEN NULL ELSE max(0, ? - started_at) END
       WHERE session_id = ? AND call_id = ?`,
    ).run(
      result.status,
      this.#db.redactor.redact(result.output),
      result.endedAt,
      result.endedAt,
      sessionId,
      callId,
    );
    return Number(changes) > 0;
  }

  /**
   * R4: the session's calls that were still pending or running when their process ended
   * become `lost`, ended at `at` (the owner's last sign of life, never before they started),
   * with `result(status)` as their result; their duration is unknown. Returns the call ids.
   */
  markLost(
    sessionId: string,
    at: number,
    result: (status: "pending" | "running") => string,
  ): string[] {
    const db = this.#db;
    return db.write(() => {
      const rows = db.prepare(
        "SELECT call_id, status FROM tool_calls WHERE session_id = ? AND status IN ('pending', 'running')",
      ).all(sessionId) as { call_id: string; status: "pending" | "running" }[];
      const stmt = db.prepare(
        `UPDATE tool_calls SET status = 'lost', result = ?, ended_at = max(coalesce(started_at, ?), ?),
           duration_ms = NULL
         WHERE session_id = ? AND call_id = ?`,
      );
      for (const r of rows) stmt.run(result(r.status), at, at, sessionId, r.call_id);
      return rows.map((r) => r.call_id);
    });
  }

  /**
   * How the named calls of a session went (status, diff, exit code, duration), without their
   * full results or file checkpoints: what a transcript page shows beside its messages.
   */
  outcomes(sessionId: string, callIds: readonly string[]): ToolCallOutcome[] {
    const out: ToolCallOutcome[] = [];
    const stmt = this.#db.prepare(
      `SELECT call_id, status, diff, exit_code, duration_ms FROM tool_calls
       WHERE session_id = ? AND call_id = ?`,
    );
    for (const callId of new Set(callIds)) {
      const r = stmt.get(sessionId, callId) as
        | Pick<ToolCallDbRecord, "call_id" | "status" | "diff" | "exit_code" | "duration_ms">
        | undefined;
      if (!r) continue;
      out.push({
        callId: r.call_id,
        status: r.status,
        diff: r.diff,
        exitCode: r.exit_code,
        durationMs: r.duration_ms,
      });
    }
    return out;
  }

  /** The session's calls in the order they started. */
  list(sessionId: string): ToolCallRecord[] {
    const rows = this.#db.prepare(
      `SELECT call_id, message_seq, tool_name, args, status, result, diff, exit_code, started_at,
         ended_at, duration_ms, file_path, file_before_hash, file_before, file_after_hash
       FROM tool_calls WHERE session_id = ? ORDER BY id`,
    ).all(sessionId) as unknown as ToolCallDbRecord[];
    return rows.map((r) => ({
      callId: r.call_id,
      messageSeq: r.message_seq,
      toolName: r.tool_name,
      args: r.args,
      status: r.status,
      result: r.result,
      diff: r.diff,
      exitCode: r.exit_code,
      startedAt: r.started_at,
      endedAt: r.ended_at,
      durationMs: r.duration_ms,
      file: r.file_path === null ? null : {
        path: r.file_path,
        beforeHash: r.file_before_hash,
        before: r.file_before,
        afterHash: r.file_after_hash ?? "",
      },
    }));
  }
}

function byteLength(text: string): number {
  // Cheap bound first: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (text.length * 3 <= MAX_CHECKPOINT_BYTES) return text.length;
  return new TextEncoder().encode(text).length;
}
