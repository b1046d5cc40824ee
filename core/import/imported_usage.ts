import { priceTokens, type TokenCounts } from "../usage/pricing.ts";
import type { ImportedUsage } from "./import_writer.ts";

/** What differs between imported responses; the rest of a ledger row is fixed for imports. */
export interface ImportedResponse {
  readonly lane: ImportedUsage["lane"];
  readonly provider: ImportedUsage["provider"];
  readonly model: string;
  readonly tokens: TokenCounts;
  readonly reasoningTokens?: number;
  readonly requestId?: string | null;
  readonly responseId?: string | null;
  readonly finishReason?: string | null;
  readonly createdAt: number;
  /** False for turns the source did not bill (Claude Code's local `<synthetic>` errors). */
  readonly billed?: boolean;
}

/**
 * The ledger row of an imported response, priced with bonsai's table: one attempt, exact
 * usage, and none of the live-run telemetry (latency, prefix, cache prediction).
 */
export function importedUsage(r: ImportedResponse): ImportedUsage {
  const cost = r.billed === false
    ? { usd: 0, baselineUsd: 0 }
    : priceTokens(r.model, r.tokens, { at: r.createdAt });
  return {
    lane: r.lane,
    provider: r.provider,
    model: r.model,
    attempt: 1,
    requestId: r.requestId ?? null,
    responseId: r.responseId ?? null,
    ...r.tokens,
    reasoningTokens: r.reasoningTokens ?? 0,
    usageExact: true,
    outputChars: 0,
    costUsd: cost.usd,
    baselineCostUsd: cost.baselineUsd,
    finishReason: r.finishReason ?? null,
    error: null,
    latencyMs: null,
    ttftMs: null,
    prefixHash: null,
    prefixRewrite: false,
    expectedCacheReadPct: null,
    actualCacheReadPct: null,
    createdAt: r.createdAt,
  };
}
