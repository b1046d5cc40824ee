import type { SessionRuntime } from "./runtime.ts";

/** The REPL's persistence cadence (L2). */
export const FLUSH_INTERVAL_MS = 500;

/** Timers, injected so tests tick by hand. */
export interface Timers {
  setInterval(fn: () => void, ms: number): number;
  clearInterval(id: number): void;
}

/** The real timers. */
export const realTimers: Timers = {
  setInterval: (fn, ms) => setInterval(fn, ms) as unknown as number,
  clearInterval: (id) => clearInterval(id),
};

/**
 * Flushes a session runtime every 500 ms: only the groups that changed, in one transaction
 * (the runtime tracks what changed; an unchanged tick does no I/O). A failed flush is
 * reported and retried on the next tick; nothing is dropped.
 */
export class Persister {
  #runtime: SessionRuntime;
  readonly #timers: Timers;
  readonly #onError: (err: unknown) => void;
  #timer: number | null = null;
  #lastError: unknown = null;

  constructor(
    runtime: SessionRuntime,
    options: { timers?: Timers; onError?: (err: unknown) => void } = {},
  ) {
    this.#runtime = runtime;
    this.#timers = options.timers ?? realTimers;
    this.#onError = options.onError ?? (() => {});
  }

  /** Follows another session (after /new or /resume). */
  switchTo(runtime: SessionRuntime): void {
    this.#runtime = runtime;
  }

  /** Starts the cadence. */
  start(intervalMs = FLUSH_INTERVAL_MS): void {
    if (this.#timer !== null) return;
    this.#timer = this.#timers.setInterval(() => this.tick(), intervalMs);
  }

  /** One cadence step; returns whether anything was written. */
  tick(): boolean {
    try {
      const wrote = this.#runtime.flush();
      this.#lastError = null;
      return wrote;
    } catch (err) {
      // Report each distinct failure once; the changes stay dirty for the next tick.
      if (String(err) !== String(this.#lastError)) this.#onError(err);
      this.#lastError = err;
      return false;
    }
  }

  /** Stops the cadence and flushes synchronously (shutdown, signals, errors). Throws if that fails. */
  stop(): void {
    if (this.#timer !== null) this.#timers.clearInterval(this.#timer);
    this.#timer = null;
    this.#runtime.flush();
  }
}
