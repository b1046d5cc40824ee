import type { Db, SqlValue } from "./db.ts";
import { insertRows } from "./bulk_insert.ts";
import { BonsaiError } from "../errors.ts";
import { cjkGrams } from "./cjk.ts";

/** Who a transcript entry is from. */
export type Role = "user" | "assistant" | "tool" | "system";

/** What a transcript entry is. */
export type MessageKind =
  | "text"
  | "thinking"
  | "tool_call"
  | "tool_result"
  | "permission"
  | "error"
  | "notice"
  | "summary";

/** Whether an entry is final. */
export type MessageStatus = "complete" | "streaming" | "cancelled" | "failed";

/** A transcript entry to write. Text fields are redacted on the way in. */
export interface MessageInput {
  readonly role: Role;
  readonly kind?: MessageKind;
  readonly text: string;
  readonly toolCallId?: string | null;
  readonly toolName?: string | null;
  /** JSON text, stored whole. */
  readonly toolArgs?: string | null;
  readonly toolResult?: string | null;
  readonly isError?: boolean;
  readonly status?: MessageStatus;
  readonly ledgerId?: number | null;
  readonly externalId?: string | null;
  /** Defaults to the clock. */
  readonly createdAt?: number;
}

/** A stored transcript entry. */
export interface Message {
  readonly id: number;
  readonly sessionId: string;
  readonly seq: number;
  readonly role: Role;
  readonly kind: MessageKind;
  readonly text: string;
  readonly toolCallId: string | null;
  readonly toolName: string | null;
  readonly toolArgs: string | null;
  readonly toolResult: string | null;
  readonly isError: boolean;
  readonly status: MessageStatus;
  readonly ledgerId: number | null;
  readonly createdAt: number;
}

interface MessageRecord {
  id: number;
  session_id: string;
  seq: number;
  role: Role;
  kind: MessageKind;
  text: string;
  tool_call_id: string | null;
  tool_name: string | null;
  tool_args: string | null;
  tool_result: string | null;
  is_error: number;
  status: MessageStatus;
  ledger_id: number | null;
  created_at: number;
}

/** The columns a bulk append writes, in the order its rows list them. */
const INSERT_COLUMNS = [
  "session_id",
  "seq",
  "role",
  "kind",
  "text",
  "tool_call_id",
  "tool_name",
  "tool_args",
  "tool_result",
  "is_error",
  "status",
  "ledger_id",
  "external_id",
  "created_at",
];

const COLUMNS = `id, session_id, seq, role, kind, text, tool_call_id, tool_name, tool_args,
  tool_result, is_error, status, ledger_id, created_at`;

/** The transcript: append-mostly rows, indexed for search by triggers and the CJK writer. */
export class MessageStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Appends entries after the session's last one; returns their seqs. */
  append(sessionId: string, messages: readonly MessageInput[]): number[] {
    return this.appendMany([{ sessionId, messages }])[0] ?? [];
  }

  /**
   * Appends entries to several sessions in one go (imports); returns each group's seqs.
   * Rows go in a few hundred per statement (see below).
   */
  appendMany(
    groups: readonly { sessionId: string; messages: readonly MessageInput[] }[],
  ): number[][] {
    const db = this.#db;
    const r = db.redactor;
    return db.write(() => {
      const rows: SqlValue[][] = [];
      const texts: string[] = [];
      const out = groups.map(({ sessionId, messages }) => {
        if (messages.length === 0) return [];
        if (!db.prepare("SELECT 1 FROM sessions WHERE id = ?").get(sessionId)) {
          throw new BonsaiError("NOT_FOUND", `No session with id '${sessionId}'`);
        }
        let seq = this.lastSeq(sessionId);
        const seqs: number[] = [];
        let latest = 0;
        for (const m of messages) {
          seq++;
          const createdAt = m.createdAt ?? db.clock.now();
          const text = r.redact(m.text);
          texts.push(text);
          rows.push([
            sessionId,
            seq,
            m.role,
            m.kind ?? "text",
            text,
            m.toolCallId ?? null,
            m.toolName ?? null,
            r.redactOptional(m.toolArgs),
            r.redactOptional(m.toolResult),
            m.isError ? 1 : 0,
            m.status ?? "complete",
            m.ledgerId ?? null,
            m.externalId ?? null,
            createdAt,
          ]);
          seqs.push(seq);
          latest = Math.max(latest, createdAt);
        }
        this.#touch(sessionId, latest, seqs.length);
        return seqs;
      });
      if (rows.length === 0) return out;
      const last = insertRows(db, "messages", INSERT_COLUMNS, rows);
      // The rows took consecutive ids, in order, ending at the last one inserted.
      const first = last - rows.length + 1;
      const cjk: [number, string][] = [];
      texts.forEach((text, i) => {
        const grams = cjkGrams(text);
        if (grams) cjk.push([first + i, grams]);
      });
      this.#indexCjk(cjk);
      return out;
    });
  }

  /**
   * Writes the entry at `seq`, inserting or replacing it (a streaming reply is rewritten
   * as it grows).
   */
  put(sessionId: string, seq: number, message: MessageInput): void {
    const db = this.#db;
    db.write(() => {
      const existing = db
        .prepare("SELECT id FROM messages WHERE session_id = ? AND seq = ?")
        .get(sessionId, seq) as { id: number } | undefined;
      const createdAt = message.createdAt ?? db.clock.now();
      let added = 0;
      if (!existing) {
        const { id, text } = this.#insertRow(sessionId, seq, message, createdAt);
        const grams = cjkGrams(text);
        if (grams) this.#indexCjk([[id, grams]]);
        added = 1;
      } else {
        const text = db.redactor.redact(message.text);
        db.prepare(
          `UPDATE messages SET role = ?, kind = ?, text = ?, tool_call_id = ?, tool_name = ?,
             tool_args = ?, tool_result = ?, is_error = ?, status = ?, ledger_id = ? WHERE id = ?`,
        ).run(
          message.role,
          message.kind ?? "text",
          text,
          message.toolCallId ?? null,
          message.toolName ?? null,
          db.redactor.redactOptional(message.toolArgs),
          db.redactor.redactOptional(message.toolResult),
          message.isError ? 1 : 0,
          message.status ?? "complete",
          message.ledgerId ?? null,
          existing.id,
        );
        // The update trigger dropped the old CJK row; index the new text.
        const grams = cjkGrams(text);
        if (grams) this.#indexCjk([[existing.id, grams]]);
      }
      this.#touch(sessionId, db.clock.now(), added);
    });
  }

  /** Whether the session has an entry with this external id (an applied delivery, an imported record). */
  hasExternal(sessionId: string, externalId: string): boolean {
    return this.#db.prepare(
      "SELECT 1 FROM messages WHERE session_id = ? AND external_id = ? LIMIT 1",
    ).get(sessionId, externalId) !== undefined;
  }

  /**
   * Replies that were still streaming when their process ended stop as `failed` (nothing
   * will finish them). Returns how many. For boot recovery and the resume switch.
   */
  settleStreaming(sessionId: string): number {
    const { changes } = this.#db.prepare(
      "UPDATE messages SET status = 'failed' WHERE session_id = ? AND status = 'streaming'",
    ).run(sessionId);
    return Number(changes);
  }

  /** The session's entries in order, optionally a window of them. */
  list(sessionId: string, options: { afterSeq?: number; limit?: number } = {}): Message[] {
    const limit = options.limit ?? -1;
    const rows = this.#db
      .prepare(
        `SELECT ${COLUMNS} FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      )
      .all(sessionId, options.afterSeq ?? 0, limit) as unknown as MessageRecord[];
    return rows.map(toMessage);
  }

  /** The entry with this row id, or null. */
  byId(id: number): Message | null {
    const row = this.#db.prepare(`SELECT ${COLUMNS} FROM messages WHERE id = ?`).get(id) as
      | MessageRecord
      | undefined;
    return row ? toMessage(row) : null;
  }

  /** The highest seq in the session (0 when empty). */
  lastSeq(sessionId: string): number {
    const row = this.#db
      .prepare("SELECT max(seq) AS seq FROM messages WHERE session_id = ?")
      .get(sessionId) as { seq: number | null };
    return row.seq ?? 0;
  }

  /** The external ids (source record ids) of a session's imported entries. */
  externalIds(sessionId: string): Set<string> {
    const rows = this.#db.prepare(
      "SELECT external_id AS id FROM messages WHERE session_id = ? AND external_id IS NOT NULL",
    ).all(sessionId) as { id: string }[];
    return new Set(rows.map((r) => r.id));
  }

  /** How many entries exist across all sessions. */
  count(): number {
    return (this.#db.prepare("SELECT count(*) AS n FROM messages").get() as { n: number }).n;
  }

  /** Inserts one row (the trigger indexes its words; callers its CJK grams). Returns its id and stored text. */
  #insertRow(
    sessionId: string,
    seq: number,
    message: MessageInput,
    createdAt: number,
  ): { id: number; text: string } {
    const db = this.#db;
    const text = db.redactor.redact(message.text);
    let result;
    try {
      result = db.prepare(
        `INSERT INTO messages (session_id, seq, role, kind, text, tool_call_id, tool_name, tool_args,
           tool_result, is_error, status, ledger_id, external_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        sessionId,
        seq,
        message.role,
        message.kind ?? "text",
        text,
        message.toolCallId ?? null,
        message.toolName ?? null,
        db.redactor.redactOptional(message.toolArgs),
        db.redactor.redactOptional(message.toolResult),
        message.isError ? 1 : 0,
        message.status ?? "complete",
        message.ledgerId ?? null,
        message.externalId ?? null,
        createdAt,
      );
    } catch (err) {
      if (String(err).includes("FOREIGN KEY")) {
        throw new BonsaiError("NOT_FOUND", `No session with id '${sessionId}'`, { cause: err });
      }
      throw err;
    }
    return { id: Number(result.lastInsertRowid), text };
  }

  /** Adds CJK bigram rows ([row id, grams]) in one statement. */
  #indexCjk(rows: readonly [number, string][]): void {
    if (rows.length === 0) return;
    // json_each yields integer rowids (node:sqlite would bind JS numbers as REAL).
    this.#db.prepare(
      `INSERT INTO messages_cjk (rowid, grams)
       SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)`,
    ).run(JSON.stringify(rows));
  }

  /** Marks the session's content as changed at `at`, counting `added` new entries. */
  #touch(sessionId: string, at: number, added: number): void {
    this.#db
      .prepare(
        `UPDATE sessions SET content_updated_at = max(content_updated_at, ?),
           message_count = message_count + ? WHERE id = ?`,
      )
      .run(at, added, sessionId);
  }
}

function toMessage(r: MessageRecord): Message {
  return {
    id: r.id,
    sessionId: r.session_id,
    seq: r.seq,
    role: r.role,
    kind: r.kind,
    text: r.text,
    toolCallId: r.tool_call_id,
    toolName: r.tool_name,
    toolArgs: r.tool_args,
    toolResult: r.tool_result,
    isError: r.is_error === 1,
    status: r.status,
    ledgerId: r.ledger_id,
    createdAt: r.created_at,
  };
}
