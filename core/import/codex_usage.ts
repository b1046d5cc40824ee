// The usage of Codex responses, from a rollout's token_count events. Each event carries
// `last_token_usage` (the response) and `total_token_usage` (the session so far); Codex
// writes the same event again now and then, which must not count twice. `input_tokens`
// includes `cached_input_tokens`; `output_tokens` includes `reasoning_output_tokens`.
// The rules are ccusage 20's, so that both count the same tokens.
import { z } from "zod";

const Count = z.number().finite().nonnegative();
const TokenUsage = z.object({
  input_tokens: Count.optional(),
  cached_input_tokens: Count.optional(),
  cache_write_input_tokens: Count.optional(),
  output_tokens: Count.optional(),
  reasoning_output_tokens: Count.optional(),
  total_tokens: Count.optional(),
}).passthrough();

/** The token counts of one response (or a running total), missing counts as 0. */
export interface RawUsage {
  readonly input: number;
  readonly cached: number;
  readonly cacheWrite: number;
  readonly output: number;
  readonly reasoning: number;
  readonly total: number;
}

/** A usage event of a rollout: a response's counts and the running total after it, if given. */
export interface UsageEvent {
  readonly usage: RawUsage;
  readonly total: RawUsage | null;
}

function raw(value: unknown): RawUsage | null {
  if (value === null || value === undefined) return null;
  const parsed = TokenUsage.safeParse(value);
  if (!parsed.success) return null;
  const u = parsed.data;
  return {
    input: u.input_tokens ?? 0,
    cached: u.cached_input_tokens ?? 0,
    cacheWrite: u.cache_write_input_tokens ?? 0,
    output: u.output_tokens ?? 0,
    reasoning: u.reasoning_output_tokens ?? 0,
    total: u.total_tokens ?? 0,
  };
}

/** Whether two counts are the same in every field. */
export function sameUsage(a: RawUsage, b: RawUsage): boolean {
  return a.input === b.input && a.cached === b.cached && a.cacheWrite === b.cacheWrite &&
    a.output === b.output && a.reasoning === b.reasoning && a.total === b.total;
}

function minus(total: RawUsage, previous: RawUsage | null): RawUsage {
  const d = (k: keyof RawUsage) => Math.max(0, total[k] - (previous?.[k] ?? 0));
  return {
    input: d("input"),
    cached: d("cached"),
    cacheWrite: d("cacheWrite"),
    output: d("output"),
    reasoning: d("reasoning"),
    total: d("total"),
  };
}

/** Whether a token_count payload has usage at all (ccusage's test for the start of a fork's replay). */
export function hasUsageInfo(payload: Record<string, unknown>): boolean {
  const info = payload.info as Record<string, unknown> | null | undefined;
  return !!info && typeof info === "object" &&
    (raw(info.last_token_usage) !== null || raw(info.total_token_usage) !== null);
}

/**
 * Turns a rollout's token_count payloads, in file order, into usage events: an event that
 * repeats the running total adds nothing (counted as a duplicate); without
 * `last_token_usage` the response is the growth of the total; an event of all zeros is none.
 */
export class UsageTracker {
  #previous: RawUsage | null = null;
  /** Events dropped because they repeated the running total. */
  duplicates = 0;

  /** The response a token_count payload records, or null when it records none. */
  next(payload: Record<string, unknown>): UsageEvent | null {
    const info = payload.info as Record<string, unknown> | null | undefined;
    if (!info || typeof info !== "object") return null;
    const total = raw(info.total_token_usage);
    const advanced = total === null || this.#previous === null ||
      !sameUsage(total, this.#previous);
    if (total && !advanced) this.duplicates++;
    const last = advanced ? raw(info.last_token_usage) : null;
    const usage = last ?? (total ? minus(total, this.#previous) : null);
    if (total) this.#previous = total;
    if (!usage) return null;
    if (
      usage.input === 0 && usage.cached === 0 && usage.cacheWrite === 0 && usage.output === 0 &&
      usage.reasoning === 0
    ) return null;
    return { usage, total };
  }
}
