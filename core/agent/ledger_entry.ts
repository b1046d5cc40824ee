import type { AttemptRecord } from "../providers/types.ts";
import type { Lane, LedgerEntry } from "../storage/ledger.ts";
import { priceTokens } from "../usage/pricing.ts";

/** Cache telemetry of the request an attempt answered (U1); absent for side calls. */
export interface AttemptTelemetry {
  readonly prefixHash: string | null;
  readonly prefixRewrite: boolean;
  readonly expectedCacheReadPct: number | null;
}

/** The ledger row of one provider attempt: normalised tokens, cache-aware cost, timing, telemetry. */
export function ledgerEntryFor(
  record: AttemptRecord,
  meta: { sessionId: string; projectId: number; lane: Lane; provider: string },
  telemetry: AttemptTelemetry = {
    prefixHash: null,
    prefixRewrite: false,
    expectedCacheReadPct: null,
  },
): LedgerEntry {
  const u = record.usage;
  const prompt = u.inputTokens + u.cacheReadTokens + u.cacheWrite5mTokens + u.cacheWrite1hTokens;
  const cost = priceTokens(record.model, u, { at: record.startedAt });
  return {
    sessionId: meta.sessionId,
    projectId: meta.projectId,
    lane: meta.lane,
    provider: meta.provider,
    model: record.model,
    attempt: record.attempt,
    requestId: record.requestId,
    responseId: record.responseId,
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    cacheReadTokens: u.cacheReadTokens,
    cacheWrite5mTokens: u.cacheWrite5mTokens,
    cacheWrite1hTokens: u.cacheWrite1hTokens,
    reasoningTokens: u.reasoningTokens,
    usageExact: u.exact,
    outputChars: record.outputChars,
    costUsd: cost.usd,
    baselineCostUsd: cost.baselineUsd,
    finishReason: record.stopReason,
    error: record.failure?.message ?? null,
    latencyMs: record.latencyMs,
    ttftMs: record.ttftMs,
    prefixHash: telemetry.prefixHash,
    prefixRewrite: telemetry.prefixRewrite,
    expectedCacheReadPct: telemetry.expectedCacheReadPct,
    actualCacheReadPct: prompt > 0 ? Math.round((u.cacheReadTokens / prompt) * 1000) / 10 : null,
    createdAt: record.startedAt,
  };
}

/** Token and cost totals of ledger rows (a run's, or a run's plus its review). */
export function ledgerTotals(ledger: readonly LedgerEntry[]) {
  const sum = (f: (e: LedgerEntry) => number) => ledger.reduce((a, e) => a + f(e), 0);
  const unpriced = ledger.filter((e) => e.costUsd === null).length;
  const inexact = ledger.filter((e) => !e.usageExact).length;
  return {
    usage: {
      inputTokens: sum((e) => e.inputTokens),
      outputTokens: sum((e) => e.outputTokens),
      cacheReadTokens: sum((e) => e.cacheReadTokens),
      cacheWriteTokens: sum((e) => e.cacheWrite5mTokens + e.cacheWrite1hTokens),
      reasoningTokens: sum((e) => e.reasoningTokens),
    },
    cost: {
      usd: Math.round(sum((e) => e.costUsd ?? 0) * 1e6) / 1e6,
      exact: unpriced === 0 && inexact === 0,
      unpricedAttempts: unpriced,
    },
  };
}
