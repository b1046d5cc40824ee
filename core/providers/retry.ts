import type { ProviderFailure } from "./types.ts";

/** How a client retries transient failures. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** First backoff delay, ms; doubles per retry. */
  readonly baseDelayMs: number;
  /** Backoff ceiling, ms. */
  readonly maxBackoffMs: number;
  /** Longest server-requested wait honoured, ms. */
  readonly maxRetryAfterMs: number;
}

/** Defaults close to the official SDKs, with more patience for overloaded APIs. */
export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 6,
  baseDelayMs: 500,
  maxBackoffMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/** HTTP statuses worth another try (408 timeout, 409 lock, 429 rate limit, 5xx incl. 529 overloaded). */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The server's requested delay from `retry-after-ms` or `retry-after` (seconds or HTTP date), ms. */
export function retryAfterMs(headers: Headers, now: number): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) {
    return Math.max(0, Number(ms));
  }
  const after = headers.get("retry-after");
  if (after === null || after.trim() === "") return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (0-based): the server's wish (capped), else
 * exponential backoff with up to 25 % jitter downwards. `random` is in [0, 1).
 */
export function retryDelay(
  policy: RetryPolicy,
  retry: number,
  failure: ProviderFailure,
  random: number,
): number {
  if (failure.retryAfterMs !== null) return Math.min(failure.retryAfterMs, policy.maxRetryAfterMs);
  const backoff = Math.min(policy.baseDelayMs * 2 ** retry, policy.maxBackoffMs);
  return Math.round(backoff * (1 - random * 0.25));
}

/** Whether the `x-should-retry` header overrides the status-based decision. */
export function shouldRetryHeader(headers: Headers): boolean | null {
  const value = headers.get("x-should-retry")?.toLowerCase();
  if (value === "true") return true;
  if (value === "false") return false;
  return null;
}
