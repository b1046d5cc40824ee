import { type Compaction, CompactionStore } from "../storage/compactions.ts";
import type { Db } from "../storage/db.ts";
import { LedgerStore, type LedgerTotals } from "../storage/ledger.ts";
import { type Message, MessageStore } from "../storage/messages.ts";
import { type Session, SessionStore } from "../storage/sessions.ts";
import { type ToolCallRecord, ToolCallStore } from "../storage/tool_calls.ts";
import { type VerificationRun, VerificationStore } from "../storage/verification_runs.ts";

/** A model that answered in the session, with how many responses. */
export interface ModelUse {
  readonly provider: string;
  readonly model: string;
  readonly lane: string;
  readonly turns: number;
}

/** Everything an export renders, read from the database in one transaction. */
export interface ExportDocument {
  readonly session: Session;
  /** The transcript in order. */
  readonly messages: readonly Message[];
  /** Tool calls with status, diff and timing, by call id. */
  readonly toolCalls: ReadonlyMap<string, ToolCallRecord>;
  readonly compactions: readonly Compaction[];
  readonly verification: readonly VerificationRun[];
  readonly totals: LedgerTotals;
  readonly models: readonly ModelUse[];
}

/**
 * Reads a session's export document in one read transaction, so its header, counts and
 * transcript agree even while the session's owner keeps writing. NOT_FOUND for an unknown id.
 */
export function readExportDocument(db: Db, sessionId: string): ExportDocument {
  return db.read(() => {
    const session = new SessionStore(db).get(sessionId);
    const calls = new ToolCallStore(db).list(session.id);
    const ledger = new LedgerStore(db);
    return {
      session,
      messages: new MessageStore(db).list(session.id),
      toolCalls: new Map(calls.map((c) => [c.callId, c])),
      compactions: new CompactionStore(db).list(session.id),
      verification: new VerificationStore(db).list(session.id),
      totals: ledger.totals(session.id),
      models: ledger.breakdown(session.id).map((b) => ({
        provider: b.provider,
        model: b.model,
        lane: b.lane,
        turns: b.turns,
      })),
    };
  });
}
