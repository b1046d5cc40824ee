import type { RunResult } from "../agent/loop.ts";

/** The stable JSON object of a headless run (A2): one per run, on stdout with --json. */
export function runJson(
  result: RunResult,
  extra: { sessionId: string; provider: string; model: string; durationMs: number },
) {
  return {
    status: result.status,
    session_id: extra.sessionId,
    result: result.result,
    turns: result.turns,
    usage: {
      input_tokens: result.usage.inputTokens,
      output_tokens: result.usage.outputTokens,
      cache_read_tokens: result.usage.cacheReadTokens,
      cache_write_tokens: result.usage.cacheWriteTokens,
      reasoning_tokens: result.usage.reasoningTokens,
    },
    cost: {
      usd: result.cost.usd,
      exact: result.cost.exact,
      unpriced_turns: result.cost.unpricedTurns,
      ...(result.cost.enforcement
        ? {
          session_limit_enforced: result.cost.enforcement.enforced,
          enforcement_unavailable_reason: result.cost.enforcement.reason,
        }
        : {}),
    },
    budget_exhaustion: result.budgetExhaustion
      ? {
        reason: result.budgetExhaustion.reason,
        limit: result.budgetExhaustion.limit,
        used: result.budgetExhaustion.used,
      }
      : null,
    error: result.error ? { kind: result.error.kind, message: result.error.message } : null,
    provider: extra.provider,
    model: extra.model,
    duration_ms: extra.durationMs,
  };
}
