import type { ChatMessage, ToolSpec } from "../providers/types.ts";

/** Cache-route telemetry of one request (U1). */
export interface CacheTelemetry {
  /** Hash of the request up to (excluding) its newest message: the reusable prefix. */
  readonly prefixHash: string;
  /** True when this request does not extend the previous one (the cached prefix was rewritten). */
  readonly prefixRewrite: boolean;
  /** Share of prompt tokens the previous request should have left in cache, %, or null. */
  readonly expectedCacheReadPct: number | null;
}

/** How long a provider keeps a prefix cached without use. */
const CACHE_TTL_MS = 5 * 60_000;

/** Tracks consecutive requests of one conversation to predict and explain cache reads. */
export class CacheTracker {
  #previous: { hashes: string[]; promptTokens: number; at: number } | null = null;

  /** Telemetry for a request about to be sent. */
  observe(
    system: string,
    tools: readonly ToolSpec[],
    messages: readonly ChatMessage[],
    now: number,
  ): CacheTelemetry {
    const hashes = rollingHashes(system, tools, messages);
    const prefixHash = hashes[Math.max(0, hashes.length - 2)]!;
    const prev = this.#previous;
    let prefixRewrite = false;
    let expected: number | null = null;
    if (prev) {
      const extends_ = prev.hashes.length <= hashes.length &&
        hashes[prev.hashes.length - 1] === prev.hashes[prev.hashes.length - 1];
      prefixRewrite = !extends_;
      expected = extends_ && now - prev.at <= CACHE_TTL_MS ? -1 : 0; // -1: fill in once usage is known
    }
    this.#pending = { hashes, at: now, expected };
    return { prefixHash, prefixRewrite, expectedCacheReadPct: expected === -1 ? null : expected };
  }

  #pending: { hashes: string[]; at: number; expected: number | null } | null = null;

  /**
   * Records the prompt size of the response to the last observed request and returns the
   * expected cache-read share: the previous prompt (if still cached and extended) over this one.
   */
  settle(promptTokens: number): number | null {
    const pending = this.#pending;
    if (!pending) return null;
    let expected = pending.expected;
    if (expected === -1) {
      expected = promptTokens > 0
        ? Math.min(100, (this.#previous!.promptTokens / promptTokens) * 100)
        : 0;
    }
    this.#previous = { hashes: pending.hashes, promptTokens, at: pending.at };
    this.#pending = null;
    return expected === null ? null : Math.round(expected * 10) / 10;
  }
}

/** Hashes of the request after the system+tools header and after each message. */
function rollingHashes(
  system: string,
  tools: readonly ToolSpec[],
  messages: readonly ChatMessage[],
): string[] {
  const out: string[] = [];
  let h = fnv(`${system}\u0000${JSON.stringify(tools)}`, 0x811c9dc5);
  out.push(h.toString(16));
  for (const m of messages) {
    h = fnv(JSON.stringify(m), h);
    out.push(h.toString(16).padStart(8, "0"));
  }
  return out;
}

function fnv(text: string, seed: number): number {
  let h = seed | 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
