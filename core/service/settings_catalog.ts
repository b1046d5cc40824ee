import { BUDGET_OPTIONS, formatBudgetValue, parseBudgetValue } from "../agent/budget_settings.ts";
import { BonsaiError } from "../errors.ts";
import { KeyReference, PROVIDER_SETTINGS } from "../providers/config.ts";
import type { SettingsStore } from "../storage/settings.ts";
import { CONTEXT_SETTINGS, SELF_REVIEW_SETTING, VERIFY_SETTING } from "./session_service.ts";

/** A setting people can save (B1 presets and defaults), with how its value is read and shown. */
export interface SettingDef {
  readonly key: string;
  readonly description: string;
  /** Parses typed text into the stored JSON value; throws USAGE with a clear message. */
  parse(text: string): unknown;
  /** Shows a stored value. */
  format(value: unknown): string;
}

const text = (
  key: string,
  description: string,
  check?: (v: string) => string | null,
): SettingDef => ({
  key,
  description,
  parse(value) {
    const v = value.trim();
    const problem = v === "" ? "a value is required" : check?.(v) ?? null;
    if (problem) throw new BonsaiError("USAGE", `${key}: ${problem}`);
    return v;
  },
  format: (v) => String(v),
});

const choice = (key: string, description: string, options: readonly string[]) =>
  text(
    key,
    `${description} (${options.join(", ")})`,
    (v) => (options.includes(v) ? null : `use one of ${options.join(", ")}`),
  );

const keyRef = (key: string, provider: string): SettingDef =>
  text(
    key,
    `${provider} API key, as a reference: env:NAME (the key itself is never stored)`,
    (v) => {
      const r = KeyReference.safeParse(v);
      return r.success ? null : r.error.issues[0]!.message;
    },
  );

const url = (key: string, description: string) =>
  text(key, description, (v) => (/^https?:\/\/\S+$/.test(v) ? null : "expected an http(s) URL"));

/** Every setting `bonsai settings` and `/settings` know. */
export const SETTINGS: readonly SettingDef[] = [
  ...BUDGET_OPTIONS.map((o): SettingDef => ({
    key: o.setting,
    description: `budget: ${o.description}`,
    parse: (v) => parseBudgetValue(o, v),
    format: (v) => formatBudgetValue(o, Number(v)),
  })),
  choice(PROVIDER_SETTINGS.provider, "default provider", ["anthropic", "openai"]),
  text(PROVIDER_SETTINGS.model, "default model id"),
  choice(PROVIDER_SETTINGS.reasoning, "default reasoning level", ["off", "low", "medium", "high"]),
  keyRef(PROVIDER_SETTINGS.anthropicKey, "Anthropic"),
  url(PROVIDER_SETTINGS.anthropicBaseUrl, "Anthropic API base URL"),
  keyRef(PROVIDER_SETTINGS.openaiKey, "OpenAI"),
  url(PROVIDER_SETTINGS.openaiBaseUrl, "OpenAI-compatible API base URL"),
  {
    key: CONTEXT_SETTINGS.window,
    description: "context window in tokens (default: known per model)",
    parse(v) {
      const n = Number(v.trim());
      if (!Number.isInteger(n) || n < 1000) {
        throw new BonsaiError(
          "USAGE",
          `${CONTEXT_SETTINGS.window}: expected a whole number of at least 1000`,
        );
      }
      return n;
    },
    format: (v) => String(v),
  },
  {
    key: CONTEXT_SETTINGS.compactAt,
    description: "summarise older turns past this share of the window (default 70%)",
    parse(v) {
      const n = Number(v.trim().replace(/%$/, ""));
      if (!(n > 0 && n <= 100)) {
        throw new BonsaiError(
          "USAGE",
          `${CONTEXT_SETTINGS.compactAt}: expected a percentage between 1 and 100`,
        );
      }
      return n / 100;
    },
    format: (v) => `${Math.round(Number(v) * 100)}%`,
  },
  choice(CONTEXT_SETTINGS.mode, "how older turns are summarised", ["rule", "model"]),
  text(VERIFY_SETTING, "check command run after runs that changed files"),
  choice(SELF_REVIEW_SETTING, "self-review after runs that changed files", ["true", "false"]),
];

/** The definition of a key; USAGE with a suggestion list for unknown keys. */
export function settingDef(key: string): SettingDef {
  const def = SETTINGS.find((s) => s.key === key);
  if (!def) {
    throw new BonsaiError(
      "USAGE",
      `Unknown setting '${key}'; known: ${SETTINGS.map((s) => s.key).join(", ")}`,
    );
  }
  return def;
}

/** Saves a setting from typed text (validated). */
export function saveSetting(store: SettingsStore, key: string, value: string): unknown {
  const parsed = settingDef(key).parse(value);
  store.set(key, JSON.stringify(parsed));
  return parsed;
}

/** Every known setting with its saved value (or null). */
export function describeSettings(
  store: SettingsStore,
): { def: SettingDef; value: unknown | null }[] {
  const saved = store.all();
  return SETTINGS.map((def) => {
    const raw = saved.get(def.key);
    return { def, value: raw === undefined ? null : JSON.parse(raw) };
  });
}
