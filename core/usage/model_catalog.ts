// Known models: list prices (USD per million tokens) and limits. Prices follow the
// providers' published tables (as mirrored by LiteLLM, which ccusage also uses); 5-minute
// cache writes cost 1.25x input, 1-hour writes 2x input, cache reads 0.1x (Anthropic).

/** Prices of one model, USD per million tokens. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly cacheRead: number;
  /** Rates for the tokens of a category beyond 200k in one request (long-context models). */
  readonly above200k?: {
    readonly input: number;
    readonly output: number;
    readonly cacheWrite5m: number;
    readonly cacheRead: number;
  };
}

/** A known model. */
export interface ModelInfo {
  readonly id: string;
  readonly provider: "anthropic" | "openai";
  readonly price: ModelPrice;
  /** Input context window, tokens. */
  readonly contextWindow: number;
  readonly maxOutput: number;
}

const anthropic = (input: number, output: number, window = 200_000, maxOutput = 64_000) => ({
  provider: "anthropic" as const,
  price: {
    input,
    output,
    cacheWrite5m: input * 1.25,
    cacheWrite1h: input * 2,
    cacheRead: input * 0.1,
  },
  contextWindow: window,
  maxOutput,
});

const openai = (
  input: number,
  cached: number,
  output: number,
  window: number,
  maxOutput: number,
) => ({
  provider: "openai" as const,
  // OpenAI bills no cache writes; tokens it caches cost plain input.
  price: { input, output, cacheWrite5m: input, cacheWrite1h: input, cacheRead: cached },
  contextWindow: window,
  maxOutput,
});

const SONNET_LONG = { input: 6, output: 22.5, cacheWrite5m: 7.5, cacheRead: 0.6 };

const TABLE: Record<string, Omit<ModelInfo, "id">> = {
  "claude-opus-5": anthropic(5, 25, 1_000_000, 128_000),
  "claude-opus-4-8": anthropic(5, 25, 1_000_000, 128_000),
  "claude-opus-4-7": anthropic(5, 25, 1_000_000, 128_000),
  "claude-opus-4-6": anthropic(5, 25, 1_000_000, 128_000),
  "claude-opus-4-5": anthropic(5, 25),
  "claude-opus-4-1": anthropic(15, 75, 200_000, 32_000),
  "claude-opus-4": anthropic(15, 75, 200_000, 32_000),
  "claude-sonnet-5": anthropic(2, 10, 1_000_000, 128_000),
  "claude-sonnet-4-6": anthropic(3, 15, 1_000_000, 64_000),
  "claude-sonnet-4-5": {
    ...anthropic(3, 15),
    price: { ...anthropic(3, 15).price, above200k: SONNET_LONG },
  },
  "claude-sonnet-4": {
    ...anthropic(3, 15),
    price: { ...anthropic(3, 15).price, above200k: SONNET_LONG },
  },
  "claude-haiku-4-5": anthropic(1, 5),
  "claude-3-7-sonnet": anthropic(3, 15),
  "claude-3-5-sonnet": anthropic(3, 15, 200_000, 8_192),
  "claude-3-5-haiku": anthropic(0.8, 4, 200_000, 8_192),
  "claude-3-opus": anthropic(15, 75, 200_000, 4_096),
  "claude-3-haiku": anthropic(0.25, 1.25, 200_000, 4_096),
  "gpt-5.5": openai(2.5, 0.25, 15, 1_050_000, 128_000),
  "gpt-5.4": openai(2.5, 0.25, 15, 1_050_000, 128_000),
  "gpt-5.4-mini": openai(0.75, 0.075, 4.5, 400_000, 128_000),
  "gpt-5.4-nano": openai(0.2, 0.02, 1.25, 400_000, 128_000),
  "gpt-5.3-codex": openai(1.75, 0.175, 14, 272_000, 128_000),
  "gpt-5.2-codex": openai(1.75, 0.175, 14, 272_000, 128_000),
  "gpt-5.2": openai(1.75, 0.175, 14, 272_000, 128_000),
  "gpt-5.1-codex": openai(1.25, 0.125, 10, 272_000, 128_000),
  "gpt-5.1": openai(1.25, 0.125, 10, 272_000, 128_000),
  "gpt-5-codex": openai(1.25, 0.125, 10, 272_000, 128_000),
  "gpt-5": openai(1.25, 0.125, 10, 272_000, 128_000),
  "gpt-5-mini": openai(0.25, 0.025, 2, 272_000, 128_000),
  "gpt-5-nano": openai(0.05, 0.005, 0.4, 272_000, 128_000),
  "gpt-4.1": openai(2, 0.5, 8, 1_047_576, 32_768),
  "gpt-4.1-mini": openai(0.4, 0.1, 1.6, 1_047_576, 32_768),
  "gpt-4.1-nano": openai(0.1, 0.025, 0.4, 1_047_576, 32_768),
  "gpt-4o": openai(2.5, 1.25, 10, 128_000, 16_384),
  "gpt-4o-2024-05-13": openai(5, 5, 15, 128_000, 4_096),
  "gpt-4o-mini": openai(0.15, 0.075, 0.6, 128_000, 16_384),
  "o4-mini": openai(1.1, 0.275, 4.4, 200_000, 100_000),
  "o3-mini": openai(1.1, 0.55, 4.4, 200_000, 100_000),
  "o3": openai(2, 0.5, 8, 200_000, 100_000),
  "o1": openai(15, 7.5, 60, 200_000, 100_000),
};

const KEYS = Object.keys(TABLE).sort((a, b) => b.length - a.length);

/** Lower-cases and strips routing prefixes and suffixes (`anthropic/`, Bedrock, Vertex `@date`). */
export function normaliseModelId(model: string): string {
  const id = model.trim().toLowerCase()
    .replace(/^[a-z0-9-]+\//, "") // openrouter/litellm "provider/"
    .replace(/^(?:[a-z]{2}\.|global\.)?anthropic\./, "") // bedrock
    .replace(/-v\d+:\d+$/, "")
    .replace(/@/g, "-");
  // Claude versions are written with dashes ("claude-3-5-sonnet"); routers use dots.
  return id.startsWith("claude") ? id.replace(/\./g, "-") : id;
}

/**
 * The catalogue entry for a model id: exact id, then the id without a date suffix
 * (`-20250929`, `-2024-08-06`), then the longest known id it starts with at a `-`
 * boundary (`claude-sonnet-4-5-latest`). Null for unknown models.
 */
export function findModel(model: string): ModelInfo | null {
  const id = normaliseModelId(model);
  const undated = id.replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2})$/, "");
  for (const key of [id, undated]) {
    const hit = TABLE[key];
    if (hit) return { id: key, ...hit };
  }
  for (const key of KEYS) {
    if (undated.startsWith(`${key}-`) && !/^\d/.test(undated.slice(key.length + 1))) {
      return { id: key, ...TABLE[key]! };
    }
  }
  return null;
}

/** Every known model id. */
export function knownModels(): string[] {
  return Object.keys(TABLE);
}
