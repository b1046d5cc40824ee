// What pricing sees beyond its arguments: the prices users saved (`price.<model>` settings)
// and the time. The command layer supplies both once per process, after it opens the
// database (commands/context.ts); the agent and the importers call priceTokens unchanged.
// Saved prices are read on first use and kept; readSettings hands fresh ones over whenever a
// run reads its settings, so a price saved in the REPL applies from the next prompt. This is
// module state, so it is per thread: a worker that prices must be handed allSavedPrices()
// and call setSavedPrices() itself.
import { BonsaiError } from "../errors.ts";
import {
  decodePrice,
  PRICE_SETTING_PREFIX,
  priceKeyModel,
  storedPriceProblem,
  type UserPrice,
} from "./user_price.ts";

/** A saved price and the setting it comes from. */
export interface SavedPrice {
  /** The setting's key, `price.<model>`. */
  readonly key: string;
  /** The model id as saved. */
  readonly model: string;
  readonly price: UserPrice;
}

/** The saved prices, as stored: setting key (`price.<model>`) → JSON text. */
export type SavedPriceSource = () => ReadonlyMap<string, string>;

let source: SavedPriceSource | null = null;
let saved: readonly SavedPrice[] | null = null;
let now: (() => number) | null = null;

/**
 * Sets where saved prices come from and what time it is (for prices that changed over time).
 * Replaces what an earlier call set; `null` removes it.
 */
export function usePricingContext(
  context: { readonly savedPrices: SavedPriceSource | null; readonly now?: () => number } | null,
): void {
  source = context?.savedPrices ?? null;
  now = context?.now ?? null;
  saved = null;
}

/** Hands over saved prices just read and checked (readSettings does, for every run). */
export function setSavedPrices(prices: readonly SavedPrice[]): void {
  saved = prices;
}

/** The current time, if the command layer gave a clock. */
export function pricingNow(): number | null {
  return now ? now() : null;
}

/** The CONFIG error of a saved price that cannot be used (the settings catalog's wording). */
export function unusablePriceError(key: string, raw: string, problem: string): BonsaiError {
  return new BonsaiError(
    "CONFIG",
    `Saved setting '${key}' has an unusable value ${raw} (${problem}); remove it with 'bonsai settings unset ${key}' or set it again`,
    { data: { key } },
  );
}

/** Decodes stored price settings; an unusable one is a CONFIG error naming its key. */
export function decodeSavedPrices(stored: ReadonlyMap<string, string>): SavedPrice[] {
  const out: SavedPrice[] = [];
  for (const [key, raw] of stored) {
    const model = priceKeyModel(key);
    if (model === null) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw unusablePriceError(key, raw, "it is not valid JSON");
    }
    const problem = storedPriceProblem(value);
    if (problem) throw unusablePriceError(key, raw, problem);
    out.push({ key, model, price: decodePrice(value) });
  }
  return out;
}

function savedPrices(): readonly SavedPrice[] {
  if (saved === null) saved = source ? decodeSavedPrices(source()) : [];
  return saved;
}

/** Does saved model id `key` (lower-case) cover `id`: the same, or with a date, tag or `@`? */
function covers(key: string, id: string): boolean {
  if (id === key) return true;
  if (!id.startsWith(key)) return false;
  const rest = id.slice(key.length);
  return /^-(?:\d{8}|\d{4}-\d{2}-\d{2})$/.test(rest) || rest.startsWith(":") ||
    rest.startsWith("@");
}

/**
 * The saved price for a model id, or null: a saved id covers the same id (any case), with a
 * provider path before it (`openrouter/x` for `x`), and with a date, `:tag` or `@version`
 * after it (`llama3.2` covers `llama3.2:latest`). The longest saved id that covers it wins.
 */
export function savedPriceFor(model: string): SavedPrice | null {
  const all = savedPrices();
  if (all.length === 0) return null;
  const id = model.trim().toLowerCase();
  const name = id.slice(id.lastIndexOf("/") + 1);
  let best: SavedPrice | null = null;
  for (const p of all) {
    const key = p.model.toLowerCase();
    if (!(covers(key, id) || covers(key, name))) continue;
    if (!best || key.length > best.model.length) best = p;
  }
  return best;
}

/** Every saved price (for `bonsai prices`). */
export function allSavedPrices(): readonly SavedPrice[] {
  return savedPrices();
}

/** The stored price settings of a full settings listing (`price.*` keys only). */
export function priceSettings(all: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...all].filter(([k]) => k.startsWith(PRICE_SETTING_PREFIX)));
}
