import { BonsaiError } from "../errors.ts";
import type { SessionRuntime } from "./runtime.ts";

/**
 * Reports the failures of work a timer repeats: each distinct failure once (a typed error
 * by its code: a full disk's message changes with the free space), and its end once.
 */
export class FailureReport {
  readonly #onError: (err: unknown) => void;
  readonly #onRecovered: () => void;
  #failing: string | null = null;

  constructor(onError: (err: unknown) => void, onRecovered: () => void) {
    this.#onError = onError;
    this.#onRecovered = onRecovered;
  }

  /** The work failed (it is retried next time). */
  failed(err: unknown): void {
    const key = err instanceof BonsaiError ? err.code : String(err);
    if (key !== this.#failing) this.#onError(err);
    this.#failing = key;
  }

  /** The work succeeded. */
  succeeded(): void {
    if (this.#failing === null) return;
    this.#failing = null;
    this.#onRecovered();
  }
}

/** The persistence cadence (L2): the REPL, headless runs, every front end. */
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
  readonly #report: FailureReport;
  #timer: number | null = null;

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
    this.#report = new FailureReport(
      options.onError ?? (() => {}),
      options.onRecovered ?? (() => {}),
    );
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
      // The changes stay dirty for the next tick.
      this.#report.failed(err);
      return false;
    }
    this.#report.succeeded();
    return wrote;
  }

  /** Stops the cadence and flushes synchronously (shutdown, signals, errors). Throws if that fails. */
  stop(): void {
    if (this.#timer !== null) this.#timers.clearInterval(this.#timer);
    this.#timer = null;
    this.#runtime.flush();
  }
}
