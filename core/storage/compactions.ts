import type { Db } from "./db.ts";

/** How a range of the context was replaced. */
export interface Compaction {
  readonly id: number;
  readonly method: "rule" | "model";
  /** Context item range replaced (inclusive). */
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly summary: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly ledgerId: number | null;
  readonly createdAt: number;
}

interface CompactionRecord {
  id: number;
  method: "rule" | "model";
  from_seq: number;
  to_seq: number;
  summary: string;
  tokens_before: number;
  tokens_after: number;
  ledger_id: number | null;
  created_at: number;
}

/** Compaction records: what replaced which part of the context. The history itself is never deleted. */
export class CompactionStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Records a compaction; returns it. */
  add(sessionId: string, c: Omit<Compaction, "id">): Compaction {
    const db = this.#db;
    const { lastInsertRowid } = db.prepare(
      `INSERT INTO compactions (session_id, method, from_seq, to_seq, summary, tokens_before, tokens_after, ledger_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      sessionId,
      c.method,
      c.fromSeq,
      c.toSeq,
      db.redactor.redact(c.summary),
      c.tokensBefore,
      c.tokensAfter,
      c.ledgerId,
      c.createdAt,
    );
    return { ...c, id: Number(lastInsertRowid) };
  }

  /** The session's compactions in order. */
  list(sessionId: string): Compaction[] {
    const rows = this.#db.prepare("SELECT * FROM compactions WHERE session_id = ? ORDER BY id").all(
      sessionId,
    ) as unknown as CompactionRecord[];
    return rows.map((r) => ({
      id: r.id,
      method: r.method,
      fromSeq: r.from_seq,
      toSeq: r.to_seq,
      summary: r.summary,
      tokensBefore: r.tokens_before,
      tokensAfter: r.tokens_after,
      ledgerId: r.ledger_id,
      createdAt: r.created_at,
    }));
  }
}
