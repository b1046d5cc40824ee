import { findModel, type ModelPrice } from "./model_catalog.ts";

/** Token counts of one response, normalised (input excludes cache reads and writes). */
export interface TokenCounts {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
}

/** Cost of one response and what it would have cost without caching. Null: no known price. */
export interface Cost {
  readonly usd: number | null;
  readonly baselineUsd: number | null;
}

const MILLION = 1_000_000;
const TIER = 200_000;

/**
 * Prices tokens with the bundled table. Long-context rates apply, per token category, to the
 * tokens beyond 200k (as ccusage computes them), for models that have such rates.
 */
export function priceTokens(model: string, t: TokenCounts): Cost {
  const info = findModel(model);
  if (!info) return { usd: null, baselineUsd: null };
  return { usd: costWith(info.price, t), baselineUsd: baselineWith(info.price, t) };
}

function tiered(tokens: number, base: number, above: number | undefined): number {
  if (tokens <= 0) return 0;
  if (above !== undefined && tokens > TIER) {
    return (TIER * base + (tokens - TIER) * above) / MILLION;
  }
  return (tokens * base) / MILLION;
}

function costWith(p: ModelPrice, t: TokenCounts): number {
  const a = p.above200k;
  return tiered(t.inputTokens, p.input, a?.input) +
    tiered(t.outputTokens, p.output, a?.output) +
    tiered(t.cacheWrite5mTokens, p.cacheWrite5m, a?.cacheWrite5m) +
    tiered(t.cacheWrite1hTokens, p.cacheWrite1h, a ? a.input * 2 : undefined) +
    tiered(t.cacheReadTokens, p.cacheRead, a?.cacheRead);
}

/** Every prompt token at the plain input rate: the no-cache baseline (U1). */
function baselineWith(p: ModelPrice, t: TokenCounts): number {
  const prompt = t.inputTokens + t.cacheReadTokens + t.cacheWrite5mTokens + t.cacheWrite1hTokens;
  return tiered(prompt, p.input, p.above200k?.input) +
    tiered(t.outputTokens, p.output, p.above200k?.output);
}
