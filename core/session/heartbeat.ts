import type { Clock } from "../clock.ts";
import { HEARTBEAT_INTERVAL_MS } from "./liveness.ts";
import { FailureReport, realTimers, type Timers } from "./persister.ts";
import type { SessionRuntime } from "./runtime.ts";

/**
 * Stamps the session's liveness every 3 s (L3), separately from content so recency order is
 * untouched; each beat also saves the active time so far, so a crash loses at most one beat.
 * A failed beat (a busy or full disk) is reported once and retried at the next beat: the
 * 15 s liveness window tolerates a few.
 */
export class Heartbeat {
  #runtime: SessionRuntime;
  readonly #clock: Clock;
  readonly #timers: Timers;
  readonly #report: FailureReport;
  readonly #activity: () => string | null;
  #timer: number | null = null;

  constructor(
    runtime: SessionRuntime,
    options: {
      clock: Clock;
      timers?: Timers;
      /** What the owner is doing, sent with each beat (peers show it). */
      activity?: () => string | null;
      onError?: (err: unknown) => void;
      onRecovered?: () => void;
    },
  ) {
    this.#runtime = runtime;
    this.#clock = options.clock;
    this.#timers = options.timers ?? realTimers;
    this.#activity = options.activity ?? (() => null);
    this.#report = new FailureReport(
      options.onError ?? (() => {}),
      options.onRecovered ?? (() => {}),
    );
  }

  /** Follows another session. */
  switchTo(runtime: SessionRuntime): void {
    this.#runtime = runtime;
    this.beat();
  }

  start(): void {
    if (this.#timer !== null) return;
    this.beat();
    this.#timer = this.#timers.setInterval(() => this.beat(), HEARTBEAT_INTERVAL_MS);
  }

  /** One beat; never throws. Returns whether it was stamped. */
  beat(): boolean {
    try {
      this.#runtime.heartbeat(this.#clock.now(), this.#activity());
    } catch (err) {
      this.#report.failed(err);
      return false;
    }
    this.#report.succeeded();
    return true;
  }

  stop(): void {
    if (this.#timer !== null) this.#timers.clearInterval(this.#timer);
    this.#timer = null;
  }
}
