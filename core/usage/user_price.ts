// A price a user saves for a model (`bonsai settings set price.<model> ...`): its text syntax,
// its stored JSON and its rates. The one decoder of those values: the settings catalog and the
// pricing code both read them through it.
import type { Rates } from "./rates.ts";

/** Saved prices are the settings whose key is this prefix and a model id. */
export const PRICE_SETTING_PREFIX = "price.";

/** A saved price: rates in USD per million tokens, or free (exactly $0, not unpriced). */
export type UserPrice = { readonly free: true } | ({ readonly free: false } & Rates);

/** The words of the text syntax, in the order they are shown, and their rate fields. */
const FIELDS = [
  ["input", "input"],
  ["output", "output"],
  ["cache_read", "cacheRead"],
  ["cache_write", "cacheWrite"],
  ["cache_write_1h", "cacheWrite1h"],
] as const;

/** The text syntax, for help and error messages. */
export const PRICE_SYNTAX =
  "'input=3 output=15 [cache_read=0.3] [cache_write=3.75] [cache_write_1h=6]' (USD per million tokens) or 'free'";

/** The model a `price.<model>` key names, or null when the key is not a price key. */
export function priceKeyModel(key: string): string | null {
  return key.startsWith(PRICE_SETTING_PREFIX) ? key.slice(PRICE_SETTING_PREFIX.length) : null;
}

/** Why a model id cannot be a price key, or null. */
export function priceModelProblem(model: string): string | null {
  if (model.trim() === "") return "name a model after 'price.', e.g. 'price.llama3.2'";
  if (/\s/.test(model)) return `a model id has no spaces, got '${model}'`;
  if (model.length > 200) return "a model id is at most 200 characters";
  return null;
}

/** Parses typed text into the stored JSON value, or says what is wrong with it. */
export function parsePriceText(
  text: string,
): { readonly value: unknown } | { readonly problem: string } {
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words.length === 1 && words[0]!.toLowerCase() === "free") return { value: "free" };
  if (words.length === 0) return { problem: `expected ${PRICE_SYNTAX}` };
  const stored: Record<string, number> = {};
  for (const word of words) {
    const m = /^([a-z0-9_]+)=\$?(.*)$/i.exec(word);
    if (!m) return { problem: `expected name=value, got '${word}'; the syntax is ${PRICE_SYNTAX}` };
    const name = m[1]!.toLowerCase();
    if (!FIELDS.some(([n]) => n === name)) {
      return {
        problem: `unknown rate '${m[1]}'; use ${FIELDS.map(([n]) => n).join(", ")}`,
      };
    }
    if (name in stored) return { problem: `'${name}' is given twice` };
    const n = m[2] === "" ? NaN : Number(m[2]);
    if (!Number.isFinite(n) || n < 0) {
      return { problem: `${name}: expected a number of dollars of 0 or more, got '${m[2]}'` };
    }
    stored[name] = n;
  }
  const missing = ["input", "output"].filter((n) => !(n in stored));
  if (missing.length > 0) {
    return {
      problem: `${missing.join(" and ")} required (or 'free'); the syntax is ${PRICE_SYNTAX}`,
    };
  }
  return { value: stored };
}

/** Why a stored JSON value is not a price, or null when it is one. */
export function storedPriceProblem(value: unknown): string | null {
  if (value === "free") return null;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return 'expected \'free\' or rates such as {"input": 3, "output": 15}';
  }
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) {
    if (!FIELDS.some(([n]) => n === key)) return `unknown rate '${key}'`;
    const n = v[key];
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0) {
      return `${key}: expected a number of 0 or more`;
    }
  }
  if (v.input === undefined || v.output === undefined) return "input and output are required";
  return null;
}

/** A checked stored value as a price (see storedPriceProblem). */
export function decodePrice(value: unknown): UserPrice {
  if (value === "free") return { free: true };
  const v = value as Record<string, number>;
  const rates: Record<string, number> = {};
  for (const [name, field] of FIELDS) if (v[name] !== undefined) rates[field] = v[name];
  return { free: false, ...(rates as unknown as Rates) };
}

/** A checked stored value as people type it: `input=3 output=15 cache_read=0.3`, or `free`. */
export function formatPrice(value: unknown): string {
  if (value === "free") return "free";
  const v = value as Record<string, number>;
  return FIELDS.filter(([n]) => v[n] !== undefined).map(([n]) => `${n}=${v[n]}`).join(" ");
}

/** The rates of a saved price; free is zero for every kind of token. */
export function userRates(p: UserPrice): Rates {
  return p.free ? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 } : p;
}
