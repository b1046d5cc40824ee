import type { Clock } from "../../core/clock.ts";

/** A clock that moves only when told to. */
export class FakeClock implements Clock {
  #now: number;

  constructor(start = Date.UTC(2026, 10, 30, 9, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.#now += ms;
  }

  /** Jumps to an absolute time. */
  set(ms: number): void {
    this.#now = ms;
  }
}
