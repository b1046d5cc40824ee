import type { Db } from "../storage/db.ts";
import { type LedgerRow, LedgerStore } from "../storage/ledger.ts";
import { type Message, MessageStore } from "../storage/messages.ts";
import type { Session } from "../storage/sessions.ts";
import { ToolCallStore } from "../storage/tool_calls.ts";
import { messageJson } from "./session_detail.ts";
import { roundUsd, sessionJson } from "./session_json.ts";

/**
 * Which messages a page holds: those after `after`, those before `before` (the last
 * `limit` of them), or, with neither, the session's last `limit`.
 */
export interface TranscriptWindow {
  readonly after?: number;
  readonly before?: number;
  readonly limit: number;
}

/**
 * One window of a session's transcript, for readers that page through long sessions (the
 * web view): the messages with their tool calls' outcomes and the usage of the responses
 * they came from, the session's row, and the first and last seq so a reader knows whether
 * there is more on either side. Read in one transaction.
 */
export function transcriptPage(
  db: Db,
  session: Session,
  window: TranscriptWindow,
): Record<string, unknown> {
  return db.read(() => {
    const store = new MessageStore(db);
    const firstSeq = store.list(session.id, { limit: 1 })[0]?.seq ?? 0;
    const lastSeq = store.lastSeq(session.id);
    const messages = windowOf(store, session.id, window, lastSeq);
    const outcomes = new Map(
      new ToolCallStore(db).outcomes(
        session.id,
        messages.flatMap((m) => (m.kind === "tool_call" && m.toolCallId ? [m.toolCallId] : [])),
      ).map((o) => [o.callId, o]),
    );
    const ledger = new Map(
      new LedgerStore(db).byIds(messages.flatMap((m) => (m.ledgerId ? [m.ledgerId] : [])))
        .map((r) => [r.id, r]),
    );
    return {
      session: { ...sessionJson(session), parent_id: session.parentId },
      first_seq: firstSeq,
      last_seq: lastSeq,
      messages: messages.map((m) => {
        const outcome = m.toolCallId ? outcomes.get(m.toolCallId) : undefined;
        const row = m.ledgerId ? ledger.get(m.ledgerId) : undefined;
        return {
          ...messageJson(m),
          ...(outcome && m.kind === "tool_call"
            ? {
              tool: {
                status: outcome.status,
                diff: outcome.diff,
                exit_code: outcome.exitCode,
                duration_ms: outcome.durationMs,
              },
            }
            : {}),
          ...(row ? { usage: usageJson(row) } : {}),
        };
      }),
    };
  });
}

function windowOf(
  store: MessageStore,
  sessionId: string,
  window: TranscriptWindow,
  lastSeq: number,
): Message[] {
  if (window.after !== undefined) {
    return store.list(sessionId, { afterSeq: window.after, limit: window.limit });
  }
  const before = window.before ?? lastSeq + 1;
  const from = Math.max(0, before - 1 - window.limit);
  return store.list(sessionId, { afterSeq: from, limit: window.limit })
    .filter((m) => m.seq < before);
}

/** The usage of one provider response, as a transcript shows it. */
function usageJson(r: LedgerRow): Record<string, unknown> {
  return {
    model: r.model,
    input_tokens: r.inputTokens,
    output_tokens: r.outputTokens,
    cache_read_tokens: r.cacheReadTokens,
    cache_write_tokens: r.cacheWrite5mTokens + r.cacheWrite1hTokens,
    cost_usd: r.costUsd === null ? null : roundUsd(r.costUsd),
  };
}
