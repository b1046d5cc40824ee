/** A source of wall-clock time in integer epoch milliseconds; injected so tests control time. */
export interface Clock {
  /** Current time, epoch milliseconds. */
  now(): number;
}

/** The real clock, used only by the composition root. */
export const systemClock: Clock = { now: () => Date.now() };
