// What a model's tokens cost: rates per kind of token, long-context tiers, and the periods a
// price held in (dated changes, time-of-day windows). Pure arithmetic; no table lookups.

/** USD per million tokens. A cache rate left out costs what the next broader kind costs. */
export interface Rates {
  readonly input: number;
  readonly output: number;
  /** Absent: the input rate. */
  readonly cacheRead?: number;
  /** 5-minute cache writes; absent: the input rate. */
  readonly cacheWrite?: number;
  /** 1-hour cache writes; absent: the 5-minute rate. */
  readonly cacheWrite1h?: number;
}

/**
 * Long-context rates: a request whose prompt (uncached input, cache reads and cache writes
 * together) is over `above` tokens is billed whole at these rates, as Anthropic (over 200k)
 * and OpenAI (over 272k) bill it.
 */
export interface Tier extends Rates {
  readonly above: number;
}

/** One price of a model and when it holds. */
export interface PricePeriod {
  /** From this UTC day (YYYY-MM-DD) on; absent with `window` absent too: the base price. */
  readonly since?: string;
  /** Within this UTC time of day each day (`HH:MM:SSZ`, end exclusive; may wrap midnight). */
  readonly window?: { readonly from: string; readonly to: string };
  readonly rates: Rates;
  /** Ascending by `above`. */
  readonly tiers: readonly Tier[];
}

/** A model's prices: the first period is the base one; later ones win while they hold. */
export interface ModelPrice {
  readonly periods: readonly PricePeriod[];
}

/** Token counts of one response, normalised (input excludes cache reads and writes). */
export interface TokenCounts {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
}

const MILLION = 1_000_000;
const DAY_S = 86_400;

/** Seconds into the UTC day of `HH:MM:SS[.fff]Z`. */
function secondsOfDay(time: string): number {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z$/.exec(time);
  if (!m) throw new RangeError(`Invalid time of day '${time}'`);
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

function holds(p: PricePeriod, at: number): boolean {
  if (p.window) {
    const now = Math.floor(at / 1000) % DAY_S;
    const from = secondsOfDay(p.window.from);
    const to = secondsOfDay(p.window.to);
    return to < from ? now >= from || now < to : now >= from && now < to;
  }
  if (p.since !== undefined) return at >= Date.parse(`${p.since}T00:00:00Z`);
  return true;
}

/** The period in force at `at` (epoch ms): the last one that holds, else the base one. */
export function periodAt(price: ModelPrice, at: number): PricePeriod {
  for (let i = price.periods.length - 1; i > 0; i--) {
    const p = price.periods[i]!;
    if (holds(p, at)) return p;
  }
  return price.periods[0]!;
}

/** Tokens of the prompt: what long-context tiers are decided on. */
export function promptTokens(t: TokenCounts): number {
  return t.inputTokens + t.cacheReadTokens + t.cacheWrite5mTokens + t.cacheWrite1hTokens;
}

/** The rates of a request with `prompt` prompt tokens: the highest tier it is over, else base. */
export function ratesFor(period: PricePeriod, prompt: number): Rates {
  let rates: Rates = period.rates;
  for (const tier of period.tiers) if (prompt > tier.above) rates = tier;
  return rates;
}

/** USD of the tokens at these rates. */
export function costWith(r: Rates, t: TokenCounts): number {
  const write5m = r.cacheWrite ?? r.input;
  return (t.inputTokens * r.input + t.outputTokens * r.output +
    t.cacheReadTokens * (r.cacheRead ?? r.input) + t.cacheWrite5mTokens * write5m +
    t.cacheWrite1hTokens * (r.cacheWrite1h ?? write5m)) / MILLION;
}

/** Every prompt token at the plain input rate: the no-cache baseline (U1). */
export function baselineWith(r: Rates, t: TokenCounts): number {
  return (promptTokens(t) * r.input + t.outputTokens * r.output) / MILLION;
}
