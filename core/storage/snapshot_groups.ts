import type { Db } from "./db.ts";

/** A small whole-value snapshot group (plan, todos, ...) with its content signature. */
export interface SnapshotGroup {
  readonly grp: string;
  readonly signature: string;
  /** JSON the session layer parses. */
  readonly body: string;
  readonly updatedAt: number;
}

/** Whole-value snapshot groups of sessions. */
export class SnapshotGroupStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Writes groups (replacing by name). Bodies are redacted. */
  put(sessionId: string, groups: readonly SnapshotGroup[]): void {
    const db = this.#db;
    db.write(() => {
      const stmt = db.prepare(
        `INSERT OR REPLACE INTO snapshot_groups (session_id, grp, signature, body, updated_at) VALUES (?, ?, ?, ?, ?)`,
      );
      for (const g of groups) {
        stmt.run(sessionId, g.grp, g.signature, db.redactor.redact(g.body), g.updatedAt);
      }
    });
  }

  /** Every group of the session, keyed by name. */
  get(sessionId: string): Map<string, SnapshotGroup> {
    const rows = this.#db.prepare(
      "SELECT grp, signature, body, updated_at FROM snapshot_groups WHERE session_id = ?",
    ).all(sessionId) as { grp: string; signature: string; body: string; updated_at: number }[];
    return new Map(
      rows.map((
        r,
      ) => [r.grp, { grp: r.grp, signature: r.signature, body: r.body, updatedAt: r.updated_at }]),
    );
  }

  /** Removes groups (rotation clears plan and episodes state). */
  remove(sessionId: string, groups: readonly string[]): void {
    const db = this.#db;
    db.write(() => {
      for (const g of groups) {
        db.prepare("DELETE FROM snapshot_groups WHERE session_id = ? AND grp = ?").run(
          sessionId,
          g,
        );
      }
    });
  }
}
