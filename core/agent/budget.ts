// Budgets (B1-B5): every limit is checked in one place, before each provider call.
// Per-attempt limits (generation time, streamed characters) are also watched during the
// stream; the tool time limit is applied per tool call.

/** Why a run stopped on a budget. */
export type BudgetReason =
  | "max_turns"
  | "run_time"
  | "generation_time"
  | "output_chars"
  | "session_turns"
  | "session_output"
  | "session_time"
  | "session_cost"
  | "provider_rate_limit";

/** All limits; absent means off (the default for every one). */
export interface BudgetLimits {
  readonly maxTurns?: number;
  readonly maxRunTimeMs?: number;
  readonly maxGenerationMs?: number;
  readonly maxOutputChars?: number;
  readonly toolTimeoutMs?: number;
  readonly sessionMaxTurns?: number;
  readonly sessionMaxOutput?: number;
  readonly sessionMaxTimeMs?: number;
  readonly sessionMaxCostUsd?: number;
}

/** A typed exhaustion: which limit, its value, and how much was used. */
export interface Exhaustion {
  readonly reason: BudgetReason;
  readonly limit: number;
  readonly used: number;
}

/** The session's totals from its persisted ledger (cumulative across resumes). */
export interface SessionUsage {
  /** Completed model responses, every lane. */
  readonly turns: number;
  /** Characters streamed, failed attempts included. */
  readonly outputChars: number;
  /** Foreground run time. */
  readonly activeMs: number;
  readonly costUsd: number;
  /** False when a turn has no known price or no exact usage. */
  readonly costExact: boolean;
  /** Why the cost is not exact, for the report. */
  readonly inexactReason: string | null;
}

/** The run so far. */
export interface RunUsage {
  readonly turns: number;
  readonly startedAt: number;
  readonly now: number;
}

/** The first limit that is spent, or null. Called before every provider call. */
export function checkBudgets(
  limits: BudgetLimits,
  run: RunUsage,
  session: SessionUsage,
): Exhaustion | null {
  const checks: [BudgetReason, number | undefined, number][] = [
    ["max_turns", limits.maxTurns, run.turns],
    ["run_time", limits.maxRunTimeMs, run.now - run.startedAt],
    ["session_turns", limits.sessionMaxTurns, session.turns],
    ["session_output", limits.sessionMaxOutput, session.outputChars],
    ["session_time", limits.sessionMaxTimeMs, session.activeMs],
  ];
  for (const [reason, limit, used] of checks) {
    if (limit !== undefined && used >= limit) return { reason, limit, used };
  }
  const maxCost = limits.sessionMaxCostUsd;
  // The cost limit is enforced only while the cost is exact (B4); otherwise the report says so.
  if (maxCost !== undefined && session.costExact && session.costUsd >= maxCost) {
    return { reason: "session_cost", limit: maxCost, used: session.costUsd };
  }
  return null;
}

/** Whether the session cost limit can be enforced exactly, and if not, why. */
export function costEnforcement(
  limits: BudgetLimits,
  session: SessionUsage,
): { enforced: boolean; reason: string | null } | null {
  if (limits.sessionMaxCostUsd === undefined) return null;
  return session.costExact
    ? { enforced: true, reason: null }
    : { enforced: false, reason: session.inexactReason ?? "cost is not exact" };
}
