import type { Db } from "./db.ts";

/** Shells and background tasks: they belong to one process (R4). */
export class BackgroundTaskStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Marks the session's running tasks `lost` (their process is gone); returns how many. */
  markLost(sessionId: string, at: number): number {
    const { changes } = this.#db
      .prepare(
        "UPDATE background_tasks SET status = 'lost', ended_at = ? WHERE session_id = ? AND status = 'running'",
      )
      .run(at, sessionId);
    return Number(changes);
  }

  /** Records a task started by this process; returns its id. */
  start(
    sessionId: string,
    task: { kind: "shell" | "task"; command: string; pid: number | null; at: number },
  ): number {
    const { lastInsertRowid } = this.#db.prepare(
      "INSERT INTO background_tasks (session_id, kind, command, pid, started_at) VALUES (?, ?, ?, ?, ?)",
    ).run(sessionId, task.kind, this.#db.redactor.redact(task.command), task.pid, task.at);
    return Number(lastInsertRowid);
  }

  /** Tasks of a session, newest first. */
  list(
    sessionId: string,
  ): { id: number; kind: string; command: string; status: string; pid: number | null }[] {
    return this.#db.prepare(
      "SELECT id, kind, command, status, pid FROM background_tasks WHERE session_id = ? ORDER BY id DESC",
    ).all(sessionId) as {
      id: number;
      kind: string;
      command: string;
      status: string;
      pid: number | null;
    }[];
  }
}
