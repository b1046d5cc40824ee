import type { Clock } from "../clock.ts";
import { HEARTBEAT_INTERVAL_MS } from "./liveness.ts";
import { realTimers, type Timers } from "./persister.ts";
import type { SessionRuntime } from "./runtime.ts";

/**
 * Stamps the session's liveness every 3 s (L3), separately from content so recency order is
 * untouched; each beat also saves the active time so far, so a crash loses at most one beat.
 */
export class Heartbeat {
  #runtime: SessionRuntime;
  readonly #clock: Clock;
  readonly #timers: Timers;
  #timer: number | null = null;

  readonly #afterBeat: () => void;

  constructor(
    runtime: SessionRuntime,
    clock: Clock,
    timers: Timers = realTimers,
    afterBeat: () => void = () => {},
  ) {
    this.#runtime = runtime;
    this.#clock = clock;
    this.#timers = timers;
    this.#afterBeat = afterBeat;
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

  /** One beat (then the maintenance hook); a failure (a busy database) is retried at the next beat. */
  beat(): void {
    try {
      this.#runtime.heartbeat(this.#clock.now());
      this.#afterBeat();
    } catch {
      // the next beat tries again; liveness tolerates one missed beat (15 s window)
    }
  }

  stop(): void {
    if (this.#timer !== null) this.#timers.clearInterval(this.#timer);
    this.#timer = null;
  }
}
