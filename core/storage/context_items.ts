import type { Db } from "./db.ts";

/** One model-facing message as stored: `body` is JSON the session layer parses. */
export interface ContextItemRow {
  readonly seq: number;
  readonly role: "user" | "assistant" | "tool";
  readonly body: string;
  readonly messageSeq: number | null;
  readonly tokensEst: number;
  readonly createdAt: number;
}

/** The model-facing context of sessions (authoritative on resume). */
export class ContextItemStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Writes items (insert or replace by seq). Bodies are redacted. */
  put(sessionId: string, items: readonly ContextItemRow[]): void {
    const db = this.#db;
    db.write(() => {
      const stmt = db.prepare(
        `INSERT OR REPLACE INTO context_items (session_id, seq, role, body, message_seq, tokens_est, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const item of items) {
        stmt.run(
          sessionId,
          item.seq,
          item.role,
          db.redactor.redact(item.body),
          item.messageSeq,
          item.tokensEst,
          item.createdAt,
        );
      }
    });
  }

  /** The session's items in order. */
  list(sessionId: string): ContextItemRow[] {
    const rows = this.#db.prepare(
      `SELECT seq, role, body, message_seq, tokens_est, created_at FROM context_items
       WHERE session_id = ? ORDER BY seq`,
    ).all(sessionId) as {
      seq: number;
      role: ContextItemRow["role"];
      body: string;
      message_seq: number | null;
      tokens_est: number;
      created_at: number;
    }[];
    return rows.map((r) => ({
      seq: r.seq,
      role: r.role,
      body: r.body,
      messageSeq: r.message_seq,
      tokensEst: r.tokens_est,
      createdAt: r.created_at,
    }));
  }
}
