import type { Db } from "./db.ts";

/** A user prompt of a session: a step a rewind can go back to. */
export interface PromptEntry {
  readonly seq: number;
  readonly text: string;
  readonly createdAt: number;
}

/** The session's user prompts (transcript entries from the user) in order. */
export function listPrompts(db: Db, sessionId: string): PromptEntry[] {
  const rows = db.prepare(
    `SELECT seq, text, created_at FROM messages
     WHERE session_id = ? AND role = 'user' AND kind = 'text' ORDER BY seq`,
  ).all(sessionId) as { seq: number; text: string; created_at: number }[];
  return rows.map((r) => ({ seq: r.seq, text: r.text, createdAt: r.created_at }));
}

/** How many transcript entries the session has before `seq` and from it on. */
export function countAround(db: Db, sessionId: string, seq: number): {
  before: number;
  from: number;
} {
  const row = db.prepare(
    `SELECT coalesce(sum(seq < ?), 0) AS before, coalesce(sum(seq >= ?), 0) AS after
     FROM messages WHERE session_id = ?`,
  ).get(seq, seq, sessionId) as { before: number; after: number };
  return { before: row.before, from: row.after };
}

/** The ids of the tool calls the session's transcript asks for from `seq` on. */
export function toolCallIdsFrom(db: Db, sessionId: string, seq: number): string[] {
  const rows = db.prepare(
    `SELECT DISTINCT tool_call_id AS id FROM messages WHERE session_id = ? AND seq >= ?
       AND kind = 'tool_call' AND tool_call_id IS NOT NULL`,
  ).all(sessionId, seq) as { id: string }[];
  return rows.map((r) => r.id);
}
