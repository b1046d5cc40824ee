import assert from "node:assert/strict";
import { BonsaiError } from "../../../core/errors.ts";
import {
  badSettingError,
  describeSettings,
  readSettings,
  saveSetting,
  settingDef,
} from "../../../core/service/settings_catalog.ts";
import { SettingsStore } from "../../../core/storage/settings.ts";
import {
  decodeSavedPrices,
  savedPriceFor,
  usePricingContext,
} from "../../../core/usage/pricing_context.ts";
import { priceTokens, type TokenCounts } from "../../../core/usage/pricing.ts";
import {
  decodePrice,
  formatPrice,
  parsePriceText,
  storedPriceProblem,
} from "../../../core/usage/user_price.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";

const tokens = (t: Partial<TokenCounts>): TokenCounts => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  ...t,
});

Deno.test("parsePriceText() reads rates per million tokens, or free, and says what is wrong", () => {
  const ok: [string, unknown][] = [
    ["free", "free"],
    [" FREE ", "free"],
    ["input=3 output=15", { input: 3, output: 15 }],
    ["output=15 input=$3 cache_read=0.3 cache_write=3.75 cache_write_1h=6", {
      output: 15,
      input: 3,
      cache_read: 0.3,
      cache_write: 3.75,
      cache_write_1h: 6,
    }],
    ["input=0 output=0", { input: 0, output: 0 }],
  ];
  for (const [text, value] of ok) assert.deepEqual(parsePriceText(text), { value }, text);
  const bad: [string, RegExp][] = [
    ["", /expected 'input=3 output=15/],
    ["input=3", /output required/],
    ["cache_read=1", /input and output required/],
    ["input=3 output=x", /output: expected a number of dollars of 0 or more, got 'x'/],
    ["input=-1 output=2", /input: expected a number/],
    ["input= output=2", /input: expected a number/],
    ["input=1 output=2 input=3", /'input' is given twice/],
    ["input=1 output=2 cache=3", /unknown rate 'cache'; use input, output, cache_read/],
    ["3 15", /expected name=value, got '3'/],
  ];
  for (const [text, why] of bad) {
    const r = parsePriceText(text);
    assert.ok("problem" in r, text);
    assert.match(r.problem, why, text);
  }
});

Deno.test("stored prices are checked, decoded and shown by one decoder", () => {
  assert.equal(storedPriceProblem("free"), null);
  assert.equal(storedPriceProblem({ input: 1, output: 2, cache_read: 0.1 }), null);
  assert.match(storedPriceProblem("cheap")!, /expected 'free' or rates/);
  assert.match(storedPriceProblem({ input: 1 })!, /input and output are required/);
  assert.match(storedPriceProblem({ input: 1, output: "2" })!, /output: expected a number/);
  assert.match(storedPriceProblem({ input: 1, output: 2, extra: 1 })!, /unknown rate 'extra'/);
  assert.deepEqual(decodePrice("free"), { free: true });
  assert.deepEqual(decodePrice({ input: 1, output: 2, cache_write_1h: 4 }), {
    free: false,
    input: 1,
    output: 2,
    cacheWrite1h: 4,
  });
  assert.equal(
    formatPrice({ output: 2, input: 1, cache_read: 0.1 }),
    "input=1 output=2 cache_read=0.1",
  );
  assert.equal(formatPrice("free"), "free");
});

Deno.test("savedPriceFor() covers the id with a route, a date, a tag or a version; the longest wins", () => {
  try {
    usePricingContext({
      savedPrices: () =>
        new Map([
          ["price.llama3.2", '"free"'],
          ["price.claude-sonnet-4-5", '{"input":1,"output":2}'],
          ["price.Claude-Sonnet-4-5-Fast", '{"input":9,"output":9}'],
          ["budget.max_turns", "3"],
        ]),
    });
    const cases: [string, string | null][] = [
      ["llama3.2", "price.llama3.2"],
      ["LLAMA3.2:latest", "price.llama3.2"],
      ["ollama/llama3.2", "price.llama3.2"],
      ["llama3.2-vision", null],
      ["llama3", null],
      ["claude-sonnet-4-5-20250929", "price.claude-sonnet-4-5"],
      ["claude-sonnet-4-5@2025-09-29", "price.claude-sonnet-4-5"],
      ["anthropic/claude-sonnet-4-5", "price.claude-sonnet-4-5"],
      ["claude-sonnet-4-5-fast", "price.Claude-Sonnet-4-5-Fast"],
      ["claude-sonnet-4-5-latest", null],
    ];
    for (const [model, key] of cases) assert.equal(savedPriceFor(model)?.key ?? null, key, model);
  } finally {
    usePricingContext(null);
  }
});

Deno.test("a saved price wins over the table; a free model costs exactly 0, not unpriced", () => {
  try {
    usePricingContext({
      savedPrices: () =>
        new Map([
          ["price.llama3.2", '"free"'],
          ["price.gpt-5", '{"input":2,"output":20,"cache_read":0.5}'],
        ]),
    });
    const t = tokens({
      inputTokens: 1000,
      outputTokens: 100,
      cacheReadTokens: 4000,
      cacheWrite5mTokens: 10,
    });
    assert.deepEqual(priceTokens("llama3.2:latest", t), { usd: 0, baselineUsd: 0 });
    const cost = priceTokens("gpt-5", t);
    // Unsaved cache writes cost the input rate.
    assert.ok(Math.abs(cost.usd! - (1000 * 2 + 100 * 20 + 4000 * 0.5 + 10 * 2) / 1e6) < 1e-12);
    assert.ok(Math.abs(cost.baselineUsd! - (5010 * 2 + 100 * 20) / 1e6) < 1e-12);
    assert.equal(priceTokens("local-llama", t).usd, null);
  } finally {
    usePricingContext(null);
  }
  assert.ok(Math.abs(priceTokens("gpt-5", tokens({ inputTokens: 1e6 })).usd! - 1.25) < 1e-12);
});

Deno.test("a bad saved price is a CONFIG error naming the key, worded as every bad setting is", async () => {
  await using dir = await tempDir();
  const { db } = await openTestDb(dir.path);
  using _ = db;
  const store = new SettingsStore(db);
  assert.throws(
    () => saveSetting(store, "price.m", "input=1"),
    (e: unknown) => e instanceof BonsaiError && e.code === "USAGE" && /^price\.m: /.test(e.message),
  );
  assert.throws(() => settingDef("price. x"), /Setting 'price\. x': a model id has no spaces/);
  saveSetting(store, "price.m", "input=1 output=2");
  assert.equal(readSettings(store).prices.length, 1);
  store.set("price.m", '{"input":1}');
  const listed = describeSettings(store).find((s) => s.def.key === "price.m")!;
  assert.match(listed.problem!, /input and output are required/);
  const fromCatalog = badSettingError(listed);
  assert.throws(
    () => readSettings(store),
    (e: unknown) => e instanceof BonsaiError && e.message === fromCatalog.message,
  );
  assert.throws(
    () => decodeSavedPrices(new Map([["price.m", '{"input":1}']])),
    (e: unknown) =>
      e instanceof BonsaiError && e.code === "CONFIG" && e.message === fromCatalog.message,
  );
  assert.match(fromCatalog.message, /bonsai settings unset price\.m/);
  usePricingContext(null);
});
