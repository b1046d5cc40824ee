import type { Lane, LedgerEntry } from "../../core/storage/ledger.ts";
import { LedgerStore } from "../../core/storage/ledger.ts";
import type { Db } from "../../core/storage/db.ts";
import { SessionStore } from "../../core/storage/sessions.ts";
import { type ToolCallStatus, ToolCallStore } from "../../core/storage/tool_calls.ts";
import type { Ids } from "../../core/ids.ts";

/** A ledger row with everything zero except what a test names. */
export function ledgerRow(
  base: { sessionId: string; projectId: number; createdAt: number },
  fields: Partial<LedgerEntry> & { provider: string; model: string },
): LedgerEntry {
  return {
    lane: "parent" as Lane,
    attempt: 1,
    requestId: null,
    responseId: null,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
    usageExact: true,
    outputChars: 0,
    costUsd: 0,
    baselineCostUsd: 0,
    finishReason: "end_turn",
    error: null,
    latencyMs: 100,
    ttftMs: 50,
    prefixHash: null,
    prefixRewrite: false,
    expectedCacheReadPct: null,
    actualCacheReadPct: null,
    ...base,
    ...fields,
  };
}

/** The hand-built history every usage test computes by hand (see the comments for the sums). */
export interface UsageFixture {
  readonly refactor: string;
  readonly docs: string;
  readonly projectA: string;
  readonly projectB: string;
}

/**
 * Two projects, two sessions, five ledger rows, five tool calls:
 *
 * | row | when (UTC)       | New York         | session  | model             | in   | out | cw5m | cr   | cost  | baseline |
 * |-----|------------------|------------------|----------|-------------------|------|-----|------|------|-------|----------|
 * | A   | 2026-11-28 14:05 | Sat 11-28 09:05  | refactor | claude-sonnet-4-5 | 1000 | 200 | 3000 | 0    | 0.05  | 0.05     |
 * | B   | 2026-11-28 14:20 | Sat 11-28 09:20  | refactor | claude-sonnet-4-5 | 10   | 300 | 0    | 3000 | 0.01  | 0.02     |
 * | C   | 2026-11-29 03:30 | Sat 11-28 22:30  | refactor | gpt-5 (reason 50) | 500  | 100 | 0    | 400  | 0.002 | 0.003    |
 * | D   | 2026-11-29 15:00 | Sun 11-29 10:00  | docs     | local-llama       | 2000 | 500 | 0    | 0    | null  | null     |
 * | E   | 2026-11-29 15:05 | Sun 11-29 10:05  | docs     | claude-sonnet-4-5 | 100  | 20  | 0    | 0    | 0.001 | 0.001    |
 *
 * E failed (overloaded): its tokens count, it is not a turn. D has no price: totals are floors.
 * B expects 90 % cache reads and gets 95 %; C expects 80 % and gets 40 % after a prefix rewrite.
 */
export function seedUsage(db: Db, ids: Ids, root: string): UsageFixture {
  const projectA = `${root}/alpha`;
  const projectB = `${root}/beta`;
  const sessions = new SessionStore(db, ids);
  const refactor = sessions.create({
    id: ids.at(Date.UTC(2026, 10, 28, 14, 0)),
    projectPath: projectA,
    title: "Refactor the parser",
    createdAt: Date.UTC(2026, 10, 28, 14, 0),
  });
  const docs = sessions.create({
    id: ids.at(Date.UTC(2026, 10, 29, 14, 55)),
    projectPath: projectB,
    title: "Write the docs",
    createdAt: Date.UTC(2026, 10, 29, 14, 55),
  });
  const r = (at: number) => ({
    sessionId: refactor.id,
    projectId: refactor.projectId,
    createdAt: at,
  });
  const d = (at: number) => ({ sessionId: docs.id, projectId: docs.projectId, createdAt: at });
  const sonnet = { provider: "anthropic", model: "claude-sonnet-4-5" };
  new LedgerStore(db).append([
    ledgerRow(r(Date.UTC(2026, 10, 28, 14, 5)), {
      ...sonnet,
      inputTokens: 1000,
      outputTokens: 200,
      cacheWrite5mTokens: 3000,
      costUsd: 0.05,
      baselineCostUsd: 0.05,
    }),
    ledgerRow(r(Date.UTC(2026, 10, 28, 14, 20)), {
      ...sonnet,
      inputTokens: 10,
      outputTokens: 300,
      cacheReadTokens: 3000,
      costUsd: 0.01,
      baselineCostUsd: 0.02,
      expectedCacheReadPct: 90,
      actualCacheReadPct: 95,
    }),
    ledgerRow(r(Date.UTC(2026, 10, 29, 3, 30)), {
      provider: "openai",
      model: "gpt-5",
      inputTokens: 500,
      outputTokens: 100,
      cacheReadTokens: 400,
      reasoningTokens: 50,
      costUsd: 0.002,
      baselineCostUsd: 0.003,
      expectedCacheReadPct: 80,
      actualCacheReadPct: 40,
      prefixRewrite: true,
    }),
    ledgerRow(d(Date.UTC(2026, 10, 29, 15, 0)), {
      provider: "openai",
      model: "local-llama",
      inputTokens: 2000,
      outputTokens: 500,
      costUsd: null,
      baselineCostUsd: null,
    }),
    ledgerRow(d(Date.UTC(2026, 10, 29, 15, 5)), {
      ...sonnet,
      inputTokens: 100,
      outputTokens: 20,
      costUsd: 0.001,
      baselineCostUsd: 0.001,
      finishReason: null,
      error: "overloaded_error: Overloaded",
    }),
  ]);
  const call = (
    callId: string,
    toolName: string,
    status: ToolCallStatus,
    startedAt: number,
    durationMs: number,
  ) => ({
    callId,
    messageSeq: null,
    toolName,
    args: "{}",
    status,
    result: null,
    diff: null,
    exitCode: null,
    startedAt,
    endedAt: startedAt + durationMs,
    durationMs,
  });
  const t0 = Date.UTC(2026, 10, 28, 14, 6);
  const tools = new ToolCallStore(db);
  tools.put(refactor.id, [
    call("c1", "read", "ok", t0, 10),
    call("c2", "read", "ok", t0 + 1000, 30),
    call("c3", "read", "ok", t0 + 2000, 20),
    call("c4", "exec", "error", t0 + 3000, 100),
  ]);
  tools.put(docs.id, [call("c5", "exec", "timeout", Date.UTC(2026, 10, 29, 15, 1), 5000)]);
  return { refactor: refactor.id, docs: docs.id, projectA, projectB };
}
