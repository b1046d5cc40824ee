import assert from "node:assert/strict";
import { findModel } from "../../../core/usage/model_catalog.ts";
import { PRICE_SOURCE } from "../../../core/usage/price_dataset.ts";
import { priceTokens, type TokenCounts } from "../../../core/usage/pricing.ts";
import { ledgerEntryFor } from "../../../core/agent/ledger_entry.ts";
import { importedUsage } from "../../../core/import/imported_usage.ts";

const tokens = (t: Partial<TokenCounts>): TokenCounts => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  ...t,
});

/** One million tokens of each kind, priced separately: the per-million rates themselves. */
function rates(model: string, at?: number) {
  const one = (t: Partial<TokenCounts>) => priceTokens(model, tokens(t), { at }).usd;
  const M = 1_000_000;
  // A million of one kind is under every long-context threshold only for the kinds that are
  // not prompt tokens; prompt kinds are priced at 100k and scaled, to stay under the tiers.
  const k = 100_000;
  const scale = (v: number | null) => v === null ? null : Math.round((v * M) / k * 1e6) / 1e6;
  return {
    input: scale(one({ inputTokens: k })),
    output: one({ outputTokens: M }),
    cacheRead: scale(one({ cacheReadTokens: k })),
    cacheWrite5m: scale(one({ cacheWrite5mTokens: k })),
    cacheWrite1h: scale(one({ cacheWrite1hTokens: k })),
  };
}

const close = (actual: number | null, expected: number, what: string) => {
  assert.ok(actual !== null, `${what}: no price`);
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);
};

// The providers' published rates, USD per million tokens (input, output, cache read,
// 5-minute write, 1-hour write), as of the bundled table's date.
const PUBLISHED: [model: string, rates: [number, number, number, number, number]][] = [
  // Anthropic (docs.anthropic.com pricing): writes 1.25x (5 min) and 2x (1 h), reads 0.1x.
  ["claude-sonnet-4-5-20250929", [3, 15, 0.3, 3.75, 6]],
  ["claude-opus-4-5-20251101", [5, 25, 0.5, 6.25, 10]],
  ["claude-opus-4-1-20250805", [15, 75, 1.5, 18.75, 30]],
  ["claude-haiku-4-5-20251001", [1, 5, 0.1, 1.25, 2]],
  ["claude-sonnet-4-20250514", [3, 15, 0.3, 3.75, 6]],
  // OpenAI: no cache-write charge before GPT-5.6 (writes cost plain input).
  ["gpt-5", [1.25, 10, 0.125, 1.25, 1.25]],
  ["gpt-5-codex", [1.25, 10, 0.125, 1.25, 1.25]],
  ["gpt-5.5", [5, 30, 0.5, 5, 5]],
  ["gpt-5.4-mini", [0.75, 4.5, 0.075, 0.75, 0.75]],
  // Google Gemini 2.5.
  ["gemini-2.5-pro", [1.25, 10, 0.125, 1.25, 1.25]],
  ["gemini-2.5-flash", [0.3, 2.5, 0.03, 0.3, 0.3]],
  // DeepSeek V4 (api-docs.deepseek.com).
  ["deepseek-v4-flash", [0.22, 0.66, 0.007, 0.22, 0.22]],
  // Mistral.
  ["codestral-2508", [0.3, 0.9, 0.03, 0.3, 0.3]],
  ["mistral-large-2512", [0.5, 1.5, 0.05, 0.5, 0.5]],
  // xAI.
  ["grok-code-fast-1", [0.2, 1.5, 0.02, 0.2, 0.2]],
  ["grok-4", [3, 15, 0.75, 3, 3]],
];

Deno.test("a price for each provider family matches its published rate", async (t) => {
  const at = Date.parse("2026-11-15T12:00:00Z");
  for (const [model, [input, output, read, write5m, write1h]] of PUBLISHED) {
    await t.step(model, () => {
      const r = rates(model, at);
      close(r.input, input, `${model} input`);
      close(r.output, output, `${model} output`);
      close(r.cacheRead, read, `${model} cache read`);
      close(r.cacheWrite5m, write5m, `${model} 5-minute write`);
      close(r.cacheWrite1h, write1h, `${model} 1-hour write`);
    });
  }
});

Deno.test("long-context tiers bill the whole request at the higher rates, per model threshold", async (t) => {
  await t.step(
    "Claude Sonnet 4.5 over 200k prompt tokens: $6 / $22.50, reads $0.60, 1-hour writes $12",
    () => {
      const below = tokens({ inputTokens: 10_000, cacheReadTokens: 190_000, outputTokens: 1_000 });
      close(
        priceTokens("claude-sonnet-4-5", below).usd,
        (10_000 * 3 + 190_000 * 0.3 + 1_000 * 15) / 1e6,
        "at 200k",
      );
      const above = tokens({
        inputTokens: 10_000,
        cacheReadTokens: 150_000,
        cacheWrite5mTokens: 30_000,
        cacheWrite1hTokens: 20_000,
        outputTokens: 1_000,
      });
      const cost = priceTokens("claude-sonnet-4-5-20250929", above);
      close(
        cost.usd,
        (10_000 * 6 + 150_000 * 0.6 + 30_000 * 7.5 + 20_000 * 12 + 1_000 * 22.5) / 1e6,
        "over 200k",
      );
      close(cost.baselineUsd, (210_000 * 6 + 1_000 * 22.5) / 1e6, "baseline over 200k");
    },
  );
  await t.step("Claude Sonnet 4 (bonsai adds the tier the dataset lacks)", () => {
    close(
      priceTokens("claude-sonnet-4-20250514", tokens({ inputTokens: 250_000, outputTokens: 100 }))
        .usd,
      (250_000 * 6 + 100 * 22.5) / 1e6,
      "sonnet 4 over 200k",
    );
  });
  await t.step("GPT-5.5 at 272k prompt tokens and more: $10 / $45, cached $1", () => {
    const at = tokens({ inputTokens: 72_000, cacheReadTokens: 200_000, outputTokens: 2_000 });
    close(
      priceTokens("gpt-5.5", at).usd,
      (72_000 * 10 + 200_000 * 1 + 2_000 * 45) / 1e6,
      "at 272k",
    );
    const under = tokens({ inputTokens: 71_999, cacheReadTokens: 200_000, outputTokens: 2_000 });
    close(
      priceTokens("gpt-5.5", under).usd,
      (71_999 * 5 + 200_000 * 0.5 + 2_000 * 30) / 1e6,
      "under 272k",
    );
  });
  await t.step("Gemini 2.5 Pro over 200k: $2.50 / $15", () => {
    close(
      priceTokens("gemini-2.5-pro", tokens({ inputTokens: 300_000, outputTokens: 1_000 })).usd,
      (300_000 * 2.5 + 1_000 * 15) / 1e6,
      "gemini over 200k",
    );
  });
});

Deno.test("prices that changed over time are taken at the request's time", async (t) => {
  const M = tokens({ inputTokens: 100_000, outputTokens: 100_000 });
  await t.step("GPT-5.6 Luna: $1 / $6 at launch, $0.20 / $1.20 from 2026-07-30", () => {
    close(
      priceTokens("gpt-5.6-luna", M, { at: Date.parse("2026-07-01T00:00:00Z") }).usd,
      0.1 * 1 + 0.1 * 6,
      "before",
    );
    close(
      priceTokens("gpt-5.6-luna", M, { at: Date.parse("2026-08-01T00:00:00Z") }).usd,
      0.1 * 0.2 + 0.1 * 1.2,
      "after",
    );
  });
  await t.step("GPT-5.6 Sol bills 5-minute cache writes at 1.25x input", () => {
    close(
      priceTokens("gpt-5.6-sol", tokens({ cacheWrite5mTokens: 100_000 }), {
        at: Date.parse("2026-07-01T00:00:00Z"),
      }).usd,
      0.1 * 6.25,
      "sol write",
    );
  });
  await t.step("DeepSeek's time-of-day windows", () => {
    const t1 = tokens({ inputTokens: 1_000_000 });
    close(
      priceTokens("deepseek-chat", t1, { at: Date.parse("2026-11-15T12:00:00Z") }).usd,
      0.27,
      "peak",
    );
    close(
      priceTokens("deepseek-chat", t1, { at: Date.parse("2026-11-15T20:00:00Z") }).usd,
      0.135,
      "off-peak",
    );
  });
  await t.step("without a time, the table's own date", () => {
    close(
      priceTokens("gpt-5.6-luna", M).usd,
      0.1 * 0.2 + 0.1 * 1.2,
      `at ${PRICE_SOURCE.date}`,
    );
  });
});

Deno.test("priceTokens() finds dated, routed, Bedrock and Vertex ids, and leaves local models unpriced", async (t) => {
  const cases: [string, number | null][] = [
    ["claude-sonnet-4-5-20250929", 3],
    ["anthropic/claude-sonnet-4.5", 3],
    ["openrouter/anthropic/claude-opus-4.1", 15],
    ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", 3],
    ["claude-sonnet-4-5@20250929", 3],
    ["openai/gpt-5.5", 5],
    ["google/gemini-2.5-flash", 0.3],
    ["x-ai/grok-code-fast-1", 0.2],
    ["gpt-4o-2024-08-06", 2.5],
    ["llama3.2", null],
    ["llama3.2:latest", null],
    ["qwen2.5-coder-7b-instruct", null],
    ["meta-llama/llama-3.3-70b-instruct", null],
    ["gpt-oss:20b", null],
    ["<synthetic>", null],
  ];
  for (const [model, input] of cases) {
    await t.step(model, () => {
      // 100k prompt tokens: under every tier.
      const usd = priceTokens(model, tokens({ inputTokens: 100_000 })).usd;
      if (input === null) assert.equal(usd, null);
      else close(usd, input / 10, model);
      assert.equal(findModel(model) === null, input === null);
    });
  }
});

Deno.test("findModel() keeps context windows from the table and bonsai's own limits", () => {
  assert.deepEqual(
    (({ id, provider, contextWindow, maxOutput }) => ({ id, provider, contextWindow, maxOutput }))(
      findModel("claude-sonnet-4-5-20250929")!,
    ),
    { id: "claude-sonnet-4-5", provider: "anthropic", contextWindow: 200_000, maxOutput: 64_000 },
  );
  assert.equal(findModel("claude-opus-4-6")!.contextWindow, 1_000_000);
  assert.equal(
    findModel("gpt-5")!.contextWindow,
    272_000,
    "GPT-5's input limit, not its 400k window",
  );
  assert.equal(findModel("gpt-5.5")!.contextWindow, 1_000_000);
  assert.equal(findModel("gpt-5.5")!.maxOutput, 128_000);
  assert.equal(findModel("gemini-2.5-pro")!.contextWindow, null);
});

Deno.test("a live response and an imported one are priced at the price in force when they happened", () => {
  // o3 cost $10 per million input tokens until 2025-06-10, then $2.
  const before = Date.parse("2025-05-01T12:00:00Z");
  const after = Date.parse("2025-07-01T12:00:00Z");
  const usage = {
    inputTokens: 1_000_000,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
    exact: true,
  };
  const live = (startedAt: number) =>
    ledgerEntryFor({
      attempt: 1,
      requestId: null,
      responseId: null,
      model: "o3",
      usage,
      outputChars: 0,
      stopReason: "end_turn",
      failure: null,
      startedAt,
      latencyMs: 1,
      ttftMs: null,
    }, { sessionId: "s", projectId: 1, lane: "parent", provider: "openai" }).costUsd;
  const imported = (createdAt: number) =>
    importedUsage({ lane: "parent", provider: "openai", model: "o3", tokens: usage, createdAt })
      .costUsd;
  assert.deepEqual([live(before), live(after)], [10, 2]);
  assert.deepEqual([imported(before), imported(after)], [10, 2]);
});
