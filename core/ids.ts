import type { Clock } from "./clock.ts";

/** Produces time-ordered unique ids; injected so tests get repeatable ids. */
export interface Ids {
  /** A new ULID in lower case: 10 time characters then 16 random ones, monotonic within a process. */
  next(): string;
  /** A new opaque random token (cache keys, API tokens). */
  token(): string;
  /** A new ULID for a given time (imported sessions keep their original creation order). */
  at(ms: number): string;
}

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case

/** Random bytes; the real one wraps crypto.getRandomValues. */
export type RandomBytes = (length: number) => Uint8Array;

/** Builds a ULID source over a clock and a random byte source. */
export function ulidSource(clock: Clock, random: RandomBytes): Ids {
  let lastTime = -1;
  let lastRandom: number[] = [];
  return {
    next() {
      const time = clock.now();
      if (time <= lastTime) {
        // Same (or earlier) millisecond: keep order by incrementing the random part.
        incrementBase32(lastRandom);
      } else {
        lastTime = time;
        lastRandom = Array.from(random(16), (b) => b & 31);
      }
      return encodeTime(lastTime) + lastRandom.map((d) => ALPHABET[d]).join("");
    },
    token() {
      return Array.from(random(24), (b) => ALPHABET[b & 31]).join("");
    },
    at(ms) {
      return encodeTime(Math.max(0, Math.floor(ms))) +
        Array.from(random(16), (b) => ALPHABET[b & 31]).join("");
    },
  };
}

function encodeTime(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`Invalid ULID time: ${ms}`);
  let out = "";
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function incrementBase32(digits: number[]): void {
  for (let i = digits.length - 1; i >= 0; i--) {
    const d = digits[i]!;
    if (d < 31) {
      digits[i] = d + 1;
      return;
    }
    digits[i] = 0;
  }
  throw new RangeError("ULID random part overflowed within one millisecond");
}

/** The time encoded in a ULID, epoch milliseconds. */
export function ulidTime(id: string): number {
  let ms = 0;
  for (const ch of id.slice(0, 10).toLowerCase()) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) throw new RangeError(`Not a ULID: '${id}'`);
    ms = ms * 32 + v;
  }
  return ms;
}

/** The smallest ULID for a given time; useful as a lower bound when ids must sort among others. */
export function ulidAt(ms: number, suffix = "0000000000000000"): string {
  return encodeTime(ms) + suffix;
}

/** The real random source. */
export const cryptoRandom: RandomBytes = (length) => crypto.getRandomValues(new Uint8Array(length));
