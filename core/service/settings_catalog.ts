import { z } from "zod";
import {
  BUDGET_OPTIONS,
  type BudgetOption,
  formatBudgetValue,
  parseBudgetValue,
} from "../agent/budget_settings.ts";
import type { BudgetLimits } from "../agent/budget.ts";
import { BonsaiError } from "../errors.ts";
import { KeyReference, PROVIDER_SETTINGS, type SavedProvider } from "../providers/config.ts";
import type { Reasoning } from "../providers/types.ts";
import type { SettingsStore } from "../storage/settings.ts";
import { type SavedPrice, setSavedPrices } from "../usage/pricing_context.ts";
import {
  decodePrice,
  formatPrice,
  parsePriceText,
  PRICE_SETTING_PREFIX,
  priceKeyModel,
  priceModelProblem,
  storedPriceProblem,
} from "../usage/user_price.ts";

/** Saved setting: a verification command run after runs that changed files (A4). */
export const VERIFY_SETTING = "verify.command";
/** Saved setting: "true" to self-review after runs that changed files. */
export const SELF_REVIEW_SETTING = "review.self";
/** Saved setting keys of context management. */
export const CONTEXT_SETTINGS = {
  window: "context.window",
  compactAt: "context.compact_at",
  mode: "context.compaction",
} as const;

/** A setting people can save (B1 presets and defaults), with how its value is read and shown. */
export interface SettingDef {
  readonly key: string;
  readonly description: string;
  /** Parses typed text into the stored JSON value; throws USAGE with a clear message. */
  parse(text: string): unknown;
  /** Checks a stored JSON value: the problem in words, or null when it is good. */
  check(value: unknown): string | null;
  /** Shows a stored (checked) value. */
  format(value: unknown): string;
}

/** Every saved setting, read and checked (one decoder, one error policy). */
export interface SavedSettings {
  readonly budgets: Partial<BudgetLimits>;
  readonly provider: SavedProvider;
  readonly context: {
    readonly window?: number;
    /** Share of the window, 0-1. */
    readonly compactAt?: number;
    readonly mode?: "rule" | "model";
  };
  readonly verifyCommand: string | null;
  readonly selfReview: boolean;
  /** Prices saved per model (`price.<model>`), which pricing uses before the bundled table. */
  readonly prices: readonly SavedPrice[];
}

const problem = (schema: z.ZodType, value: unknown): string | null => {
  const r = schema.safeParse(value);
  return r.success ? null : r.error.issues[0]?.message ?? "invalid value";
};

const text = (
  key: string,
  description: string,
  rule?: { test: (v: string) => boolean; message: string },
): SettingDef => {
  const schema = z.string({ invalid_type_error: "expected text" }).trim().min(
    1,
    "a value is required",
  ).refine(
    (v) => rule?.test(v) ?? true,
    { message: rule?.message ?? "" },
  );
  return {
    key,
    description,
    parse(value) {
      const why = problem(schema, value);
      if (why) throw new BonsaiError("USAGE", `${key}: ${why}`);
      return value.trim();
    },
    check: (v) => problem(schema, v),
    format: (v) => String(v),
  };
};

const choice = (key: string, description: string, options: readonly string[]) =>
  text(key, `${description} (${options.join(", ")})`, {
    test: (v) => options.includes(v),
    message: `use one of ${options.join(", ")}`,
  });

const keyRef = (key: string, provider: string): SettingDef =>
  text(key, `${provider} API key, as a reference: env:NAME (the key itself is never stored)`, {
    test: (v) => KeyReference.safeParse(v).success,
    message: "an API key setting must be a reference like 'env:MY_KEY', never the key itself",
  });

const url = (key: string, description: string) =>
  text(key, description, {
    test: (v) => /^https?:\/\/\S+$/.test(v),
    message: "expected an http(s) URL",
  });

const budget = (o: BudgetOption): SettingDef => {
  const number = z.number({ invalid_type_error: "expected a number" });
  const schema = o.kind === "count"
    ? number.int("expected a whole number").positive("expected at least 1")
    : number.positive("expected a positive number").finite();
  return {
    key: o.setting,
    description: `budget: ${o.description}`,
    parse: (v) => parseBudgetValue(o, v),
    check: (v) => problem(schema, v),
    format: (v) => formatBudgetValue(o, Number(v)),
  };
};

const numeric = (
  key: string,
  description: string,
  schema: z.ZodType<number>,
  fromText: (t: string) => number,
  format: (v: number) => string,
): SettingDef => ({
  key,
  description,
  parse(v) {
    const n = fromText(v.trim());
    const why = problem(schema, n);
    if (why) throw new BonsaiError("USAGE", `${key}: ${why}`);
    return n;
  },
  check: (v) => problem(schema, v),
  format: (v) => format(Number(v)),
});

/** The setting of one model's price: `price.<model>` (a pattern key, one per model). */
function priceDef(key: string): SettingDef {
  return {
    key,
    description:
      "price of a model, USD per million tokens: input=3 output=15 [cache_read= cache_write= cache_write_1h=], or free",
    parse(text) {
      const r = parsePriceText(text);
      if ("problem" in r) throw new BonsaiError("USAGE", `${key}: ${r.problem}`);
      return r.value;
    },
    check: storedPriceProblem,
    format: formatPrice,
  };
}

/** Price keys, one per model (`price.<model>`); listed with this example row while none is saved. */
export const PRICE_SETTINGS = priceDef(`${PRICE_SETTING_PREFIX}<model>`);

/** Every setting with a fixed key that `bonsai settings` and `/settings` know (and PRICE_SETTINGS). */
export const SETTINGS: readonly SettingDef[] = [
  ...BUDGET_OPTIONS.map(budget),
  choice(PROVIDER_SETTINGS.provider, "default provider", ["anthropic", "openai"]),
  text(PROVIDER_SETTINGS.model, "default model id"),
  choice(PROVIDER_SETTINGS.reasoning, "default reasoning level", ["off", "low", "medium", "high"]),
  keyRef(PROVIDER_SETTINGS.anthropicKey, "Anthropic"),
  url(PROVIDER_SETTINGS.anthropicBaseUrl, "Anthropic API base URL"),
  keyRef(PROVIDER_SETTINGS.openaiKey, "OpenAI"),
  url(PROVIDER_SETTINGS.openaiBaseUrl, "OpenAI-compatible API base URL"),
  numeric(
    CONTEXT_SETTINGS.window,
    "context window in tokens (default: known per model)",
    z.number({ invalid_type_error: "expected a number" }).int(
      "expected a whole number of at least 1000",
    ).min(
      1000,
      "expected a whole number of at least 1000",
    ),
    Number,
    String,
  ),
  numeric(
    CONTEXT_SETTINGS.compactAt,
    "summarise older turns past this share of the window (default 70%)",
    z.number({ invalid_type_error: "expected a number" }).gt(
      0,
      "expected a percentage between 1 and 100",
    ).max(
      1,
      "expected a percentage between 1 and 100",
    ),
    (t) => Number(t.replace(/%$/, "")) / 100,
    (v) => `${Math.round(v * 100)}%`,
  ),
  choice(CONTEXT_SETTINGS.mode, "how older turns are summarised", ["rule", "model"]),
  text(VERIFY_SETTING, "check command run after runs that changed files"),
  choice(SELF_REVIEW_SETTING, "self-review after runs that changed files", ["true", "false"]),
];

/** The definition of a key; USAGE with a suggestion list for unknown keys. */
export function settingDef(key: string): SettingDef {
  const model = priceKeyModel(key);
  if (model !== null) {
    const problem = priceModelProblem(model);
    if (problem) throw new BonsaiError("USAGE", `Setting '${key}': ${problem}`);
    return priceDef(key);
  }
  const def = SETTINGS.find((s) => s.key === key);
  if (!def) {
    throw new BonsaiError(
      "USAGE",
      `Unknown setting '${key}'; known: ${
        [...SETTINGS, PRICE_SETTINGS].map((s) => s.key).join(", ")
      }`,
    );
  }
  return def;
}

/** Saves a setting from typed text (validated); returns the stored value. */
export function saveSetting(store: SettingsStore, key: string, value: string): unknown {
  const parsed = settingDef(key).parse(value);
  store.set(key, JSON.stringify(parsed));
  return parsed;
}

/** A stored setting as read back: its value, or why it cannot be used. */
export interface StoredSetting {
  readonly def: SettingDef;
  /** The checked value; null when unset or bad. */
  readonly value: unknown | null;
  /** The stored JSON text as it is, for showing a bad value. */
  readonly raw: string | null;
  /** Why the stored value cannot be used, or null. */
  readonly problem: string | null;
}

/** Every known setting as stored (bad values are reported, not thrown: listings must work). */
export function describeSettings(store: SettingsStore): StoredSetting[] {
  const saved = store.all();
  const stored = (def: SettingDef): StoredSetting => {
    const raw = saved.get(def.key) ?? null;
    if (raw === null) return { def, value: null, raw, problem: null };
    const why = checkStored(def, raw);
    return why === null
      ? { def, value: JSON.parse(raw), raw, problem: null }
      : { def, value: null, raw, problem: why };
  };
  // Price keys are one per model: the saved ones, or an example row while there are none.
  const prices = [...saved.keys()].filter((k) => priceKeyModel(k) !== null).map(priceDef);
  return [...SETTINGS, ...(prices.length > 0 ? prices : [PRICE_SETTINGS])].map(stored);
}

function checkStored(def: SettingDef, raw: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return "it is not valid JSON";
  }
  return def.check(value);
}

/** A stored setting as listings show it: its value, "off"/"-" when unset, or the bad value as stored. */
export function shownValue(s: StoredSetting): string {
  if (s.problem !== null) return `${s.raw} (unusable: ${s.problem})`;
  if (s.value === null) return s.def.key.startsWith("budget.") ? "off" : "-";
  return s.def.format(s.value);
}

/** The error for a stored value that cannot be used: one line, naming the key and the fix. */
export function badSettingError(s: StoredSetting): BonsaiError {
  return new BonsaiError(
    "CONFIG",
    `Saved setting '${s.def.key}' has an unusable value ${s.raw} (${s.problem}); remove it with 'bonsai settings unset ${s.def.key}' or set it again`,
    { data: { key: s.def.key } },
  );
}

/**
 * Reads every saved setting, typed. A stored value that fails its check (written by hand,
 * or by an older bonsai) is a CONFIG error naming the key and how to remove it.
 */
export function readSettings(store: SettingsStore): SavedSettings {
  const all = describeSettings(store);
  const bad = all.find((s) => s.problem !== null);
  if (bad) throw badSettingError(bad);
  const value = <T>(key: string): T | undefined =>
    (all.find((s) => s.def.key === key)?.value ?? undefined) as T | undefined;
  const budgets: Record<string, number> = {};
  for (const o of BUDGET_OPTIONS) {
    const v = value<number>(o.setting);
    if (v !== undefined) budgets[o.field] = v;
  }
  return {
    budgets: budgets as Partial<BudgetLimits>,
    provider: {
      provider: value<"anthropic" | "openai">(PROVIDER_SETTINGS.provider),
      model: value<string>(PROVIDER_SETTINGS.model),
      reasoning: value<Reasoning>(PROVIDER_SETTINGS.reasoning),
      anthropicKey: value<string>(PROVIDER_SETTINGS.anthropicKey),
      anthropicBaseUrl: value<string>(PROVIDER_SETTINGS.anthropicBaseUrl),
      openaiKey: value<string>(PROVIDER_SETTINGS.openaiKey),
      openaiBaseUrl: value<string>(PROVIDER_SETTINGS.openaiBaseUrl),
    },
    context: {
      window: value<number>(CONTEXT_SETTINGS.window),
      compactAt: value<number>(CONTEXT_SETTINGS.compactAt),
      mode: value<"rule" | "model">(CONTEXT_SETTINGS.mode),
    },
    verifyCommand: value<string>(VERIFY_SETTING) ?? null,
    selfReview: value<string>(SELF_REVIEW_SETTING) === "true",
    prices: savedPrices(all),
  };
}

/**
 * The saved prices of checked settings. Pricing (runs and imports call priceTokens) is
 * handed them too, so a price saved in the REPL applies from the next prompt on.
 */
function savedPrices(all: readonly StoredSetting[]): SavedPrice[] {
  const prices = all.filter((s) => s.value !== null && priceKeyModel(s.def.key) !== null).map((
    s,
  ) => ({ key: s.def.key, model: priceKeyModel(s.def.key)!, price: decodePrice(s.value) }));
  setSavedPrices(prices);
  return prices;
}
