import type { Db } from "../storage/db.ts";
import { type Episode, EpisodeStore } from "../storage/episodes.ts";
import { type Compaction, CompactionStore } from "../storage/compactions.ts";
import { FileRecordStore } from "../storage/file_records.ts";
import { LedgerStore } from "../storage/ledger.ts";
import { type Message, MessageStore } from "../storage/messages.ts";
import { type VerificationRun, VerificationStore } from "../storage/verification_runs.ts";
import { type Session, SessionStore } from "../storage/sessions.ts";
import { sessionJson } from "./session_json.ts";

/** Everything `sessions show` reports about one session. */
export interface SessionDetail {
  readonly session: Session;
  readonly episodes: readonly Episode[];
  readonly verification: readonly VerificationRun[];
  readonly compactions: readonly Compaction[];
  /** The sessions its subagents ran (the task tool), oldest first. */
  readonly subagents: readonly Session[];
  /** The stable JSON document (`sessions show --json`). */
  readonly json: Record<string, unknown>;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Gathers the session's records into one document. */
export function sessionDetail(db: Db, session: Session): SessionDetail {
  return db.read(() => {
    const episodes = new EpisodeStore(db).list(session.id);
    const messages = new MessageStore(db).list(session.id);
    const verification = new VerificationStore(db).list(session.id);
    const compactions = new CompactionStore(db).list(session.id);
    const changed = new FileRecordStore(db).changed(session.id);
    const totals = new LedgerStore(db).totals(session.id);
    const subagents = new SessionStore(db).subagents(session.id);
    const json = {
      ...sessionJson(session),
      reasoning: session.reasoning,
      end_detail: session.endDetail,
      heartbeat_at: iso(session.heartbeatAt),
      active_ms: session.activeMs,
      parent_id: session.parentId,
      episodes: episodes.map((e) => ({
        ordinal: e.ordinal,
        boundary: e.boundary,
        title: e.title,
        summary: e.summary,
        start_seq: e.startSeq,
        end_seq: e.endSeq,
        started_at: iso(e.startedAt),
        ended_at: iso(e.endedAt),
      })),
      usage: {
        attempts: totals.attempts,
        turns: totals.turns,
        input_tokens: totals.inputTokens,
        output_tokens: totals.outputTokens,
        cache_read_tokens: totals.cacheReadTokens,
        cache_write_tokens: totals.cacheWriteTokens,
        reasoning_tokens: totals.reasoningTokens,
        output_chars: totals.outputChars,
        cost_usd: Math.round(totals.costUsd * 1e6) / 1e6,
        baseline_cost_usd: Math.round(totals.baselineCostUsd * 1e6) / 1e6,
        cost_exact: totals.unpricedAttempts === 0 && totals.inexactAttempts === 0,
        unpriced_attempts: totals.unpricedAttempts,
      },
      changed_files: changed.map((f) => ({
        path: f.path,
        changes: f.changes,
        first_at: iso(f.firstAt),
        last_at: iso(f.lastAt),
      })),
      compactions: compactions.map((c) => ({
        method: c.method,
        from_seq: c.fromSeq,
        to_seq: c.toSeq,
        tokens_before: c.tokensBefore,
        tokens_after: c.tokensAfter,
        summary: c.summary,
        created_at: iso(c.createdAt),
      })),
      verification_runs: verification.map((v) => ({
        kind: v.kind,
        command: v.command,
        exit_code: v.exitCode,
        duration_ms: v.durationMs,
        output: v.output,
        findings: v.findings === null ? null : JSON.parse(v.findings),
        created_at: iso(v.createdAt),
      })),
      subagents: subagents.map((s) => ({
        ...sessionJson(s),
        parent_id: s.parentId,
      })),
      usage_by_lane: new LedgerStore(db).breakdown(session.id).map((r) => ({
        lane: r.lane,
        provider: r.provider,
        model: r.model,
        turns: r.turns,
        attempts: r.attempts,
        input_tokens: r.inputTokens,
        output_tokens: r.outputTokens,
        cache_read_tokens: r.cacheReadTokens,
        cache_write_tokens: r.cacheWriteTokens,
        cost_usd: Math.round(r.costUsd * 1e6) / 1e6,
        unpriced_attempts: r.unpricedAttempts,
      })),
      messages: messages.map(messageJson),
    };
    return { session, episodes, verification, compactions, subagents, json };
  });
}

/** A transcript entry as JSON. */
export function messageJson(m: Message): Record<string, unknown> {
  return {
    seq: m.seq,
    role: m.role,
    kind: m.kind,
    text: m.text,
    tool_call_id: m.toolCallId,
    tool_name: m.toolName,
    tool_args: m.toolArgs,
    tool_result: m.toolResult,
    is_error: m.isError,
    status: m.status,
    created_at: new Date(m.createdAt).toISOString(),
  };
}
