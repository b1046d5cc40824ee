import { BonsaiError } from "../errors.ts";
import type { SessionRuntime } from "./runtime.ts";

/**
 * What makes two failures "the same" for reporting: a typed error's code (a full disk's
 * message changes with the free space), else the text.
 */
export function failureKey(err: unknown): string {
  return err instanceof BonsaiError ? err.code : String(err);
}

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
 * reported once and retried on the next tick; nothing is dropped, and a tick never throws.
 */
export class Persister {
  #runtime: SessionRuntime;
  readonly #timers: Timers;
  readonly #onError: (err: unknown) => void;
  readonly #onRecovered: () => void;
  #timer: number | null = null;
  #failing: string | null = null;

  constructor(
    runtime: SessionRuntime,
    options: {
      timers?: Timers;
      onError?: (err: unknown) => void;
      onRecovered?: () => void;
    } = {},
  ) {
    this.#runtime = runtime;
    this.#timers = options.timers ?? realTimers;
    this.#onError = options.onError ?? (() => {});
    this.#onRecovered = options.onRecovered ?? (() => {});
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

  /** One cadence step; returns whether anything was written. Never throws. */
  tick(): boolean {
    let wrote: boolean;
    try {
      wrote = this.#runtime.flush();
    } catch (err) {
      // Report each distinct failure once; the changes stay dirty for the next tick.
      if (failureKey(err) !== this.#failing) this.#onError(err);
      this.#failing = failureKey(err);
      return false;
    }
    if (this.#failing !== null) {
      this.#failing = null;
      this.#onRecovered();
    }
    return wrote;
  }

  /** Stops the cadence and flushes synchronously (shutdown, signals, errors). Throws if that fails. */
  stop(): void {
    if (this.#timer !== null) this.#timers.clearInterval(this.#timer);
    this.#timer = null;
    this.#runtime.flush();
  }
}
