import { ledgerTotals } from "../agent/ledger_entry.ts";
import type { RunResult } from "../agent/loop.ts";
import type { TurnOutcome } from "./end_state.ts";

/**
 * The stable JSON object of a headless run (A2): one per run, on stdout with --json. Usage
 * and cost cover every ledger row the run wrote, its self-review included. A run cancelled
 * after the reply (during verification) is `cancelled`.
 */
export function runJson(
  outcome: TurnOutcome,
  extra: {
    sessionId: string;
    provider: string;
    model: string;
    durationMs: number;
  },
) {
  const run = outcome.result;
  const review = outcome.review;
  const totals = ledgerTotals([...run.ledger, ...(review?.ledger ?? [])]);
  const result: RunResult = {
    ...run,
    status: outcome.cancelledBy !== null && run.status === "completed" ? "cancelled" : run.status,
    usage: totals.usage,
    cost: { ...totals.cost, enforcement: run.cost.enforcement },
  };
  const v = review?.verification ?? null;
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
      unpriced_attempts: result.cost.unpricedAttempts,
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
    verification: v
      ? {
        command: v.command,
        exit_code: v.exitCode,
        duration_ms: v.durationMs,
        passed: v.exitCode === 0,
      }
      : null,
    self_review: review?.reviewed
      ? {
        findings: review.findings.map((f) => ({
          severity: f.severity,
          path: f.path,
          message: f.message,
        })),
      }
      : null,
    provider: extra.provider,
    model: extra.model,
    duration_ms: extra.durationMs,
  };
}
