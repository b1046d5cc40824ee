// Known models: prices and context windows from the bundled dataset (price_dataset.ts), plus
// bonsai's own entries for what the dataset lacks. Those are, and only are:
// - max output tokens (the dataset has none): MAX_OUTPUT below;
// - the input limit of OpenAI's GPT-5 to 5.3 models, 272k, below their 400k window (the
//   dataset gives the window; a compaction threshold must stay under the input limit);
// - Claude Sonnet 4's long-context tier over 200k ($6 / $22.50, cache writes $7.50 / $12,
//   reads $0.60, as Anthropic publishes it), which the dataset leaves out.
import { type DatasetModel, datasetModel } from "./price_dataset.ts";
import type { ModelPrice, PricePeriod } from "./rates.ts";

/** A known model. */
export interface ModelInfo {
  /** The dataset's id for it (`claude-sonnet-4-5` for `claude-sonnet-4-5-20250929`). */
  readonly id: string;
  /** Who authors it: `anthropic`, `openai`, `google`, `deepseek`, `mistral`, `x-ai`, ... */
  readonly provider: string;
  readonly price: ModelPrice;
  /** Input context window, tokens; null when unknown. */
  readonly contextWindow: number | null;
  /** Output limit per response, tokens; null when unknown. */
  readonly maxOutput: number | null;
}

/** Max output tokens, by dataset id (the dataset has none). */
const MAX_OUTPUT: Record<string, number> = {
  "claude-fable-5": 128_000,
  "claude-fable-5-1": 128_000,
  "claude-opus-5-5": 128_000,
  "claude-opus-5": 128_000,
  "claude-opus-4-8": 128_000,
  "claude-opus-4-7": 128_000,
  "claude-opus-4-6": 128_000,
  "claude-opus-4-5": 64_000,
  "claude-opus-4-1": 32_000,
  "claude-opus-4-0": 32_000,
  "claude-sonnet-5": 128_000,
  "claude-sonnet-4-6": 64_000,
  "claude-sonnet-4-5": 64_000,
  "claude-sonnet-4-0": 64_000,
  "claude-haiku-4-5": 64_000,
  "claude-3-7-sonnet-latest": 64_000,
  "claude-3-5-sonnet": 8_192,
  "claude-3-5-haiku-latest": 8_192,
  "claude-3-opus-latest": 4_096,
  "claude-3-haiku": 4_096,
  "gpt-5.6-sol": 128_000,
  "gpt-5.6-terra": 128_000,
  "gpt-5.6-luna": 128_000,
  "gpt-5.5": 128_000,
  "gpt-5.4": 128_000,
  "gpt-5.4-mini": 128_000,
  "gpt-5.4-nano": 128_000,
  "gpt-5.3-codex": 128_000,
  "gpt-5.2": 128_000,
  "gpt-5.1": 128_000,
  "gpt-5.1-codex-mini": 128_000,
  "gpt-5": 128_000,
  "gpt-5-mini": 128_000,
  "gpt-5-nano": 128_000,
  "gpt-4.1": 32_768,
  "gpt-4.1-mini": 32_768,
  "gpt-4.1-nano": 32_768,
  "gpt-4o": 16_384,
  "gpt-4o-2024-05-13": 4_096,
  "gpt-4o-mini": 16_384,
  "o4-mini": 100_000,
  "o3-mini": 100_000,
  "o3": 100_000,
  "o1": 100_000,
};

/** Models whose input is limited below their context window. */
const INPUT_LIMIT: Record<string, number> = {
  "gpt-5": 272_000,
  "gpt-5-mini": 272_000,
  "gpt-5-nano": 272_000,
  "gpt-5.1": 272_000,
  "gpt-5.1-codex-mini": 272_000,
  "gpt-5.2": 272_000,
  "gpt-5.3-codex": 272_000,
};

const SONNET_4_LONG = {
  above: 200_000,
  input: 6,
  output: 22.5,
  cacheRead: 0.6,
  cacheWrite: 7.5,
  cacheWrite1h: 12,
};

/** Tiers the dataset lacks, added to each of the model's periods that has none. */
const TIERS: Record<string, readonly (typeof SONNET_4_LONG)[]> = {
  "claude-sonnet-4-0": [SONNET_4_LONG],
};

function withTiers(id: string, price: ModelPrice): ModelPrice {
  const tiers = TIERS[id];
  if (!tiers) return price;
  return {
    periods: price.periods.map((p): PricePeriod => (p.tiers.length > 0 ? p : { ...p, tiers })),
  };
}

/** A model of the bundled table with bonsai's own additions. */
export function catalogEntry(m: DatasetModel): ModelInfo {
  const window = Math.min(m.contextWindow ?? Infinity, INPUT_LIMIT[m.id] ?? Infinity);
  return {
    id: m.id,
    provider: m.provider,
    price: withTiers(m.id, m.price),
    contextWindow: Number.isFinite(window) ? window : null,
    maxOutput: MAX_OUTPUT[m.id] ?? null,
  };
}

const known = new Map<string, ModelInfo | null>();

/**
 * The catalogue entry for a model id as providers, routers and logs write it (dated ids such
 * as `claude-sonnet-4-5-20250929`, `anthropic/claude-sonnet-4.5`, Bedrock and Vertex ids);
 * null for unknown models and local ones (see datasetModel).
 */
export function findModel(model: string): ModelInfo | null {
  if (known.has(model)) return known.get(model)!;
  const m = datasetModel(model);
  const result = m && catalogEntry(m);
  if (known.size > 10_000) known.clear();
  known.set(model, result);
  return result;
}

/** Whether bonsai adds something of its own to this dataset model (for `bonsai prices`). */
export function ownAdditions(id: string): string[] {
  const out: string[] = [];
  if (MAX_OUTPUT[id] !== undefined) out.push("max output");
  if (INPUT_LIMIT[id] !== undefined) out.push("input limit");
  if (TIERS[id]) out.push("long-context tier");
  return out;
}
