// Ids, words and token counts shared by the Codex rollout generators (gen_codex_logs.ts and
// codex_shapes.ts). Each function draws from the Prng it is given in a fixed order, so a
// generator's output depends only on its seed.
import type { Prng } from "./prng.ts";

const WORDS = (
  "the function returns a list of files we need to update test config parser handle error when " +
  "input is empty check module then run build fix type import export cache value request " +
  "response server client route handler schema query index migration component state render " +
  "async stream buffer token session user path directory option flag command output log lint " +
  "patch line edge case retry timeout limit loop array map key string number null default"
).split(" ");

/** Two hex digits per byte value. */
export const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Token counts as Codex writes them in token_count events. */
export interface Usage {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
  total_tokens: number;
}

/** All-zero counts. */
export function zeroUsage(): Usage {
  return {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
    total_tokens: 0,
  };
}

/** Adds `last` to the running total `total`, in place. */
export function addUsage(total: Usage, last: Usage): void {
  total.input_tokens += last.input_tokens;
  total.cached_input_tokens += last.cached_input_tokens;
  total.output_tokens += last.output_tokens;
  total.reasoning_output_tokens += last.reasoning_output_tokens;
  total.total_tokens += last.total_tokens;
}

/** A UUID v7 whose time prefix is `ms`, like Codex session ids. */
export function uuid7(rng: Prng, ms: number): string {
  const b = rng.bytes(16);
  let v = ms;
  for (let i = 5; i >= 0; i--) {
    b[i] = v % 256;
    v = Math.floor(v / 256);
  }
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  let s = "";
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += "-";
    s += HEX[b[i]!];
  }
  return s;
}

/** A sentence of `min` to `max` words. */
export function words(rng: Prng, min: number, max: number): string {
  const n = rng.int(min, max);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(rng.pick(WORDS));
  const s = out.join(" ");
  return s[0]!.toUpperCase() + s.slice(1) + ".";
}

/** `n` characters of URL-safe base64 (call ids, encrypted reasoning). */
export function b64(rng: Prng, n: number): string {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  let s = "";
  for (let i = 0; i < n; i++) s += chars[Math.floor(rng.next() * 64)];
  return s;
}
