import type { Ids } from "../ids.ts";
import { cjkGrams } from "./cjk.ts";
import type { Db } from "./db.ts";
import { type Session, SessionStore } from "./sessions.ts";
import { type SnapshotGroup, SnapshotGroupStore } from "./snapshot_groups.ts";

/** Where a session is cut in two (a rewind): everything from `fromSeq` on is the tail. */
export interface SplitInput {
  readonly sessionId: string;
  /** The first transcript entry of the tail (a user prompt). */
  readonly fromSeq: number;
  /** When that entry was written: unlinked rows (failed attempts, reads) split by time. */
  readonly fromAt: number;
  /** The title of the new session. */
  readonly title: string;
  /** The session's plan and file hashes as of the cut (replace its current groups). */
  readonly groups: readonly SnapshotGroup[];
}

/** What a split moved. */
export interface SplitResult {
  /** The session, cut back. */
  readonly session: Session;
  /** The new session: a copy of the part before the cut, then the tail. */
  readonly linked: Session;
  readonly keptMessages: number;
  readonly movedMessages: number;
  readonly movedLedgerRows: number;
  readonly movedToolCalls: number;
}

/**
 * Cuts a session in two for a rewind (Z5), in the caller's transaction. A new session linked
 * by `parent_id` gets the whole conversation: a copy of the transcript, context, episodes,
 * compactions, reads and plan before the cut, and the tail itself, moved (ids kept, so the
 * search index and every link stay valid). What is counted — ledger rows and tool calls —
 * is never copied: the tail's rows move with it and the earlier ones stay, so session totals
 * and usage add up to what they were. The session's epoch moves on, so a process that still
 * holds it from before writes nothing more.
 */
export function splitSession(db: Db, ids: Ids, input: SplitInput): SplitResult {
  const store = new SessionStore(db, ids);
  const s = store.get(input.sessionId);
  const { fromSeq: seq, fromAt: at } = input;
  const now = db.clock.now();
  const linked = store.create({
    projectPath: s.projectPath,
    title: input.title,
    titleSource: "derived",
    status: "completed",
    provider: s.provider,
    model: s.model,
    reasoning: s.reasoning,
    parentId: s.id,
  });
  const run = (sql: string, ...args: (string | number)[]) =>
    Number(db.prepare(sql).run(...args).changes);
  const [from, to] = [s.id, linked.id];

  // Transcript: copy the part before, move the tail. Copies are indexed like new rows.
  const firstCopy = maxId(db, "messages") + 1;
  const keptMessages = run(
    `INSERT INTO messages (session_id, seq, role, kind, text, tool_call_id, tool_name, tool_args,
       tool_result, is_error, status, ledger_id, external_id, created_at)
     SELECT ?, seq, role, kind, text, tool_call_id, tool_name, tool_args, tool_result, is_error,
       status, ledger_id, external_id, created_at
     FROM messages WHERE session_id = ? AND seq < ? ORDER BY seq`,
    to,
    from,
    seq,
  );
  indexCjk(db, to, firstCopy);
  const movedMessages = run(
    "UPDATE messages SET session_id = ? WHERE session_id = ? AND seq >= ?",
    to,
    from,
    seq,
  );

  // Context: the tail starts at the first model-facing message that came from the tail.
  const cut = (db.prepare(
    `SELECT coalesce(min(seq), (SELECT coalesce(max(seq), 0) + 1 FROM context_items WHERE session_id = ?))
       AS seq FROM context_items WHERE session_id = ? AND message_seq >= ?`,
  ).get(from, from, seq) as { seq: number }).seq;
  run(
    `INSERT INTO context_items (session_id, seq, role, body, message_seq, tokens_est, created_at)
     SELECT ?, seq, role, body, message_seq, tokens_est, created_at FROM context_items
     WHERE session_id = ? AND seq < ?`,
    to,
    from,
    cut,
  );
  run("UPDATE context_items SET session_id = ? WHERE session_id = ? AND seq >= ?", to, from, cut);

  // Ledger: a response belongs where its message went; unlinked rows (failed attempts,
  // self-review, compaction) go by time.
  const movedLedgerRows = run(
    `UPDATE ledger SET session_id = ? WHERE session_id = ? AND (
       id IN (SELECT ledger_id FROM messages WHERE session_id = ? AND seq >= ? AND ledger_id IS NOT NULL)
       OR (created_at >= ? AND id NOT IN (
         SELECT ledger_id FROM messages WHERE session_id = ? AND ledger_id IS NOT NULL)))`,
    to,
    from,
    to,
    seq,
    at,
    from,
  );
  const movedToolCalls = run(
    `UPDATE tool_calls SET session_id = ? WHERE session_id = ?
       AND (message_seq >= ? OR (message_seq IS NULL AND coalesce(started_at, ?) >= ?))`,
    to,
    from,
    seq,
    at,
    at,
  );

  // Compactions and episodes: copies of the earlier ones, the later ones moved.
  const laterCompaction = "(created_at >= ? OR to_seq >= ?)";
  run(
    `INSERT INTO compactions (session_id, method, from_seq, to_seq, summary, tokens_before,
       tokens_after, ledger_id, created_at)
     SELECT ?, method, from_seq, to_seq, summary, tokens_before, tokens_after, ledger_id, created_at
     FROM compactions WHERE session_id = ? AND NOT ${laterCompaction} ORDER BY id`,
    to,
    from,
    at,
    cut,
  );
  run(
    `UPDATE compactions SET session_id = ? WHERE session_id = ? AND ${laterCompaction}`,
    to,
    from,
    at,
    cut,
  );
  run(
    `INSERT INTO episodes (session_id, ordinal, boundary, title, summary, start_seq, end_seq,
       started_at, ended_at)
     SELECT ?, ordinal, boundary, title, summary, start_seq, end_seq, started_at, ended_at
     FROM episodes WHERE session_id = ? AND start_seq < ?`,
    to,
    from,
    seq,
  );
  run("UPDATE episodes SET session_id = ? WHERE session_id = ? AND start_seq >= ?", to, from, seq);
  // The episode the cut fell in is the current one again.
  run(
    "UPDATE episodes SET end_seq = NULL, ended_at = NULL WHERE session_id = ? AND end_seq >= ?",
    from,
    seq,
  );

  // Files: what was read and changed before stays and is copied; the tail's moves.
  run(
    `INSERT INTO read_evidence (session_id, path, start_line, end_line, content_hash, file_hash,
       call_id, read_at)
     SELECT ?, path, start_line, end_line, content_hash, file_hash, call_id, read_at
     FROM read_evidence WHERE session_id = ? AND read_at < ? ORDER BY id`,
    to,
    from,
    at,
  );
  run(
    "UPDATE read_evidence SET session_id = ? WHERE session_id = ? AND read_at >= ?",
    to,
    from,
    at,
  );
  run(
    `INSERT INTO changed_files (session_id, path, first_at, last_at, changes)
     SELECT ?, path, first_at, last_at, changes FROM changed_files WHERE session_id = ?`,
    to,
    from,
  );
  run("DELETE FROM changed_files WHERE session_id = ? AND first_at >= ?", from, at);
  run(
    "UPDATE verification_runs SET session_id = ? WHERE session_id = ? AND created_at >= ?",
    to,
    from,
    at,
  );

  // The new session has the state the session had at its end; the session, the state at the cut.
  run(
    `INSERT INTO snapshot_groups (session_id, grp, signature, body, updated_at)
     SELECT ?, grp, signature, body, updated_at FROM snapshot_groups WHERE session_id = ?`,
    to,
    from,
  );
  new SnapshotGroupStore(db).put(from, input.groups);

  recount(db, from);
  recount(db, to);
  // The tail's content is as recent as it was; the session cut back changed now.
  run("UPDATE sessions SET content_updated_at = ? WHERE id = ?", s.contentUpdatedAt, to);
  run("UPDATE sessions SET content_updated_at = ?, epoch = epoch + 1 WHERE id = ?", now, from);
  return {
    session: store.get(from),
    linked: store.get(to),
    keptMessages,
    movedMessages,
    movedLedgerRows,
    movedToolCalls,
  };
}

/** Recomputes a session's rollup counters from its rows (moves bypass the insert paths). */
function recount(db: Db, id: string): void {
  db.prepare(
    `UPDATE sessions SET
       message_count = (SELECT count(*) FROM messages WHERE session_id = sessions.id),
       turns = (SELECT count(*) FROM ledger WHERE session_id = sessions.id AND error IS NULL),
       total_tokens = (SELECT coalesce(sum(input_tokens + output_tokens + cache_read_tokens
         + cache_write_5m_tokens + cache_write_1h_tokens), 0) FROM ledger WHERE session_id = sessions.id),
       cost_usd = (SELECT coalesce(sum(cost_usd), 0) FROM ledger WHERE session_id = sessions.id),
       unpriced_attempts = (SELECT count(*) FROM ledger WHERE session_id = sessions.id AND cost_usd IS NULL)
     WHERE id = ?`,
  ).run(id);
}

function maxId(db: Db, table: "messages"): number {
  return (db.prepare(`SELECT coalesce(max(id), 0) AS id FROM ${table}`).get() as { id: number }).id;
}

/** Adds CJK bigram rows for the session's messages from row id `first` on (just copied). */
function indexCjk(db: Db, sessionId: string, first: number): void {
  const rows = db.prepare("SELECT id, text FROM messages WHERE session_id = ? AND id >= ?")
    .all(sessionId, first) as { id: number; text: string }[];
  const grams: [number, string][] = [];
  for (const r of rows) {
    const g = cjkGrams(r.text);
    if (g) grams.push([r.id, g]);
  }
  if (grams.length === 0) return;
  db.prepare(
    `INSERT INTO messages_cjk (rowid, grams)
     SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)`,
  ).run(JSON.stringify(grams));
}
